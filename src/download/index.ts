/**
 * Automatic download of upgrade binaries (DAEMON_ALLOW_DOWNLOAD_BINARIES): the plan's Info, the host's
 * platform key, the URL policy, and an HTTP client that retries, resumes and times out. The supervisor
 * calls `downloadUpgradeBinary`; `chainvisor check-plan` uses the parts.
 */
export { type DownloadUpgradeOptions, type Downloader, downloadUpgradeBinary } from './plan-binary.js';
export {
  ChecksumRequiredError,
  DownloadAbortedError,
  DownloadDeadlineError,
  DownloadError,
  DownloadIoError,
  DownloadTooLargeError,
  InfoError,
  NoPlatformError,
  RedirectError,
  UrlRefusedError,
} from './errors.js';
export { type Info, isInfoUrl, maxInfoBytes, parseInfoJson, pickBinary, resolveInfo } from './info.js';
export { hostPlatform } from './platform.js';
export { type UrlPolicy, checkUrlAllowed, isLoopbackHost } from './policy.js';
export { redactUrl } from './redact.js';
export { type DownloadSource, parseSource } from './source.js';
export { type DownloadSink, type Fetcher, type FetcherOptions, type FetchRequest, type FetchResult, createFetcher, fetcherFromConfig } from './fetch.js';
export { type BackoffOptions, defaultBackoff, parseRetryAfter, retryDelay } from './backoff.js';
export { type FetchedBinary, type FetchUnpackOptions, type FetchProgress, fetchAndUnpack } from './fetch-unpack.js';

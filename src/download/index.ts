/**
 * Automatic download of upgrade binaries (DAEMON_ALLOW_DOWNLOAD_BINARIES): the plan's Info, the host's
 * platform key, the URL policy, and an HTTP client that retries, resumes and times out. The supervisor
 * calls `downloadUpgradeBinary`; `chainvisor check-plan` uses the parts.
 */
export { redactUrl } from '../shared/redact.js';
export { type BackoffOptions, defaultBackoff, retryDelay } from './backoff.js';
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
export { createFetcher, type Fetcher, fetcherFromConfig, type FetcherOptions, type FetchRequest, type FetchResult } from './fetch.js';
export { fetchAndUnpack, type FetchedBinary, type FetchProgress, type FetchUnpackOptions } from './fetch-unpack.js';
export { type Info, isInfoUrl, parseInfoJson, pickBinary, resolveInfo } from './info.js';
export { type Downloader, downloadUpgradeBinary, type DownloadUpgradeOptions } from './plan-binary.js';
export { hostPlatform } from './platform.js';
export { checkUrlAllowed, isLoopbackHost, isPublicHost, type UrlPolicy } from './policy.js';
export { type DownloadSource, parseSource } from './source.js';
export {
  ChecksumDisagreementError,
  NoSourceBinaryError,
  QuorumNotMetError,
  type Resolution,
  resolveSources,
  type SourceReport,
  sourceReport,
  usesSources,
} from './sources/index.js';

/**
 * The host's network as Go (cosmovisor) sees it: proxies from the environment, the host's trusted
 * certificate authorities, and the one HTTP client (undici) that downloads, Info documents and
 * webhooks share.
 */
export { createHttpClient, type HttpClient, type HttpClientOptions, type HttpRequest, type HttpResponse, type Route } from './client.js';
export { basicAuthorization, type Credentials, credentialsProblem, splitCredentials, type SplitUrl } from './credentials.js';
export {
  asTransportError,
  CertificateError,
  certificateProblem,
  isNetworkError,
  isNotHttp,
  ProxyAuthError,
  ProxyStatusError,
  TransportTimeout,
} from './errors.js';
export { describeProxies, isLoopback, proxyFor, proxyProblems, type ProxySettings, proxySettings, shownProxy } from './proxy.js';
export { readTrustStore, secureContextFor, systemBundleFiles, systemCertDirs, type TrustStore } from './trust.js';

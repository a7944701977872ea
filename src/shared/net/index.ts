/**
 * The host's network as Go (cosmovisor) sees it: proxies from the environment, the host's trusted
 * certificate authorities, the one HTTP client (undici) that downloads, Info documents and webhooks
 * share, the one classification of its failures, and the one reading of a server's Retry-After.
 */
export { dropBody, readSome } from './body.js';
export { createHttpClient, type HttpClient, type HttpClientOptions, type HttpRequest, type HttpResponse, type Route } from './client.js';
export { basicAuthorization, type Credentials, credentialsProblem, splitCredentials, type SplitUrl } from './credentials.js';
export { asTransportError, CertificateError, certificateProblem, ProxyAuthError, ProxyStatusError, ProxyUnusableError, TransportTimeout } from './errors.js';
export { classifyFailure, type Failure, type FailureKind, retryableStatus } from './failure.js';
export { describeProxies, isLoopback, proxyFor, proxyProblems, type ProxySettings, proxySettings, shownProxy } from './proxy.js';
export { parseRetryAfter } from './retry-after.js';
export { readTrustStore, secureContextFor, type TrustStore } from './trust.js';

/** The HTTP endpoint: `/metrics`, `/healthz`, `/status` on CHAINVISOR_HTTP_ADDRESS, optional bearer token. */
export { type ListenAddress, parseListenAddress } from './address.js';
export { type HttpServer, type Routes, startHttpServer } from './server.js';

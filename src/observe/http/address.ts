/**
 * CHAINVISOR_HTTP_ADDRESS: `host:port` (`127.0.0.1:9102`, `[::1]:9102`, `localhost:9102`). The
 * endpoint is off unless it is set. A non-loopback host is allowed — Prometheus often scrapes over
 * the network — but only because the operator wrote it; without CHAINVISOR_HTTP_TOKEN that is warned.
 */
import { ChainvisorError } from '../../shared/errors/index.js';

export interface ListenAddress {
  host: string;
  port: number;
  loopback: boolean;
}

export function parseListenAddress(value: string): ListenAddress {
  const m = /^(?:\[([^\]]+)\]|([^:\s]+)):(\d{1,5})$/.exec(value.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) {
    throw new ChainvisorError('CHAINVISOR_HTTP_ADDRESS_INVALID', `CHAINVISOR_HTTP_ADDRESS ${JSON.stringify(value)} is not host:port`, {
      hint: 'for example CHAINVISOR_HTTP_ADDRESS=127.0.0.1:9102 (or [::1]:9102); leave it empty to turn the endpoint off',
    });
  }
  const host = (m[1] ?? m[2]) as string;
  return { host, port, loopback: isLoopback(host) };
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

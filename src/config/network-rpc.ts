/**
 * CHAINVISOR_NETWORK_RPC (issue #32): one or more CometBFT RPC URLs of other nodes of the same chain
 * (sentries, a public RPC), comma-separated — the network's view the twin check reads. `http://`,
 * `https://` and CometBFT's own `tcp://` (read as http) are accepted; a path is kept as the base the
 * RPC's routes go under (`https://rpc.example.com/cosmoshub/status`), and the query string is sent
 * with every request (providers put an API key there). Credentials in a URL are sent as Basic
 * authorization and never shown: every message names an entry by its redacted form.
 */
import { splitCredentials } from '../shared/net/index.js';
import { redactSecretUrl } from '../shared/redact.js';
import type { Parsed } from './values.js';

/** The entries of the setting, each checked; the list is computed once by `run` and passed on. */
export function networkRpcUrls(text: string): Parsed<URL[]> {
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const urls: URL[] = [];
  for (const [i, entry] of entries.entries()) {
    const which = entries.length === 1 ? '' : `entry ${i + 1} `;
    // `host:port` alone parses as a URL of scheme `host:`: say what is missing instead.
    if (/^[A-Za-z0-9.-]+:\d+\/?$/.test(entry)) return { ok: false, message: `${which}(${entry}) has no scheme; write http://${entry} (or https://)` };
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      return {
        ok: false,
        message: `${which}(${redactSecretUrl(entry)}) is not a URL; expected http(s)://host:port of a CometBFT RPC, for example https://rpc.example.com:443`,
      };
    }
    if (url.protocol === 'tcp:') url = new URL(`http:${entry.trim().slice('tcp:'.length)}`);
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      return { ok: false, message: `${which}(${redactSecretUrl(url)}) uses ${url.protocol}; expected http://, https:// or tcp:// (a CometBFT RPC)` };
    if (url.hostname === '') return { ok: false, message: `${which}(${redactSecretUrl(url)}) names no host` };
    const split = splitCredentials(url);
    if (!split.ok) return { ok: false, message: `${which}(${redactSecretUrl(url)}): ${split.problem}` };
    if (url.hash !== '') url.hash = '';
    urls.push(url);
  }
  return { ok: true, value: urls };
}

/** The setting's check, as `config` and `run` make it (exit 78 on a bad entry): the text, trimmed. */
export function parseNetworkRpc(text: string): Parsed<string> {
  const urls = networkRpcUrls(text);
  return urls.ok ? { ok: true, value: text.trim() } : urls;
}

/**
 * CHAINVISOR_WEBHOOK_URL: one or more http(s) URLs, comma-separated. Checked when `run` starts, so a
 * typo stops chainvisor (exit 78) instead of silently paging nobody on the night of the upgrade.
 * Each target keeps its redacted form for log lines: credentials in a URL never reach the logs.
 */
import { ChainvisorError } from '../../shared/errors/index.js';
import { redactUrl } from '../../shared/redact.js';

export interface WebhookTarget {
  url: URL;
  /** For log lines: `https://***@hooks.example/…?…`. */
  shown: string;
}

export function parseWebhookTargets(value: string): WebhookTarget[] {
  const parts = value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  return parts.map((part) => {
    let url: URL;
    try {
      url = new URL(part);
    } catch {
      throw invalid(redactUrl(part), 'is not a URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(redactUrl(url), `uses ${url.protocol}; only http: and https: are sent to`);
    return { url, shown: redactUrl(url) };
  });
}

function invalid(shown: string, why: string): ChainvisorError {
  return new ChainvisorError('CHAINVISOR_WEBHOOK_URL_INVALID', `CHAINVISOR_WEBHOOK_URL entry ${shown} ${why}`, {
    hint: 'give one or more http(s) URLs separated by commas, for example CHAINVISOR_WEBHOOK_URL=https://hooks.example.com/T0/B0/xyz',
  });
}

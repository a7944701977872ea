/**
 * CHAINVISOR_WEBHOOK_URL: one or more http(s) URLs, comma-separated. Checked when `run` starts (and by
 * `chainvisor config`), so a typo stops chainvisor (exit 78) instead of silently paging nobody on the
 * night of the upgrade: a URL that does not parse, another scheme, or credentials that cannot be
 * decoded (a `%` that starts no escape), which would otherwise fail every event. A receiver's URL is
 * often a secret in its path (a Slack or Discord URL used as a generic webhook), so each target keeps
 * the form shared/redact.ts gives such URLs for log lines, and the fragments an answer must be scrubbed of.
 */
import { ChainvisorError } from '../../shared/errors/index.js';
import { splitCredentials } from '../../shared/net/index.js';
import { redactSecretUrl, secretsOf } from '../../shared/redact.js';

export interface WebhookTarget {
  url: URL;
  /** For log lines: `https://***@hooks.example/services/…`. */
  shown: string;
  /** What a reason must never show: its path tokens, credentials and query. */
  secrets: string[];
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
      throw invalid(redactSecretUrl(part), 'is not a URL');
    }
    const shown = redactSecretUrl(url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(shown, `uses ${url.protocol}; only http: and https: are sent to`);
    const split = splitCredentials(url);
    if (!split.ok) throw invalid(shown, `cannot be used: ${split.problem}`);
    return { url, shown, secrets: secretsOf(url) };
  });
}

function invalid(shown: string, why: string): ChainvisorError {
  return new ChainvisorError('CHAINVISOR_WEBHOOK_URL_INVALID', `CHAINVISOR_WEBHOOK_URL entry ${shown} ${why}`, {
    hint: 'give one or more http(s) URLs separated by commas, for example CHAINVISOR_WEBHOOK_URL=https://hooks.example.com/T0/B0/xyz',
  });
}

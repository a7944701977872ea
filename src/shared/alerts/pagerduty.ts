/**
 * PagerDuty Events API v2 (REFERENCE §7): pages only what needs a person, and resolves the incident
 * with the same `dedup_key` when its cause clears (issue #27). Which event pages at which severity, and
 * what resolves it: the table in the design note.
 * Why, and the rest of its rules: docs/design/alerts.md#alertspagerdutyts.
 */
import { createHash } from 'node:crypto';

import { secretsOf } from '../redact.js';
import { defineChannel } from './channel.js';
import type { NodeFacts } from './node-facts.js';
import { cut, headlineOf, type Notice, testEvent } from './notice.js';
import { httpUrl, withSlash } from './service-url.js';

export const pagerduty = defineChannel({
  name: 'pagerduty',
  title: 'PagerDuty',
  settings: {
    pagerdutyRoutingKey: {
      env: 'CHAINVISOR_PAGERDUTY_ROUTING_KEY',
      kind: 'string',
      default: '',
      redact: 'secret',
      description:
        'A PagerDuty Events API v2 integration (routing) key: a failed upgrade, a node that exits or crash-loops, staging still failing near the height and a failed rehearsal page; the incident is resolved when the cause clears. Empty turns PagerDuty off.',
    },
    pagerdutyApiUrl: {
      env: 'CHAINVISOR_PAGERDUTY_API_URL',
      kind: 'string',
      default: 'https://events.pagerduty.com',
      redact: 'urls',
      description: 'The PagerDuty Events API server (`/v2/enqueue` is appended).',
    },
  },
  switch: 'pagerdutyRoutingKey',
  help: 'CHAINVISOR_PAGERDUTY_ROUTING_KEY (the test: an info-severity event, resolved at once)',
  parse(values, { problems, wanted }) {
    const routingKey = values.pagerdutyRoutingKey.trim();
    if (routingKey === '') return undefined;
    if (/[\s"\\]/.test(routingKey))
      problems.push({
        setting: 'CHAINVISOR_PAGERDUTY_ROUTING_KEY',
        message: 'is not a routing key (32 letters and digits, from the service\'s "Events API v2" integration)',
      });
    const api = httpUrl(values.pagerdutyApiUrl, 'CHAINVISOR_PAGERDUTY_API_URL', false, problems);
    if (!api) return undefined;
    return {
      name: 'pagerduty',
      url: new URL('./v2/enqueue', withSlash(api)),
      secrets: secretsOf(api, [routingKey]),
      formatter(facts) {
        const decide = createPager(facts);
        return (n) => {
          if (n.event === testEvent) {
            // A test page at the lowest severity, resolved at once.
            const dedup = `${dedupKey(facts)}/test`;
            return [
              pagerdutyBody({ action: 'trigger', severity: 'info', dedupKey: dedup }, routingKey, n),
              pagerdutyBody({ action: 'resolve', dedupKey: dedup }, routingKey, n),
            ];
          }
          const page = decide(n);
          // CHAINVISOR_NOTIFY_EVENTS narrows what pages, never what resolves: an incident is not left open.
          if (page === undefined || (page.action === 'trigger' && !wanted(n.event))) return [];
          return [pagerdutyBody(page, routingKey, n)];
        };
      },
    };
  },
});

export type Severity = 'critical' | 'error' | 'warning' | 'info';

export type Page = { action: 'trigger'; severity: Severity; dedupKey: string } | { action: 'resolve'; dedupKey: string };

const crashLoopRestarts = 3;

/** Resolve only what they cleared: never a critical incident this process paged (design note). */
const partialResolves = new Set(['binary-staged', 'upgrade-cancelled']);

/** Remembers what this process paged, so a staged binary or a cancel never resolves a failed upgrade. */
export function createPager(facts: NodeFacts): (notice: Notice) => Page | undefined {
  const critical = new Set<string>();
  return (notice) => {
    const page = pageFor(notice, facts);
    if (page?.action === 'trigger' && page.severity === 'critical') critical.add(page.dedupKey);
    if (page?.action === 'resolve') {
      if (partialResolves.has(notice.event) && critical.has(page.dedupKey)) return undefined;
      critical.delete(page.dedupKey);
    }
    return page;
  };
}

export function pageFor(notice: Notice, facts: NodeFacts): Page | undefined {
  const data = notice.data;
  const key = dedupKey(facts, notice.upgrade?.name);
  switch (notice.event) {
    case 'upgrade-failed':
      return { action: 'trigger', severity: 'critical', dedupKey: key };
    case 'key-in-use':
      return { action: 'trigger', severity: 'critical', dedupKey: dedupKey(facts, undefined, 'key-in-use') };
    case 'twin-unchecked':
      return data.refused === true ? { action: 'trigger', severity: 'error', dedupKey: dedupKey(facts, undefined, 'twin-check') } : undefined;
    case 'home-mismatch':
      return data.refused === true ? { action: 'trigger', severity: 'error', dedupKey: dedupKey(facts, undefined, 'home') } : undefined;
    case 'node-exited': {
      const failed = typeof data.code === 'number' ? data.code !== 0 : data.signal !== undefined && data.signal !== null;
      const restarts = typeof data.restarts === 'number' ? data.restarts : 0;
      if (failed && (data.restart === false || restarts >= crashLoopRestarts)) return { action: 'trigger', severity: 'critical', dedupKey: dedupKey(facts) };
      return undefined;
    }
    case 'staging-failed':
      // Only the warning at CHAINVISOR_STAGE_WARN_BLOCKS carries blocksLeft; earlier attempts are chat only.
      return data.blocksLeft === undefined ? undefined : { action: 'trigger', severity: 'error', dedupKey: key };
    case 'checksum-disagreement':
      return { action: 'trigger', severity: data.near === true ? 'critical' : 'error', dedupKey: key };
    case 'validator-not-signing':
    case 'upgrade-stalled':
      return { action: 'trigger', severity: 'error', dedupKey: key };
    case 'rehearsal-failed':
      return { action: 'trigger', severity: 'warning', dedupKey: key };
    // Governance (issue #45): a proposal whose binary cannot be used pages before its vote ends; an
    // announcement pages only when a cancellation could no longer pass in time.
    case 'proposal-problem':
      return { action: 'trigger', severity: 'error', dedupKey: dedupKey(facts, undefined, `proposal/${String(data.proposal)}/binary`) };
    case 'upgrade-proposed':
      return data.tooLateToCancel != null
        ? { action: 'trigger', severity: 'warning', dedupKey: dedupKey(facts, undefined, `proposal/${String(data.proposal)}/cancel-window`) }
        : undefined;
    // A cancelled plan's height will not come: staging still failing near it, a failed rehearsal, an earlier disagreement need nobody now.
    case 'upgrade-applied':
    case 'upgrade-confirmed':
    case 'binary-staged':
    case 'upgrade-cancelled':
      return notice.upgrade ? { action: 'resolve', dedupKey: key } : undefined;
    default:
      return undefined;
  }
}

/** `chainvisor/<chain id or home>/<node>/<upgrade/name, or the topic: node, key-in-use …>`; hashed when it would pass PagerDuty's 255. */
export function dedupKey(facts: NodeFacts, upgrade?: string, topic = 'node'): string {
  const key = `chainvisor/${facts.chainId ?? facts.home}/${facts.node}/${upgrade === undefined ? topic : `upgrade/${upgrade}`}`;
  return key.length <= 255 ? key : `chainvisor/${createHash('sha256').update(key).digest('hex')}`;
}

export function pagerdutyBody(page: Page, routingKey: string, notice: Notice): string {
  if (page.action === 'resolve') return JSON.stringify({ routing_key: routingKey, event_action: 'resolve', dedup_key: page.dedupKey });
  const details: Record<string, unknown> = {
    event: notice.event,
    chain_id: notice.chainId ?? null,
    node: notice.node,
    upgrade: notice.upgrade?.name ?? null,
    height: notice.upgrade?.height ?? null,
    what: cut(notice.what, 2000),
    what_to_do: notice.hint ?? null,
  };
  for (const [name, value] of Object.entries(notice.data)) if (!(name in details) && name !== 'hint' && value !== undefined) details[name] = value;
  return JSON.stringify({
    routing_key: routingKey,
    event_action: 'trigger',
    dedup_key: page.dedupKey,
    client: 'chainvisor',
    payload: {
      summary: cut(`${headlineOf(notice)}: ${notice.what}`, 1024),
      source: notice.node,
      severity: page.severity,
      timestamp: notice.time,
      component: notice.upgrade?.name ?? 'node',
      group: notice.chainId ?? 'chainvisor',
      class: notice.event,
      custom_details: details,
    },
  });
}

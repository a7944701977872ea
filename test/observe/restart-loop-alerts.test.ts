/**
 * A restart loop pages once: `chainvisor run` started again and again (systemd's Restart=on-failure)
 * over a node that fails the same way sends that failure to the webhooks once an hour, across the
 * restarts (cosmovisor/.chainvisor/failures-sent.json); a different failure is sent at once.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { writeFakeNode } from '../support/fake-node.js';
import { makeHome, type TestHome } from '../support/home.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

let t: TestHome;
let receiver: WebhookReceiver;
before(async () => {
  receiver = await startWebhookReceiver();
  t = await makeHome({ CHAINVISOR_WEBHOOK_URL: receiver.url, CHAINVISOR_LOG_FORMAT: 'json' });
  await t.cliOk(['init', await t.fakeNode({ label: 'genesis', runMs: 200, exitCode: 3 })]);
});
after(async () => {
  await receiver.close();
  await t.cleanup();
});

const exits = (): string[] => receiver.delivered().flatMap((r) => (r.body.event === 'node-exited' ? [String(r.body.text)] : []));

test('the same failure three starts in a row reaches the webhook once; a different one is sent', async () => {
  const logs: string[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await t.cli(['run', 'start']);
    assert.equal(r.exitCode, 3, `chainvisor exits with the node's code:\n${r.stderr}`);
    logs.push(r.stderr);
  }
  assert.equal(exits().length, 1, `one node-exited delivered, not one per start: ${JSON.stringify(exits())}`);
  assert.match(exits()[0] ?? '', /exit code 3/);
  for (const log of logs.slice(1)) {
    const skipped = log
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.notify === 'node-exited' && typeof l.until === 'string');
    assert.ok(skipped, `the start says it did not send the failure again, and until when:\n${log}`);
    assert.ok(Date.parse(String(skipped.until)) - Date.now() > 55 * 60_000, `for about an hour: ${String(skipped.until)}`);
  }
  const record = JSON.parse(await fs.readFile(path.join(t.home, 'cosmovisor', '.chainvisor', 'failures-sent.json'), 'utf8')) as unknown[];
  assert.equal(record.length, 1);

  // The node now fails another way: that is news, sent at once.
  await writeFakeNode(path.join(t.home, 'cosmovisor', 'genesis', 'bin'), { label: 'simd', journal: t.journal, runMs: 200, exitCode: 5 });
  const r = await t.cli(['run', 'start']);
  assert.equal(r.exitCode, 5, r.stderr);
  assert.equal(exits().length, 2, JSON.stringify(exits()));
  assert.match(exits()[1] ?? '', /exit code 5/);
});

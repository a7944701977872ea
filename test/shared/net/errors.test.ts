/**
 * asTransportError on what a real connection raises: a name whose every address refuses (`localhost`
 * where /etc/hosts names it for ::1 and 127.0.0.1) fails with an AggregateError whose message is empty;
 * the error said instead names each refusal and keeps the code, so that the download, the webhooks and
 * the chain's knock say why, and the failure is classified as the network's.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';

import { asTransportError, classifyFailure } from '../../../src/shared/net/index.js';
import { unusedPort } from '../../support/ports.js';

/** What connecting to a name with both loopback addresses, neither listening, raises. */
async function refusedEverywhere(): Promise<Error> {
  const port = await unusedPort();
  const lookup = (_host: string, _options: unknown, callback: (error: null, addresses: { address: string; family: number }[]) => void) =>
    callback(null, [
      { address: '::1', family: 6 },
      { address: '127.0.0.1', family: 4 },
    ]);
  return new Promise((resolve) => {
    const socket = net.connect({ host: 'two-addresses.invalid', port, lookup, autoSelectFamily: true });
    socket.once('error', (error) => resolve(error));
  });
}

test('a name whose every address refuses: each refusal said, the code kept, retried as the network’s', async () => {
  const raised = await refusedEverywhere();
  assert.ok(raised instanceof AggregateError);
  assert.equal(raised.message, '');
  const said = asTransportError(raised, 1000);
  assert.ok(said instanceof Error);
  assert.match(said.message, /ECONNREFUSED 127\.0\.0\.1/);
  assert.equal((said as { code?: unknown }).code, 'ECONNREFUSED');
  assert.equal(said.cause, raised);
  const failure = classifyFailure(said);
  assert.equal(failure?.kind, 'retry');
  assert.match(failure?.reason ?? '', /^ECONNREFUSED: connect ECONNREFUSED/);
});

test('any other error is left as it is', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
  assert.equal(asTransportError(refused, 1000), refused);
});

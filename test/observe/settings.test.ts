/** The observability settings at the boundary: checked before the node starts, secrets never printed. */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { makeHome, type TestHome } from '../support/home.js';

describe('observability settings', () => {
  let t: TestHome;
  beforeEach(async () => {
    t = await makeHome();
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', runMs: 10 })]);
  });
  afterEach(async () => {
    await t.cleanup();
  });

  test('config refuses the endpoint address and webhook URL that run would refuse', async () => {
    const address = await t.cli(['config'], { CHAINVISOR_HTTP_ADDRESS: 'localhost' });
    assert.equal(address.exitCode, 78, address.stderr);
    assert.match(address.stderr, /CHAINVISOR_HTTP_ADDRESS "localhost" is not host:port/);
    const hook = await t.cli(['config'], { CHAINVISOR_WEBHOOK_URL: 'https://ok.example/x,ftp://user:pw@files.example/' });
    assert.equal(hook.exitCode, 78, hook.stderr);
    assert.match(hook.stderr, /CHAINVISOR_WEBHOOK_URL entry ftp:\/\/\*\*\*@files\.example\//);
    assert.doesNotMatch(hook.stderr, /pw@/);
    assert.equal((await t.cli(['config'], { CHAINVISOR_HTTP_ADDRESS: '127.0.0.1:9102', CHAINVISOR_WEBHOOK_URL: 'https://ok.example/x' })).exitCode, 0);
  });

  test('a bad endpoint address or webhook URL stops run with 78 before the node starts', async () => {
    const address = await t.cli(['run', 'start'], { CHAINVISOR_HTTP_ADDRESS: 'localhost' });
    assert.equal(address.exitCode, 78, address.stderr);
    assert.match(address.stderr, /CHAINVISOR_HTTP_ADDRESS "localhost" is not host:port/);
    const hook = await t.cli(['run', 'start'], { CHAINVISOR_WEBHOOK_URL: 'https://ok.example/x,ftp://user:pw@files.example/' });
    assert.equal(hook.exitCode, 78, hook.stderr);
    assert.match(hook.stderr, /CHAINVISOR_WEBHOOK_URL entry ftp:\/\/\*\*\*@files\.example\//);
    assert.doesNotMatch(hook.stderr, /pw@/);
    assert.deepEqual(await t.journalLines(), [], 'the node never started');
  });

  test('chainvisor config hides the token and the credentials, path tokens and query of webhook URLs', async () => {
    const r = await t.cliOk(['config'], { CHAINVISOR_HTTP_TOKEN: 'tok-secret', CHAINVISOR_WEBHOOK_URL: 'https://u:pw@hooks.example/T/B?key=query-secret' });
    assert.match(r.stdout, /CHAINVISOR_HTTP_TOKEN\s+\(set, hidden\)/);
    assert.match(r.stdout, /CHAINVISOR_WEBHOOK_URL\s+https:\/\/\*\*\*@hooks\.example\/…/);
    // Distinctive secrets: a short one such as "k1" can turn up in a random temp folder name.
    assert.doesNotMatch(r.stdout, /tok-secret|pw@|query-secret|\/T\/B/);
  });
});

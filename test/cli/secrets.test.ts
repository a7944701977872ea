/**
 * Secrets in URLs and in answers, through the `chainvisor` command (and, in CI, the release
 * executable), as the outside campaign of issue #31 found them: a Slack or Discord URL used as the
 * generic webhook printed with its path token by `config` and by `run`; an error page echoing the
 * request's path with the token in it; credentials of the Telegram and PagerDuty servers printed by
 * `config` and the 78 errors; a webhook password with a bad %-escape accepted and then failing every
 * event; a 200 whose body never ends read for as long as it was sent. Plus an IPv6 host with
 * credentials, percent-encoded tokens and a 429 that never ends.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';

import { type FaultServer, startFaultServer } from '../support/fault-server.js';
import { makeHome, type TestHome } from '../support/home.js';

async function home(t: TestContext, env: Record<string, string> = {}): Promise<TestHome> {
  const h = await makeHome(env);
  t.after(() => h.cleanup());
  await h.cliOk(['init', await h.fakeNode({ label: 'genesis', runMs: 300, exitCode: 0 })]);
  return h;
}

async function server(t: TestContext): Promise<FaultServer> {
  const s = await startFaultServer();
  t.after(() => s.close());
  return s;
}

function assertHidden(text: string, secrets: readonly string[], where: string): void {
  for (const secret of secrets) assert.ok(!text.includes(secret), `${where} shows ${secret}:\n${text}`);
}

test("a receiver URL's path token: config and run's 'sending upgrade events to' show scheme, host and a plain first word only", async (t) => {
  const h = await home(t);
  const shown = await h.cli(['config'], {
    CHAINVISOR_WEBHOOK_URL: 'https://hooks.example/services/T0/B0/SECRET,http://ops:v6pass42@[::1]:9000/hook/%53ECRET42?token=q',
  });
  assert.equal(shown.exitCode, 0, shown.stderr);
  assert.match(shown.stdout, /^CHAINVISOR_WEBHOOK_URL +https:\/\/hooks\.example\/services\/…,http:\/\/\*\*\*@\[::1\]:9000\/hook\/… +\[env\]$/m);
  assertHidden(shown.stdout + shown.stderr, ['SECRET', 'T0/B0', 'v6pass42', 'token=q'], 'config');

  const receiver = await server(t);
  receiver.route('/services/T0/B0/runsecret42', { body: 'ok' });
  const run = await h.cli(['run', 'start'], { CHAINVISOR_WEBHOOK_URL: receiver.url('/services/T0/B0/runsecret42'), CHAINVISOR_LOG_FORMAT: 'json' });
  assert.equal(run.exitCode, 0, run.stderr);
  assert.match(run.stderr, /sending upgrade events to 1 webhook receiver\(s\)/);
  assert.match(run.stderr, /"webhooks":\["http:\/\/127\.0\.0\.1:\d+\/services\/…"\]/);
  assertHidden(run.stderr, ['runsecret42', 'T0/B0'], 'run');
  assert.ok(receiver.requestsTo('/services/T0/B0/runsecret42').length >= 1, 'the events were sent');
});

test('credentials of the Telegram and PagerDuty servers: never printed by config, nor by its 78 errors', async (t) => {
  const h = await home(t, {
    CHAINVISOR_TELEGRAM_BOT_TOKEN: '123456:telegramsecret42',
    CHAINVISOR_TELEGRAM_CHAT_ID: '-1001234567890',
    CHAINVISOR_PAGERDUTY_ROUTING_KEY: 'pdroutingkey0000000000000secret42',
  });
  const shown = await h.cli(['config'], {
    CHAINVISOR_TELEGRAM_API_URL: 'https://tgops:tgpass42@tg.example/botapi/x?key=tgquery42',
    CHAINVISOR_PAGERDUTY_API_URL: 'https://pdops:pdpass42@pd.example',
  });
  assert.equal(shown.exitCode, 0, shown.stderr);
  assert.match(shown.stdout, /^CHAINVISOR_TELEGRAM_API_URL +https:\/\/\*\*\*@tg\.example\/botapi\/… +\[env\]$/m);
  assert.match(shown.stdout, /^CHAINVISOR_PAGERDUTY_API_URL +https:\/\/\*\*\*@pd\.example\/ +\[env\]$/m);
  const secrets = ['tgops', 'tgpass42', 'tgquery42', 'pdops', 'pdpass42', 'telegramsecret42', 'secret42'];
  assertHidden(shown.stdout + shown.stderr, secrets, 'config');

  const refused = await h.cli(['config'], {
    CHAINVISOR_TELEGRAM_API_URL: 'ftp://tgops:tgpass42@tg.example/x',
    CHAINVISOR_PAGERDUTY_API_URL: 'https://pdops:pdpass42@pd example/',
  });
  assert.equal(refused.exitCode, 78, refused.stderr);
  assert.match(refused.stderr, /CHAINVISOR_TELEGRAM_API_URL="ftp:\/\/\*\*\*@tg\.example\/…": uses ftp:/);
  assert.match(refused.stderr, /CHAINVISOR_PAGERDUTY_API_URL=".*": is not a URL/);
  assertHidden(refused.stdout + refused.stderr, secrets, 'config refusing');
});

test('a webhook password with a bad %-escape: config and run refuse it with 78 instead of dropping every event', async (t) => {
  const h = await home(t);
  const env = { CHAINVISOR_WEBHOOK_URL: 'https://ops:100%zz@hooks.example/services/x' };
  for (const args of [['config'], ['run', 'start']]) {
    const r = await h.cli(args, env);
    assert.equal(r.exitCode, 78, `${args[0]}: ${r.stderr}`);
    assert.match(r.stderr, /CHAINVISOR_WEBHOOK_URL entry https:\/\/\*\*\*@hooks\.example\/services\/… cannot be used: .*% that does not start an escape/);
    assert.match(r.stderr, /code: CHAINVISOR_WEBHOOK_URL_INVALID/);
    assertHidden(r.stdout + r.stderr, ['100%zz'], args[0] ?? '');
  }
  assert.deepEqual(await h.journalLines(), [], 'the node never started');
});

test('notify --test: an error page that echoes the path, raw or decoded, shows no token', async (t) => {
  const services = await server(t);
  services.route('/services/T000/B000/%73lacksecret42', { always: { kind: 'echo', status: 404 } });
  services.route('/api/webhooks/1234/discordsecret42', { always: { kind: 'echo', status: 401 } });
  const h = await home(t, {
    CHAINVISOR_SLACK_WEBHOOK_URL: services.url('/services/T000/B000/%73lacksecret42'),
    CHAINVISOR_DISCORD_WEBHOOK_URL: services.url('/api/webhooks/1234/discordsecret42'),
  });
  const r = await h.cli(['notify', '--test']);
  assert.equal(r.exitCode, 79, r.stderr);
  assert.match(r.stdout, /^slack +not delivered: HTTP 404: <html><body>Cannot POST \/services\/\*\*\* \(\/services\/\*\*\*\)<\/body><\/html>$/m);
  assert.match(r.stdout, /^discord +not delivered: HTTP 401: <html><body>Cannot POST \/api\/\*\*\* \(\/api\/\*\*\*\)<\/body><\/html>$/m);
  assertHidden(r.stdout + r.stderr, ['slacksecret42', '%73lacksecret42', 'discordsecret42', 'T000', 'B000', 'webhooks/1234'], 'notify --test');
});

test('notify --test: a 200 whose body never ends is delivered, at once; a 429 that never ends is not delivered', async (t) => {
  const services = await server(t);
  services.route('/services/T0/B0/endless', { always: { kind: 'endless' } });
  services.route('/api/webhooks/1/limited', { always: { kind: 'status', status: 429, headers: { 'retry-after': '1' } } });
  const h = await home(t, {
    CHAINVISOR_SLACK_WEBHOOK_URL: services.url('/services/T0/B0/endless'),
    CHAINVISOR_DISCORD_WEBHOOK_URL: services.url('/api/webhooks/1/limited'),
  });
  const r = await h.cli(['notify', '--test']);
  assert.equal(r.exitCode, 79, r.stderr);
  assert.match(r.stdout, /^slack +delivered$/m);
  assert.match(r.stdout, /^discord +not delivered: HTTP 429: status 429$/m);
  assert.equal(services.requestsTo('/services/T0/B0/endless').length, 1, 'the endless answer is one attempt');
  assert.equal(services.cut, 1, 'its connection closed by chainvisor');
  assert.equal(services.requestsTo('/api/webhooks/1/limited').length, 2, 'the 429 asked again once');
});

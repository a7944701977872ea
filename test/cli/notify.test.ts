/**
 * The real `chainvisor` command with the four alert services faked on loopback (issue #27):
 * `notify --test`, `config` hiding the secrets, and an upgrade that fails and pages, then is resolved
 * when a later start applies it. Run against the release executable too (CHAINVISOR_TEST_EXECUTABLE).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { alertSecrets, type AlertServices, startAlertServices } from '../support/alert-services.js';
import { plan } from '../support/fake-node.js';
import { makeHome, type TestHome } from '../support/home.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

function assertNoSecret(text: string, where: string): void {
  for (const secret of alertSecrets) assert.ok(!text.includes(secret), `${where} shows a secret:\n${text}`);
}

describe('chainvisor notify, config and run with alert channels', () => {
  let t: TestHome;
  let services: AlertServices;
  beforeEach(async () => {
    services = await startAlertServices();
    t = await makeHome({ ...services.env, CHAINVISOR_LOG_FORMAT: 'json' });
    await fs.mkdir(path.join(t.home, 'config'), { recursive: true });
    await fs.writeFile(path.join(t.home, 'config', 'config.toml'), 'moniker = "val-eu-1"\n[rpc]\nladdr = "tcp://127.0.0.1:26657"\n');
    await fs.writeFile(path.join(t.home, 'config', 'client.toml'), 'chain-id = "testnet-7"\n');
  });
  afterEach(async () => {
    await t.cleanup();
    await services.close();
  });

  test('notify --test: every channel gets a test message and says delivered (exit 0)', async () => {
    const genesis = await t.fakeNode({ label: 'genesis' });
    await t.cliOk(['init', genesis]);
    const r = await t.cli(['notify', '--test']);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n'), ['slack      delivered', 'discord    delivered', 'telegram   delivered', 'pagerduty  delivered']);
    assert.equal(services.delivered('slack').length, 1);
    assert.match(String(services.delivered('slack')[0]?.body.text), /\[testnet-7 \/ val-eu-1\] Test message from chainvisor/);
    assert.equal(services.delivered('discord').length, 1);
    assert.match(String(services.delivered('telegram')[0]?.body.text), /<b>Test message from chainvisor<\/b>/);
    assert.deepEqual(
      services.delivered('pagerduty').map((x) => [x.body.event_action, (x.body.payload as Record<string, unknown> | undefined)?.severity ?? null]),
      [
        ['trigger', 'info'],
        ['resolve', null],
      ],
      'a test page at info severity, resolved at once',
    );
    assertNoSecret(r.stdout + r.stderr, 'notify --test');
  });

  test('notify --test: a channel that refuses says what the service answered (exit 79), without its token', async () => {
    const genesis = await t.fakeNode({ label: 'genesis' });
    await t.cliOk(['init', genesis]);
    services.answers.telegram = [{ status: 401, body: JSON.stringify({ ok: false, error_code: 401, description: 'Unauthorized' }) }];
    services.answers.pagerduty = [
      { status: 400, body: JSON.stringify({ status: 'invalid event', message: 'Event object is invalid', errors: ['Length of routing_key is incorrect'] }) },
    ];
    const r = await t.cli(['notify', '--test']);
    assert.equal(r.exitCode, 79, r.stdout + r.stderr);
    assert.match(r.stdout, /^slack {6}delivered$/m);
    assert.match(r.stdout, /^telegram {3}not delivered: HTTP 401: \{"ok":false,"error_code":401,"description":"Unauthorized"\}$/m);
    assert.match(r.stdout, /^pagerduty {2}not delivered: HTTP 400: .*Length of routing_key is incorrect/m);
    assertNoSecret(r.stdout + r.stderr, 'notify --test');

    const none = await t.cli(['notify', '--test'], {
      CHAINVISOR_SLACK_WEBHOOK_URL: '',
      CHAINVISOR_DISCORD_WEBHOOK_URL: '',
      CHAINVISOR_TELEGRAM_BOT_TOKEN: '',
      CHAINVISOR_TELEGRAM_CHAT_ID: '',
      CHAINVISOR_PAGERDUTY_ROUTING_KEY: '',
    });
    assert.equal(none.exitCode, 78, none.stderr);
    assert.match(none.stderr, /no alert channel is configured/);
    for (const setting of [
      'CHAINVISOR_SLACK_WEBHOOK_URL',
      'CHAINVISOR_DISCORD_WEBHOOK_URL',
      'CHAINVISOR_TELEGRAM_BOT_TOKEN',
      'CHAINVISOR_PAGERDUTY_ROUTING_KEY',
    ])
      assert.ok(none.stderr.includes(setting), `the problem names ${setting}:\n${none.stderr}`);
  });

  test('notify without --test is a usage error (64) naming --test, and sends nothing', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    const r = await t.cli(['notify']);
    assert.equal(r.exitCode, 64, r.stdout + r.stderr);
    assert.match(r.stderr, /^chainvisor: error: notify needs --test$/m);
    assert.match(r.stderr, /^chainvisor: usage: chainvisor notify --test$/m);
    assert.equal(r.stdout, '');
    for (const service of ['slack', 'discord', 'telegram', 'pagerduty'] as const) assert.deepEqual(services.delivered(service), [], service);
  });

  test('notify --test with only CHAINVISOR_WEBHOOK_URL: each webhook gets a test message, as a channel', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    const [hook, down] = [await startWebhookReceiver(), await startWebhookReceiver()];
    try {
      down.always = 503;
      const only = {
        CHAINVISOR_SLACK_WEBHOOK_URL: '',
        CHAINVISOR_DISCORD_WEBHOOK_URL: '',
        CHAINVISOR_TELEGRAM_BOT_TOKEN: '',
        CHAINVISOR_TELEGRAM_CHAT_ID: '',
        CHAINVISOR_PAGERDUTY_ROUTING_KEY: '',
      };
      const r = await t.cli(['notify', '--test'], { ...only, CHAINVISOR_WEBHOOK_URL: hook.url });
      assert.equal(r.exitCode, 0, r.stdout + r.stderr);
      // Named by its URL as log lines show it: the path (often a token) left out.
      assert.match(r.stdout, /^webhook http:\/\/127\.0\.0\.1:\d+\/… {2}delivered$/m);
      assert.equal(hook.delivered().length, 1);
      const body = hook.delivered()[0]?.body ?? {};
      assert.equal(body.event, 'notify-test');
      assert.equal(body.upgrade, null);
      assert.match(String(body.text), /can reach this channel; nothing needs doing/);
      // Two receivers, one refusing: said per receiver, and the exit is 79 as for any channel that did not take it.
      const both = await t.cli(['notify', '--test'], { ...only, CHAINVISOR_WEBHOOK_URL: `${hook.url},${down.url}` });
      assert.equal(both.exitCode, 79, both.stdout + both.stderr);
      assert.match(both.stdout, /^webhook \S+ +delivered$/m);
      assert.match(both.stdout, /^webhook \S+ +not delivered: HTTP 503/m);
      assert.equal(hook.delivered().length, 2);
    } finally {
      await hook.close();
      await down.close();
    }
  });

  test('notify --help names each channel and what turns it on', async () => {
    const r = await t.cliOk(['notify', '--help']);
    assert.match(r.stdout, /^ {2}Slack {6}CHAINVISOR_SLACK_WEBHOOK_URL$/m);
    assert.match(r.stdout, /^ {2}Discord {4}CHAINVISOR_DISCORD_WEBHOOK_URL$/m);
    assert.match(r.stdout, /^ {2}Telegram {3}CHAINVISOR_TELEGRAM_BOT_TOKEN and CHAINVISOR_TELEGRAM_CHAT_ID$/m);
    assert.match(r.stdout, /^ {2}PagerDuty {2}CHAINVISOR_PAGERDUTY_ROUTING_KEY \(the test: an info-severity event, resolved at once\)$/m);
  });

  test('each channel alone makes every command check the proxy variables first: a proxy it could not use is refused (78)', async () => {
    const genesis = await t.fakeNode({ label: 'genesis' });
    await t.cliOk(['init', genesis]);
    const off = Object.fromEntries(Object.keys(services.env).map((name) => [name, '']));
    const badProxy = { HTTPS_PROXY: 'http://ops:100%zz@proxy.corp.example:3128' };
    const none = await t.cli(['config'], { ...off, ...badProxy });
    assert.equal(none.exitCode, 0, `with no channel the proxy is not read:\n${none.stderr}`);
    const alone: Record<string, string[]> = {
      slack: ['CHAINVISOR_SLACK_WEBHOOK_URL'],
      discord: ['CHAINVISOR_DISCORD_WEBHOOK_URL'],
      telegram: ['CHAINVISOR_TELEGRAM_BOT_TOKEN', 'CHAINVISOR_TELEGRAM_CHAT_ID', 'CHAINVISOR_TELEGRAM_API_URL'],
      pagerduty: ['CHAINVISOR_PAGERDUTY_ROUTING_KEY', 'CHAINVISOR_PAGERDUTY_API_URL'],
    };
    for (const [channel, names] of Object.entries(alone)) {
      const on = Object.fromEntries(names.map((name) => [name, services.env[name] ?? '']));
      const r = await t.cli(['config'], { ...off, ...on, ...badProxy });
      assert.equal(r.exitCode, 78, `${channel}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /HTTPS_PROXY=".*": the user or password in the URL has a % that does not start an escape/, channel);
      assertNoSecret(r.stdout + r.stderr, `config with ${channel}`);
    }
  });

  test('config shows the secrets as set or not set, never their value', async () => {
    const genesis = await t.fakeNode({ label: 'genesis' });
    await t.cliOk(['init', genesis]);
    const r = await t.cliOk(['config'], { CHAINVISOR_DISCORD_WEBHOOK_URL: '' });
    assert.match(r.stdout, /^CHAINVISOR_SLACK_WEBHOOK_URL +\(set, hidden\)/m);
    assert.match(r.stdout, /^CHAINVISOR_DISCORD_WEBHOOK_URL +\(not set\)/m);
    assert.match(r.stdout, /^CHAINVISOR_TELEGRAM_BOT_TOKEN +\(set, hidden\)/m);
    assert.match(r.stdout, /^CHAINVISOR_PAGERDUTY_ROUTING_KEY +\(set, hidden\)/m);
    assert.match(r.stdout, /^CHAINVISOR_NOTIFY_EVENTS +all/m);
    assertNoSecret(r.stdout + r.stderr, 'config');
    const bad = await t.cli(['config'], { CHAINVISOR_TELEGRAM_CHAT_ID: '', CHAINVISOR_NOTIFY_EVENTS: 'upgrade-failed,nope' });
    assert.equal(bad.exitCode, 78);
    assert.match(bad.stderr, /CHAINVISOR_TELEGRAM_CHAT_ID: is needed/);
    assert.match(bad.stderr, /CHAINVISOR_NOTIFY_EVENTS=.*unknown event nope/);
    assertNoSecret(bad.stdout + bad.stderr, 'config refusing');
  });

  test('a failed upgrade pages before chainvisor exits 79; a later start applies it and resolves the same incident', async () => {
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10), style: 'exit', afterMs: 50 } });
    await t.cliOk(['init', genesis]);
    const failed = await t.cli(['run', 'start']);
    assert.equal(failed.exitCode, 79, failed.stderr);
    const key = 'chainvisor/testnet-7/val-eu-1/upgrade/v2';
    const trigger = services.delivered('pagerduty')[0]?.body;
    assert.equal(trigger?.event_action, 'trigger');
    assert.equal(trigger?.dedup_key, key);
    const payload = trigger?.payload as Record<string, unknown>;
    assert.equal(payload.severity, 'critical');
    assert.equal(payload.source, 'val-eu-1');
    assert.match(String(payload.summary), /^\[testnet-7 \/ val-eu-1\] Upgrade v2 failed \(height 10\): upgrade "v2" at height 10 failed: /);
    // The step's message names the upgrade too: said once, not `failed: upgrade "v2" at height 10 needs …`.
    assert.match(String(payload.summary), /upgrade "v2" at height 10 failed: needs \S+, which is not installed/);
    assert.doesNotMatch(failed.stderr + JSON.stringify(services.delivered('slack')), /failed: upgrade "v2" at height 10/);
    assert.match(String((payload.custom_details as Record<string, unknown>).what_to_do), /add-upgrade/, "the error's hint");
    for (const service of ['slack', 'discord', 'telegram'] as const) {
      assert.equal(services.delivered(service).length, 2, `${service}: upgrade-detected and upgrade-failed arrived before the exit`);
    }
    assertNoSecret(failed.stderr, 'run');

    const v2 = await t.fakeNode({ label: 'v2', runMs: 300, exitCode: 0 });
    await t.cliOk(['add-upgrade', 'v2', v2]);
    const applied = await t.cli(['run', 'start']);
    assert.equal(applied.exitCode, 0, applied.stderr);
    const pages = services.delivered('pagerduty').map((x) => [x.body.event_action, x.body.dedup_key]);
    assert.deepEqual(pages, [
      ['trigger', key],
      ['resolve', key],
    ]);
    assert.match(JSON.stringify(services.delivered('slack').at(-2)?.body), /Upgrade v2 applied/);
    assertNoSecret(applied.stderr, 'run');
    const status = await t.cliOk(['status', '--output', 'json']);
    assertNoSecret(status.stdout + status.stderr, 'status');
  });
});

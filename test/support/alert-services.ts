/**
 * Slack, Discord, Telegram and PagerDuty as one local server on 127.0.0.1, port 0, answering as each
 * service does (REFERENCE §7) on its own path: Slack `200 ok`, Discord `204`, Telegram
 * `{"ok":true,…}`, PagerDuty `202 {"status":"success",…}`. Every request is recorded with its path and
 * JSON body. Faults: scripted answers per service (a 429 with the service's own retry field, a 401 …),
 * and `delayMs` before every answer (a slow service).
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Service = 'slack' | 'discord' | 'telegram' | 'pagerduty';

export interface ServiceRequest {
  service: Service;
  path: string;
  body: Record<string, unknown>;
  status: number;
  at: number;
}

export interface ScriptedAnswer {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

export interface AlertServices {
  origin: string;
  /** Settings pointing every channel at this server. */
  env: Record<string, string>;
  slackUrl: string;
  discordUrl: string;
  telegramToken: string;
  routingKey: string;
  requests: ServiceRequest[];
  /** Requests answered 2xx for one service, in order. */
  delivered(service: Service): ServiceRequest[];
  /** The next answers per service, in order; then the service's success. */
  answers: Record<Service, ScriptedAnswer[]>;
  delayMs: number;
  close(): Promise<void>;
}

export const slackPath = '/services/T000/B000/slacksecret42';
export const discordPath = '/api/webhooks/1234/discordsecret42';
export const telegramToken = '123456:telegramsecret42';
export const routingKey = 'pdroutingkey0000000000000secret42';

const success: Record<Service, ScriptedAnswer> = {
  slack: { status: 200, body: 'ok', headers: { 'content-type': 'text/plain' } },
  discord: { status: 204 },
  telegram: { status: 200, body: JSON.stringify({ ok: true, result: { message_id: 1 } }), headers: { 'content-type': 'application/json' } },
  pagerduty: {
    status: 202,
    body: JSON.stringify({ status: 'success', message: 'Event processed', dedup_key: 'x' }),
    headers: { 'content-type': 'application/json' },
  },
};

/** A 429 as each service sends it, asking for `seconds`. */
export function tooMany(service: Service, seconds: number): ScriptedAnswer {
  const json = { 'content-type': 'application/json' };
  if (service === 'slack') return { status: 429, body: 'rate_limited', headers: { 'retry-after': String(seconds) } };
  if (service === 'discord')
    return { status: 429, body: JSON.stringify({ message: 'You are being rate limited.', retry_after: seconds, global: false }), headers: json };
  if (service === 'telegram')
    return {
      status: 429,
      body: JSON.stringify({ ok: false, error_code: 429, description: `Too Many Requests: retry after ${seconds}`, parameters: { retry_after: seconds } }),
      headers: json,
    };
  return { status: 429, body: JSON.stringify({ status: 'throttle event', message: 'Requests for this service are arriving too quickly' }), headers: json };
}

export async function startAlertServices(): Promise<AlertServices> {
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      const service: Service | undefined =
        path === slackPath
          ? 'slack'
          : path === discordPath
            ? 'discord'
            : path === `/bot${telegramToken}/sendMessage`
              ? 'telegram'
              : path === '/v2/enqueue'
                ? 'pagerduty'
                : undefined;
      const answer = service === undefined ? { status: 404, body: 'no such service' } : (services.answers[service].shift() ?? success[service]);
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        // recorded as {}: the test's shape checks fail on it
      }
      setTimeout(() => {
        if (service !== undefined) services.requests.push({ service, path, body, status: answer.status, at: Date.now() });
        res.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? '');
      }, services.delayMs);
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const services: AlertServices = {
    origin,
    slackUrl: `${origin}${slackPath}`,
    discordUrl: `${origin}${discordPath}`,
    telegramToken,
    routingKey,
    env: {
      CHAINVISOR_SLACK_WEBHOOK_URL: `${origin}${slackPath}`,
      CHAINVISOR_DISCORD_WEBHOOK_URL: `${origin}${discordPath}`,
      CHAINVISOR_TELEGRAM_BOT_TOKEN: telegramToken,
      CHAINVISOR_TELEGRAM_CHAT_ID: '-1001234567890',
      CHAINVISOR_TELEGRAM_API_URL: origin,
      CHAINVISOR_PAGERDUTY_ROUTING_KEY: routingKey,
      CHAINVISOR_PAGERDUTY_API_URL: origin,
    },
    requests: [],
    delivered: (service) => services.requests.filter((r) => r.service === service && r.status >= 200 && r.status < 300),
    answers: { slack: [], discord: [], telegram: [], pagerduty: [] },
    delayMs: 0,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return services;
}

/** The secrets `env` holds, for "never printed" checks. */
export const alertSecrets = ['slacksecret42', 'discordsecret42', 'telegramsecret42', 'secret42'];

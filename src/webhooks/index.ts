/** Webhooks for the notable events (CHAINVISOR_WEBHOOK_URL): delivered in order, in the background. */
export { type WebhookPayload, type WebhookOptions, type Webhooks, payloadOf, startWebhooks } from './sender.js';
export { type WebhookTarget, parseWebhookTargets } from './targets.js';

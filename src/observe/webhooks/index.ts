/** Webhooks for the notable events (CHAINVISOR_WEBHOOK_URL): delivered in order, in the background. */
export { payloadOf, startWebhooks, type WebhookOptions, type WebhookPayload, type Webhooks } from './sender.js';
export { parseWebhookTargets, type WebhookTarget } from './targets.js';

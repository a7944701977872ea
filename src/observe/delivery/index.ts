/**
 * Delivery, alike for every receiver: the alert channels' messages (shared/alerts/ renders them) and the
 * generic webhook (CHAINVISOR_WEBHOOK_URL: its targets and payload live here, for it has no service
 * shape of its own), each in order, in the background, retried, flushed at exit.
 */
export { type Notifications, type NotifyOptions, sendTestNotices, startNotifications } from './notify.js';
export { type FailureRepeats, loadFailureRepeats } from './repeats.js';
export { payloadOf, startWebhooks, webhookChannels, type WebhookOptions, type WebhookPayload, type Webhooks } from './sender.js';
export { parseWebhookTargets, type WebhookTarget } from './targets.js';

/** Webhooks for the notable events (CHAINVISOR_WEBHOOK_URL): delivered in order, in the background. */
export { type Channel, type ChannelName, type ChannelSettings, type NotifySettings, parseNotifySettings } from './channels.js';
export { type NodeFacts, readNodeFacts } from './node-facts.js';
export { chatEvents } from './notice.js';
export { type Notifications, type NotifyOptions, sendTestNotices, startNotifications } from './notify.js';
export { payloadOf, startWebhooks, type WebhookOptions, type WebhookPayload, type Webhooks } from './sender.js';
export { parseWebhookTargets, type WebhookTarget } from './targets.js';

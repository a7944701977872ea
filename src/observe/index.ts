/** What watches the supervisor from outside (observers.ts): status, progress, webhooks and alert channels, metrics and the HTTP endpoint. */
export { parseWebhookTargets, sendTestNotices, startWebhooks, webhookChannels } from './delivery/index.js';
export { readNodeFacts } from './node-identity.js';
export { checkObserverSettings, type ObserverOptions, type Observers, startObservers } from './observers.js';

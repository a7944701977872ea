/** The alert channels: one file each (name, settings, their parsing, the message format), listed by registry.ts. */
export type { Channel } from './channel.js';
export type { NodeFacts } from './node-facts.js';
export { chatEvents, noticeOf, testEvent, whenEvents } from './notice.js';
export {
  alertChannels,
  alertSettings,
  anyChannelOn,
  type ChannelSettings,
  channelSwitches,
  channelTitles,
  type NotifySettings,
  parseNotifySettings,
} from './registry.js';

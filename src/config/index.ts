export { grpcHostPort, type HostPort, type RpcEndpoint, rpcEndpoint } from './addresses.js';
export { readCosmovisorToml, renderCosmovisorToml } from './cosmovisor-toml.js';
export { loadConfig, type LoadedConfig, type LoadOptions, type Source } from './load.js';
export { networkRpcUrls } from './network-rpc.js';
export { formatDuration, formatSettings, renderDocsTable, renderExample } from './render.js';
export { type Config, fileKey, type SettingKey, settingKeys, settings } from './schema.js';
export { upgradeSourceList, type UpgradeSourceName } from './upgrade-sources.js';
export { parseDuration } from './values.js';

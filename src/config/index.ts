export { type Config, type SettingKey, settings, settingKeys, fileKey } from './schema.js';
export { loadConfig, type LoadedConfig, type LoadOptions, type Source } from './load.js';
export { formatDuration, formatSettings, renderDocsTable, renderExample } from './render.js';
export { parseDuration } from './values.js';
export { readCosmovisorToml, renderCosmovisorToml, cosmovisorKeys } from './cosmovisor-toml.js';

/** How the halt is watched for, and how a binary is fetched and unpacked: chainvisor's own limits. */
import type { SettingSpec } from '../../shared/setting-spec.js';

export const downloadSettings = {
  watch: {
    env: 'CHAINVISOR_WATCH',
    kind: 'enum',
    default: 'auto',
    values: ['auto', 'poll'],
    description: '`auto`: file events, with polling as a safety net; `poll`: polling only (network filesystems where events do not arrive).',
  },
  allowInsecureHttp: {
    env: 'CHAINVISOR_ALLOW_INSECURE_HTTP',
    kind: 'bool',
    default: 'false',
    description: 'Allow plain `http://` downloads from non-loopback hosts (loopback is always allowed).',
  },
  allowFileUrls: {
    env: 'CHAINVISOR_ALLOW_FILE_URLS',
    kind: 'bool',
    default: 'false',
    description: 'Allow `file://` URLs in the Info.',
  },
  downloadMaxBytes: {
    env: 'CHAINVISOR_DOWNLOAD_MAX_BYTES',
    kind: 'bytes',
    default: '4GiB',
    min: { value: 1024 * 1024, shown: '1MiB', why: 'no node binary is that small, so a smaller limit refuses every download at the halt' },
    description: 'Largest download accepted (binary, archive or Info document).',
  },
  downloadRetries: {
    env: 'CHAINVISOR_DOWNLOAD_RETRIES',
    kind: 'count',
    default: '5',
    description: 'Extra attempts after a network error, 5xx, 408 or 429 (exponential backoff with jitter).',
  },
  downloadTimeout: {
    env: 'CHAINVISOR_DOWNLOAD_TIMEOUT',
    kind: 'duration',
    default: '30s',
    min: {
      value: 100,
      why: '0 would turn every timeout off (a server that accepts and never answers would hold the halted node until CHAINVISOR_DOWNLOAD_DEADLINE), and less than 100ms fails every download',
    },
    description:
      'Connect and response-head timeout: the status line and headers must have arrived in full within it, however they trickle (retried like any timeout); also the longest pause allowed while the body streams.',
  },
  downloadDeadline: {
    env: 'CHAINVISOR_DOWNLOAD_DEADLINE',
    kind: 'duration',
    default: '1h',
    min: { value: 1000, why: 'a shorter deadline fails every download' },
    description:
      'Longest time fetching one file of an upgrade (its binary or archive, or the Info document) may take, retries and backoff included; past it the upgrade fails (exit 79) with `CHAINVISOR_DOWNLOAD_DEADLINE`, naming the URL and the bytes received. Guards against a server that trickles a few bytes at a time, which the stall timeout never catches.',
  },
  extractMaxBytes: {
    env: 'CHAINVISOR_EXTRACT_MAX_BYTES',
    kind: 'bytes',
    default: '8GiB',
    min: { value: 1024 * 1024, shown: '1MiB', why: 'no node binary is that small, so a smaller limit refuses every archive at the halt' },
    description: 'Largest total of uncompressed bytes an archive may expand to (decompression bombs).',
  },
  extractMaxEntries: {
    env: 'CHAINVISOR_EXTRACT_MAX_ENTRIES',
    kind: 'count',
    default: '10000',
    min: { value: 1, why: '0 would refuse every archive at the halt' },
    description: 'Most entries an archive may hold.',
  },
} as const satisfies Record<string, SettingSpec>;

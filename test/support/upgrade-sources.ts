/**
 * Upgrade sources for the tests (issue #34): an operator's registry and a chain registry
 * `versions.json` shaped as cosmos/chain-registry writes it (`$schema`, `chain_name`, entries with
 * `tag`, `proposal`, `recommended_version`, `sdk`, `consensus` …), including its uneven entries: an
 * older one without checksums, and one whose URLs point at the wrong platform and carry trailing junk,
 * as cosmoshub's file does. The documents are served by the tests' local servers, never fetched.
 */
import { createHash } from 'node:crypto';

export function checksumOf(data: Buffer | string): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/** `url?checksum=sha256:<hex>`. */
export function pinned(url: string, data: Buffer | string): string {
  return `${url}?checksum=${checksumOf(data)}`;
}

export interface RegistryUpgrade {
  name: string;
  height?: number;
  binaries?: Record<string, string>;
}

/** An operator's registry: one file for a fleet. */
export function registryDocument(upgrades: RegistryUpgrade[]): string {
  return JSON.stringify({ upgrades }, null, 2);
}

/**
 * A chain registry versions.json: `entries` last, after two real-shaped ones that must never be
 * used for a plan named otherwise: `v1` without checksums, `v1.1` with a darwin/arm64 URL ending in
 * junk and a windows/amd64 URL that points at the darwin binary.
 */
export function versionsDocument(base: string, entries: RegistryUpgrade[]): string {
  const old = (name: string, tag: string, height: number, binaries: Record<string, string>) => ({
    name,
    tag,
    height,
    proposal: height / 1000,
    recommended_version: tag,
    compatible_versions: [tag],
    binaries,
    sdk: { type: 'cosmos', version: 'v0.47.4' },
    consensus: { type: 'cometbft', version: 'v0.37.2' },
    cosmwasm: { enabled: false },
    ibc: { type: 'go', version: 'v7.3.0' },
  });
  return JSON.stringify(
    {
      $schema: '../versions.schema.json',
      chain_name: 'testchain',
      versions: [
        old('v1', 'v1.0.0', 1000, {
          'linux/amd64': `${base}/v1/simd-v1.0.0-linux-amd64`,
          'linux/arm64': `${base}/v1/simd-v1.0.0-linux-arm64`,
          'darwin/arm64': `${base}/v1/simd-v1.0.0-darwin-arm64`,
        }),
        old('v1.1', 'v1.1.0', 2000, {
          'linux/amd64': `${base}/v1.1/simd-v1.1.0-linux-amd64?checksum=sha256:${'a'.repeat(64)}`,
          'darwin/arm64': `${base}/v1.1/simd-v1.1.0-darwin-arm64?checksum=sha256:${'b'.repeat(64)}%22,`,
          'windows/amd64': `${base}/v1.1/simd-v1.1.0-darwin-arm64?checksum=sha256:${'b'.repeat(64)}`,
        }),
        ...entries.map((entry) => ({
          name: entry.name,
          tag: `${entry.name}.0.0`,
          ...(entry.height === undefined ? {} : { height: entry.height }),
          proposal: 42,
          recommended_version: `${entry.name}.0.0`,
          compatible_versions: [`${entry.name}.0.0`],
          ...(entry.binaries === undefined ? {} : { binaries: entry.binaries }),
          previous_version_name: 'v1.1',
          sdk: { type: 'cosmos', version: 'v0.50.6' },
          consensus: { type: 'cometbft', version: 'v0.38.7' },
        })),
      ],
    },
    null,
    2,
  );
}

/** Documents a registry must refuse, each with what the warning says. */
export const hostileRegistries = [
  { what: 'too large', body: `{"upgrades": [], "pad": "${'x'.repeat(3 * 1024 * 1024)}"}`, says: /refusing the download|too large/ },
  { what: 'nested too deep', body: `{"upgrades": [], "pad": ${'['.repeat(5000)}${']'.repeat(5000)}}`, says: /nested deeper than 16 levels/ },
  { what: 'wrong types', body: JSON.stringify({ upgrades: [{ name: 7, binaries: 'https://example.invalid/simd' }] }), says: /upgrades\[0\]\.name/ },
  {
    what: 'a binaries value that is not a URL string',
    body: JSON.stringify({ upgrades: [{ name: 'v2', binaries: { 'linux/amd64': ['x'] } }] }),
    says: /each value must be a URL string/,
  },
] as const;

/**
 * The Info JSON of a plan: `{"binaries": {"<os>/<arch>": "<url>?checksum=sha256:<hex>",
 * "any": "…"}}`, platform keys in Go's names.
 */
const goOs: Readonly<Record<string, string>> = { linux: 'linux', darwin: 'darwin', win32: 'windows', freebsd: 'freebsd' };
const goArch: Readonly<Record<string, string>> = { x64: 'amd64', arm64: 'arm64', ia32: '386', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x' };

/** This machine's platform key, e.g. `linux/amd64`. */
export function hostPlatform(platform: string = process.platform, arch: string = process.arch): string {
  return `${goOs[platform] ?? platform}/${goArch[arch] ?? arch}`;
}

export interface InfoTarget {
  /** Absolute URL of the file. */
  url: string;
  /** sha256 of the file, hex. */
  sha256: string;
}

/** `<url>?checksum=sha256:<hex>`, written literally (not percent-encoded) as operators write it. */
export function withChecksum(target: InfoTarget): string {
  return `${target.url}${target.url.includes('?') ? '&' : '?'}checksum=sha256:${target.sha256}`;
}

/** Info with the host platform and `any`. */
export function infoJson(host: InfoTarget, any: InfoTarget, platform = hostPlatform()): string {
  return JSON.stringify({ binaries: { [platform]: withChecksum(host), any: withChecksum(any) } });
}

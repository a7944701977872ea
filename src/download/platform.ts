/**
 * The host's platform in Go's names (`linux/amd64`), which is how Info maps are keyed (GOOS/GOARCH).
 */
const goos: Readonly<Record<string, string>> = {
  darwin: 'darwin',
  linux: 'linux',
  win32: 'windows',
  freebsd: 'freebsd',
  openbsd: 'openbsd',
  netbsd: 'netbsd',
  aix: 'aix',
  sunos: 'solaris',
  android: 'android',
};

const goarch: Readonly<Record<string, string>> = {
  x64: 'amd64',
  arm64: 'arm64',
  ia32: '386',
  arm: 'arm',
  // Node's 'ppc64' is little-endian on Linux, which Go calls ppc64le.
  ppc64: 'ppc64le',
  s390x: 's390x',
  riscv64: 'riscv64',
  loong64: 'loong64',
  mips: 'mips',
  mipsel: 'mipsle',
};

export function hostPlatform(platform: string = process.platform, arch: string = process.arch): string {
  return `${goos[platform] ?? platform}/${goarch[arch] ?? arch}`;
}

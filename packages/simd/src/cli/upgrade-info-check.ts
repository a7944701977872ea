/**
 * Validation of `--upgrade-info` before a plan is proposed: either JSON
 * `{"binaries": {"<os>/<arch>": "<url>", "any": "<url>"}}` whose URLs each carry
 * `checksum=<algo>:<hex>`, or a URL (checksum optional) whose body is that JSON. Nothing is fetched:
 * the check is about the form, so a typo is caught before validators vote on it.
 */
const platformKey = /^[a-z0-9]+\/[a-z0-9]+$/;
const checksumLength: Readonly<Record<string, number>> = { sha256: 64, sha512: 128, sha1: 40, md5: 32 };
const schemes = ['http:', 'https:', 'file:'];

function checkUrl(where: string, text: string, mustHaveChecksum: boolean): string[] {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return [`${where}: ${JSON.stringify(text)} is not a valid URL`];
  }
  const problems: string[] = [];
  if (!schemes.includes(url.protocol)) problems.push(`${where}: unsupported URL scheme ${url.protocol.replace(/:$/, '')} (use http, https or file)`);
  const checksum = url.searchParams.get('checksum');
  if (checksum === null) {
    if (mustHaveChecksum) problems.push(`${where}: the URL has no checksum; add ?checksum=sha256:<hex of the file>`);
    return problems;
  }
  const match = /^([a-z0-9]+):([0-9a-fA-F]+)$/.exec(checksum);
  const algo = match?.[1];
  if (match === null || algo === undefined || !Object.hasOwn(checksumLength, algo)) {
    problems.push(`${where}: invalid checksum ${JSON.stringify(checksum)}: expected <algo>:<hex> with algo sha256, sha512, sha1 or md5`);
  } else if ((match[2] as string).length !== checksumLength[algo]) {
    problems.push(`${where}: ${algo} checksum must be ${checksumLength[algo]} hex digits, got ${(match[2] as string).length}`);
  }
  return problems;
}

/** Every problem with `info`, empty when it is valid. */
export function upgradeInfoProblems(info: string): string[] {
  const text = info.trim();
  if (text === '') return ['the upgrade info is blank: give --upgrade-info with the binaries JSON or a URL to it'];
  if (!text.startsWith('{')) return checkUrl('upgrade info', text, false);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return [`the upgrade info is not valid JSON: ${(error as Error).message}`];
  }
  const binaries = (parsed as { binaries?: unknown }).binaries;
  if (binaries === null || typeof binaries !== 'object' || Array.isArray(binaries)) {
    return ['the upgrade info has no "binaries" object: expected {"binaries": {"<os>/<arch>": "<url>?checksum=sha256:<hex>"}}'];
  }
  const entries = Object.entries(binaries as Record<string, unknown>);
  if (entries.length === 0) return ['"binaries" is empty: add at least one platform (e.g. linux/amd64) or "any"'];
  const problems: string[] = [];
  for (const [key, value] of entries) {
    if (key !== 'any' && !platformKey.test(key)) {
      problems.push(`binaries key ${JSON.stringify(key)}: expected "<os>/<arch>" in Go's names (linux/amd64, darwin/arm64, …) or "any"`);
    }
    if (typeof value !== 'string') problems.push(`binaries.${key}: expected a URL string`);
    else problems.push(...checkUrl(`binaries.${key}`, value, true));
  }
  return problems;
}

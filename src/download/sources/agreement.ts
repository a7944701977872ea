/**
 * The sources' answers weighed (issue #34): the first with a URL gives the URL; every checksum given
 * for this platform's binary must agree, and at least CHAINVISOR_CHECKSUM_QUORUM of them must; a
 * source without a checksum does not count. Two checksums of the same algorithm that differ are a
 * disagreement, which stops the upgrade whatever the quorum (a wrong checksum in a proposal, ZetaChain
 * v27). Checksums of different algorithms cannot be compared: neither agreement nor disagreement.
 *
 * What is downloaded is then checked against the agreed checksum, whichever source's URL it comes
 * from; a later source's URL with that same checksum is a mirror, tried when the first download fails.
 * A URL the download's own URL policy (../policy.ts) refuses is no candidate; its checksum still counts.
 */
import { type Checksum, formatChecksum } from '../../verify/index.js';
import { ChecksumRequiredError, UrlRefusedError } from '../errors.js';
import { checkUrlAllowed, type UrlPolicy } from '../policy.js';
import type { DownloadSource } from '../source.js';
import type { SourceAnswer } from './ask.js';
import { ChecksumDisagreementError, NoSourceBinaryError, QuorumNotMetError, type SourceChecksum } from './errors.js';

/** One URL to fetch, in the order they are tried. */
export interface Candidate {
  source: SourceAnswer['source'];
  /** The Info key: the host's platform or `any`. */
  platform: string;
  /** Its checksum is the agreed one. */
  download: DownloadSource;
}

/** How each answer stands against the agreed checksum, for check-plan's table. */
export type Agreement = 'agrees' | 'DISAGREES' | 'no checksum' | 'not comparable' | '-';

export interface Weighed {
  candidates: Candidate[];
  /** The agreed checksum; undefined only with no checksum anywhere, a quorum of 1 and checksums not required. */
  checksum: Checksum | undefined;
  agreeing: SourceChecksum[];
  agreement: Agreement[];
  /** Per answer: why the URL policy refuses its URL (it is then no candidate). */
  refused: Array<UrlRefusedError | undefined>;
  /** Why no binary is installed; `candidates` is then empty. */
  problem: NoSourceBinaryError | ChecksumDisagreementError | QuorumNotMetError | ChecksumRequiredError | UrlRefusedError | undefined;
}

export interface WeighOptions {
  upgrade: string;
  platform: string;
  quorum: number;
  mustHaveChecksum: boolean;
  /** The fetcher's: what the download would refuse, the weighing refuses too. */
  policy: UrlPolicy;
}

const same = (a: Checksum | undefined, b: Checksum | undefined) => a !== undefined && b !== undefined && a.algo === b.algo && a.hex === b.hex;

export function weighAnswers(answers: readonly SourceAnswer[], options: WeighOptions): Weighed {
  const found = answers.filter((a): a is Extract<SourceAnswer, { state: 'found' }> => a.state === 'found');
  const given = found.filter((a) => a.download.checksum !== undefined);
  const primary = found[0];
  const checksum = primary?.download.checksum ?? given[0]?.download.checksum;
  const agreement = answers.map((a): Agreement => {
    if (a.state !== 'found') return '-';
    const own = a.download.checksum;
    if (own === undefined) return 'no checksum';
    if (checksum === undefined || own.algo !== checksum.algo) return 'not comparable';
    return same(own, checksum) ? 'agrees' : 'DISAGREES';
  });
  const valueOf = (a: (typeof found)[number]): SourceChecksum => ({ source: a.source, checksum: formatChecksum(a.download.checksum as Checksum) });
  const agreeing = given.filter((a) => same(a.download.checksum, checksum)).map(valueOf);
  const refusalOf = (url: URL): UrlRefusedError | undefined => {
    try {
      checkUrlAllowed(url, options.policy);
      return undefined;
    } catch (error) {
      if (error instanceof UrlRefusedError) return error;
      throw error;
    }
  };
  const refused = answers.map((a) => (a.state === 'found' ? refusalOf(a.download.url) : undefined));
  const weighed: Weighed = { candidates: [], checksum, agreeing, agreement, refused, problem: undefined };
  const said = answers.map((a) => describeAnswer(a));
  if (primary === undefined) return { ...weighed, problem: new NoSourceBinaryError(options.upgrade, options.platform, said) };
  const differ = given.some((a) =>
    given.some((b) => a.download.checksum?.algo === b.download.checksum?.algo && !same(a.download.checksum, b.download.checksum)),
  );
  if (differ) return { ...weighed, problem: new ChecksumDisagreementError(options.upgrade, options.platform, given.map(valueOf)) };
  // With no checksum anywhere, a quorum of 1 leaves the decision to DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM, as today.
  if (agreeing.length < options.quorum && !(options.quorum === 1 && checksum === undefined))
    return { ...weighed, problem: new QuorumNotMetError(options.upgrade, options.platform, options.quorum, agreeing, said) };
  if (checksum === undefined && options.mustHaveChecksum)
    return { ...weighed, problem: new ChecksumRequiredError(`${primary.platform} binary`, primary.download.shown) };
  const candidates: Candidate[] = [{ source: primary.source, platform: primary.platform, download: { ...primary.download, checksum } }];
  // Mirrors: a later source's URL with the very same checksum (none without one: nothing would prove it the same file).
  for (const a of found.slice(1)) {
    if (checksum === undefined || !same(a.download.checksum, checksum)) continue;
    if (candidates.some((c) => c.download.url.href === a.download.url.href)) continue;
    candidates.push({ source: a.source, platform: a.platform, download: a.download });
  }
  const allowed = candidates.filter((c) => refusalOf(c.download.url) === undefined);
  if (allowed.length === 0) return { ...weighed, problem: refusalOf(primary.download.url) };
  return { ...weighed, candidates: allowed };
}

/** `registry: sha256:ab12… at https://…` or `chain-registry: unreachable …`: one source, for messages. */
export function describeAnswer(answer: SourceAnswer): string {
  if (answer.state !== 'found') return `${answer.source}: ${answer.detail}`;
  const checksum = answer.download.checksum === undefined ? 'no checksum' : formatChecksum(answer.download.checksum);
  return `${answer.source}: ${checksum} (${answer.platform} at ${answer.download.shown})`;
}

/** The catalogue's entries for an upgrade that failed (exit 79): the plan, the download, the checks, the switch. */
import { ExitCode } from './exit-codes.js';
import type { ErrorSpec } from './spec.js';

/** The hint for a binary chainvisor could not get: the operator installs it. */
const byHand = "install the binary by hand with 'chainvisor add-upgrade <name> <path>', then start chainvisor again";

export const upgradeErrors = {
  CHAINVISOR_UPGRADE_INFO_INVALID: {
    exit: ExitCode.upgradeFailed,
    alsoExit: {
      codes: [ExitCode.config],
      why: '`show-upgrade-info` reading the recorded plan of `current` says 78: there the file is part of the layout, not an upgrade being applied',
    },
    when: '`data/upgrade-info.json` (or the recorded plan of `current`) is not a regular JSON file with a name and a height.',
    hint: 'the node writes this file when it halts for an upgrade: it must be a regular JSON file with "name" and "height"; move aside whatever is there',
  },
  CHAINVISOR_UPGRADE_BINARY_MISSING: {
    exit: ExitCode.upgradeFailed,
    when: 'At the upgrade height there is no binary for the upgrade (downloads off), or it is not a regular file.',
    hint: "install it with 'chainvisor add-upgrade <name> <path-to-new-binary>' (or set DAEMON_ALLOW_DOWNLOAD_BINARIES=true), then start chainvisor again",
  },
  CHAINVISOR_BAD_PLAN_NAME: {
    exit: ExitCode.upgradeFailed,
    when: "The upgrade's name (from the chain's proposal) cannot be a folder name.",
    hint: "no folder can hold this upgrade's binary; the name comes from the chain's upgrade proposal: ask the chain's developers, and run the binary by hand meanwhile",
  },
  CHAINVISOR_RECORD_FAILED: {
    exit: ExitCode.upgradeFailed,
    when: "The plan of the upgrade cannot be recorded in the upgrade's folder (full disk, permissions); `current` is unchanged.",
    hint: 'free disk space (or make the file writable) and start chainvisor again; the upgrade is applied at start-up',
  },
  CHAINVISOR_SWITCH_FAILED: {
    exit: ExitCode.upgradeFailed,
    when: '`cosmovisor/current` cannot be pointed at the new binary.',
    hint: "if 'current' is a real folder, move it aside; chainvisor manages it as a link",
  },
  CHAINVISOR_CHAIN_UNAVAILABLE: {
    exit: ExitCode.upgradeFailed,
    when: '`prepare-upgrade` cannot read the scheduled plan from the node: neither its gRPC (`DAEMON_GRPC_ADDRESS`, app.toml `[grpc]`) nor its CometBFT RPC (`CHAINVISOR_RPC_ADDRESS`, config.toml `[rpc] laddr`) answers; elsewhere (staging, manual upgrades) the same failure is logged and chainvisor carries on.',
    hint: "check that the node is running; 'chainvisor config' shows the gRPC and RPC addresses asked and where each came from (set DAEMON_GRPC_ADDRESS or CHAINVISOR_RPC_ADDRESS when the node listens elsewhere)",
  },
  CHAINVISOR_PLAN_NO_INFO: {
    exit: ExitCode.upgradeFailed,
    when: '`prepare-upgrade`: the scheduled plan has no Info, so there is nothing to download.',
    hint: 'install its binary by hand: chainvisor add-upgrade <name> <path-to-binary>',
  },
  CHAINVISOR_PROPOSAL_NOT_FOUND: {
    exit: ExitCode.upgradeFailed,
    when: '`check-plan --proposal <id>`: the node lists no upgrade proposal of that id in its voting period (another kind of proposal, a vote already over, or no such id).',
    hint: "check the id with '<daemon> query gov proposals --proposal-status voting-period'; a passed upgrade is checked with 'chainvisor check-plan --upgrade <name>' or 'chainvisor prepare-upgrade'",
  },
  CHAINVISOR_INFO_INVALID: {
    exit: ExitCode.upgradeFailed,
    when: "The plan's Info cannot be used: not JSON, not a URL, no `binaries`, or an Info document that cannot be fetched.",
    hint: `fix the Info, or ${byHand}`,
  },
  CHAINVISOR_NO_PLATFORM: {
    exit: ExitCode.upgradeFailed,
    when: "The plan's Info lists no binary for this host's platform and no `any`.",
    hint: `${byHand}, or ask for an Info that includes this platform`,
  },
  CHAINVISOR_CHECKSUM_REQUIRED: {
    exit: ExitCode.upgradeFailed,
    when: 'A download URL carries no `checksum=` and `DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM` is true.',
    hint: 'the URL must end in ?checksum=sha256:<hex> so the download can be verified; fix the Info, install the binary by hand (chainvisor add-upgrade), or — only if you trust the source and the connection — set DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM=false',
  },
  CHAINVISOR_CHECKSUM_INVALID: {
    exit: ExitCode.upgradeFailed,
    when: 'A `checksum=` value cannot be used (unknown algorithm, wrong length, not hex).',
    hint: `the Info must write it as checksum=<algorithm>:<hex>, for example checksum=sha256:<64 hex digits> (sha256 or sha512; sha1 and md5 are accepted for compatibility); for an Info already on chain, get the binary from the chain's release and install it with 'chainvisor add-upgrade <name> <path>'`,
  },
  CHAINVISOR_CHECKSUM_MISMATCH: {
    exit: ExitCode.upgradeFailed,
    when: 'The downloaded bytes are not the ones the checksum names; nothing was installed.',
    hint: "the plan's Info or the server is wrong; nothing was installed — do not switch binaries until it is resolved (install a verified binary with 'chainvisor add-upgrade', or fix the file on the server)",
  },
  CHAINVISOR_CHECKSUM_DISAGREEMENT: {
    exit: ExitCode.upgradeFailed,
    when: "Two of the upgrade's sources (`CHAINVISOR_UPGRADE_SOURCES`: the plan, the registry, the chain registry) give different checksums for this platform's binary; nothing is installed from either, whatever `CHAINVISOR_CHECKSUM_QUORUM`. Found while staging, days ahead, or first at the height; either way the event `checksum-disagreement` names each source and its value.",
    hint: "find out which source is wrong (check-plan --upgrade <name> shows each source's checksum) and correct it, or install a verified binary with 'chainvisor add-upgrade <name> <path>'",
  },
  CHAINVISOR_CHECKSUM_QUORUM_NOT_MET: {
    exit: ExitCode.upgradeFailed,
    when: "Fewer sources than `CHAINVISOR_CHECKSUM_QUORUM` give the same checksum for this platform's binary (a source without one does not count), and none disagree. At the height a registry or chain registry that has not answered within 5 s does not count either: it is named late.",
    hint: "publish the binary's checksum in another source (the registry), lower CHAINVISOR_CHECKSUM_QUORUM, or install a verified binary with 'chainvisor add-upgrade <name> <path>'",
  },
  CHAINVISOR_NO_SOURCE_BINARY: {
    exit: ExitCode.upgradeFailed,
    when: "None of the upgrade's sources (`CHAINVISOR_UPGRADE_SOURCES`) has a usable URL for this host's platform or `any`: no entry, an unreachable or refused document, a malformed URL.",
    hint: `publish the binary in the registry (CHAINVISOR_REGISTRY_URL), or ${byHand}`,
  },
  CHAINVISOR_URL_REFUSED: {
    exit: ExitCode.upgradeFailed,
    when: "The URL policy refuses a URL or a redirect target: plain http to a host other than this machine, file:// not enabled, an unsupported scheme, or, for a proposal's binary fetched while it is voted, anything but https to a public host. `check-plan --upgrade` applies the same policy to each source's URL.",
    hint: 'use an https URL (or set CHAINVISOR_ALLOW_INSECURE_HTTP / CHAINVISOR_ALLOW_FILE_URLS if you trust it)',
  },
  CHAINVISOR_REDIRECT_REFUSED: {
    exit: ExitCode.upgradeFailed,
    when: 'The redirects of a download are too many, loop, or leave https.',
    hint: `the server or the URL in the Info is misconfigured: the Info must give the final, direct https URL; for an Info already on chain, get the binary from the chain's release and install it with 'chainvisor add-upgrade <name> <path>'`,
  },
  CHAINVISOR_DOWNLOAD_TOO_LARGE: {
    exit: ExitCode.upgradeFailed,
    when: 'A download is larger than `CHAINVISOR_DOWNLOAD_MAX_BYTES`.',
    hint: 'if the file is genuine, raise CHAINVISOR_DOWNLOAD_MAX_BYTES; otherwise the URL is wrong',
  },
  CHAINVISOR_PROXY_AUTH_REQUIRED: {
    exit: ExitCode.upgradeFailed,
    when: 'The proxy named by `HTTPS_PROXY`/`HTTP_PROXY` answered 407, or a SOCKS5 proxy refused the login: it needs credentials, or refused the ones in the variable. Not retried.',
    hint: "put the proxy's user and password in the variable as http://user:password@host:port (socks5://… for a SOCKS5 proxy; percent-encode @ : / %), or check the ones there; then start chainvisor again",
  },
  CHAINVISOR_DOWNLOAD_FAILED: {
    exit: ExitCode.upgradeFailed,
    when: 'A download failed after the retries that made sense: unreachable server, an HTTP error, an untrusted certificate, timeouts.',
    hint: "check this host's network, the server and the URL, or install the binary by hand with 'chainvisor add-upgrade'",
  },
  CHAINVISOR_DOWNLOAD_DEADLINE: {
    exit: ExitCode.upgradeFailed,
    when: 'A download, retries and backoff included, did not finish within `CHAINVISOR_DOWNLOAD_DEADLINE`.',
    hint: "the server is too slow or keeps failing; check this host's network and the server, raise CHAINVISOR_DOWNLOAD_DEADLINE if the file is genuinely that slow to fetch, or install the binary by hand with 'chainvisor add-upgrade' and start chainvisor again",
  },
  CHAINVISOR_DOWNLOAD_ABORTED: {
    exit: ExitCode.upgradeFailed,
    when: 'A download was cancelled because chainvisor is stopping.',
    hint: 'chainvisor was asked to stop; the next start tries again from the beginning',
  },
  CHAINVISOR_DOWNLOAD_IO: {
    exit: ExitCode.upgradeFailed,
    when: 'This host failed while downloading, extracting or installing (disk full, permissions).',
    hint: 'free disk space, or make the folder named writable by the user chainvisor runs as, and restart chainvisor',
  },
  CHAINVISOR_UNKNOWN_FORMAT: {
    exit: ExitCode.upgradeFailed,
    when: 'The downloaded file is neither an executable nor a supported archive.',
    // The formats are listed where it is thrown (from verify's table of formats, which shared/ does not import).
    hint: `the Info must name a plain executable (ELF, Mach-O, PE or a #! script), a compressed one, or an archive holding bin/<DAEMON_NAME> or <DAEMON_NAME>, in a format chainvisor reads ('chainvisor check-plan --help' lists them); nothing was installed; for an Info already on chain, get the binary from the chain's release and install it with 'chainvisor add-upgrade <name> <path>'`,
  },
  CHAINVISOR_ARCHIVE_UNSAFE: {
    exit: ExitCode.upgradeFailed,
    when: 'An archive entry would write outside the extraction folder, or is a device, a duplicate or a bad name.',
    hint: `the archive is malformed or hostile; nothing was installed. Ask the release publisher for a clean archive (relative paths, no links leaving it, no devices). Meanwhile get the binary from the chain's release, check it, and install it with 'chainvisor add-upgrade <name> <path>'`,
  },
  CHAINVISOR_ARCHIVE_TOO_LARGE: {
    exit: ExitCode.upgradeFailed,
    when: 'An archive holds more entries or uncompressed bytes than `CHAINVISOR_EXTRACT_MAX_ENTRIES` / `CHAINVISOR_EXTRACT_MAX_BYTES` allow (a decompression bomb?).',
    hint: 'if the archive is genuine, raise the setting named; otherwise it may be a decompression bomb — nothing was installed',
  },
  CHAINVISOR_ARCHIVE_INVALID: {
    exit: ExitCode.upgradeFailed,
    when: 'An archive whose checksum matched cannot be read: truncated or corrupt.',
    hint: `the archive is truncated or corrupt although its checksum matched: the plan names a broken file; ask the publisher to fix it. Meanwhile get the binary from the chain's release, check it, and install it with 'chainvisor add-upgrade <name> <path>'`,
  },
  CHAINVISOR_ARCHIVE_UNSUPPORTED: {
    exit: ExitCode.upgradeFailed,
    when: 'An archive made with an option chainvisor does not read: an xz filter other than LZMA2 (`xz --x86`, `--arm`, `--delta`…), or an xz dictionary over 64 MiB.',
    hint: `nothing was installed. Ask the publisher for an archive made with the tool's defaults (plain \`xz\`, no BCJ or delta filter; cosmovisor's go-getter cannot read these either). Meanwhile get the binary from the chain's release, check it, and install it with 'chainvisor add-upgrade <name> <path>'`,
  },
  CHAINVISOR_DECODER_UNAVAILABLE: {
    exit: ExitCode.upgradeFailed,
    when: 'This build of chainvisor cannot use one of its decompressors: the package it drives (xz-decompress, for xz) is not the version it was built and tested with. A fault of the build, not of the archive.',
    hint: `nothing was installed, and every archive of that compression will fail the same way. Install chainvisor's release executable, which carries the decoder it was tested with, and report this output. Meanwhile get the binary from the chain's release, check it, and install it with 'chainvisor add-upgrade <name> <path>'`,
  },
  CHAINVISOR_BINARY_NOT_IN_ARCHIVE: {
    exit: ExitCode.upgradeFailed,
    when: 'The archive holds neither `bin/$DAEMON_NAME` nor `$DAEMON_NAME`.',
    hint: `check DAEMON_NAME; otherwise ask the publisher for an archive holding bin/<DAEMON_NAME>, or ${byHand}`,
  },
  CHAINVISOR_SMOKE_TEST_FAILED: {
    exit: ExitCode.upgradeFailed,
    when: '`<new binary> version` failed or hung before the binary was installed (`CHAINVISOR_SMOKE_TEST`).',
    hint: 'the binary does not run on this host (wrong platform, missing shared library?); nothing was installed. Install a working binary with chainvisor add-upgrade, or set CHAINVISOR_SMOKE_TEST=false to skip the check',
  },
  CHAINVISOR_DOWNLOAD_UNEXPECTED: {
    exit: ExitCode.upgradeFailed,
    when: 'An unexpected error while installing an upgrade binary: a bug in chainvisor.',
    hint: 'this is a bug in chainvisor; please report it with this output. Meanwhile install the binary by hand (chainvisor add-upgrade)',
  },
} as const satisfies Record<`CHAINVISOR_${string}`, ErrorSpec>;

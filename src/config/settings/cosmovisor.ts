/**
 * cosmovisor's own variables (the node, its home, backups, logs, the pre-upgrade hooks), with
 * chainvisor's log format among them: the same names, defaults and meanings as cosmovisor's.
 */
import type { SettingSpec } from '../../shared/setting-spec.js';

export const cosmovisorSettings = {
  home: {
    env: 'DAEMON_HOME',
    kind: 'absPath',
    required: true,
    description: "The node's home folder (absolute). `$DAEMON_HOME/cosmovisor` holds the binaries.",
  },
  name: {
    env: 'DAEMON_NAME',
    kind: 'fileName',
    required: true,
    description:
      'File name of the node binary, for example `simd` or `gaiad`: no `/`, not `.` or `..`, no control character, at most 255 bytes (UTF-8); refused when the longest path chainvisor makes under `DAEMON_HOME` with it would pass 4095 bytes (PATH_MAX).',
  },
  allowDownloadBinaries: {
    env: 'DAEMON_ALLOW_DOWNLOAD_BINARIES',
    kind: 'bool',
    default: 'false',
    description: "Download the upgrade binary named in the plan's Info when it is not installed.",
  },
  downloadMustHaveChecksum: {
    env: 'DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM',
    kind: 'bool',
    default: 'true',
    description: 'Refuse any download URL without `checksum=` (cosmovisor defaults to false).',
  },
  restartAfterUpgrade: {
    env: 'DAEMON_RESTART_AFTER_UPGRADE',
    kind: 'bool',
    default: 'true',
    description: 'Start the new binary with the same arguments after an upgrade; if false, exit 0 after switching.',
  },
  restartDelay: {
    env: 'DAEMON_RESTART_DELAY',
    kind: 'duration',
    default: '0s',
    description: 'Wait between the node stopping and the upgrade steps.',
  },
  shutdownGrace: {
    env: 'DAEMON_SHUTDOWN_GRACE',
    kind: 'duration',
    default: '0s',
    description:
      'After SIGTERM, how long to wait before SIGKILL. For an upgrade, 0 kills at once (as cosmovisor does); when chainvisor itself is asked to stop, 0 waits for the node however long it takes.',
  },
  pollInterval: {
    env: 'DAEMON_POLL_INTERVAL',
    kind: 'duration',
    default: '300ms',
    min: { value: 10, why: 'a shorter interval keeps a CPU core busy for nothing' },
    description:
      'Polling period for `data/upgrade-info.json`: the only check with `CHAINVISOR_WATCH=poll`; with `auto`, the safety net beside file events (at most once a second while the events of `data/` arrive, at this period when they cannot).',
  },
  unsafeSkipBackup: {
    env: 'UNSAFE_SKIP_BACKUP',
    kind: 'bool',
    default: 'false',
    description: 'Skip the copy of `$DAEMON_HOME/data` made before each upgrade.',
  },
  dataBackupDir: {
    env: 'DAEMON_DATA_BACKUP_DIR',
    kind: 'absPath',
    defaultDoc: '`$DAEMON_HOME`',
    description:
      'Where backups go (`data-backup-<date>`); absolute, and must exist unless backups are skipped (then any value is accepted, as cosmovisor does).',
  },
  backupMode: {
    env: 'CHAINVISOR_BACKUP_MODE',
    kind: 'enum',
    default: 'auto',
    values: ['auto', 'copy', 'reflink', 'link'],
    description:
      'How the data backup is made: `copy` (a full copy), `reflink` (copy-on-write clones; btrfs, XFS …), `link` (hard links for the immutable `*.sst`/`*.ldb` tables, a copy of the rest), or `auto` (reflink when the backup folder can clone, else link when it is on the same filesystem as the data, else copy). See docs/backup.md.',
  },
  backupKeep: {
    env: 'CHAINVISOR_BACKUP_KEEP',
    kind: 'count',
    default: '0',
    description:
      'How many backups made by chainvisor to keep; older ones are removed after a successful upgrade. `0` keeps all (as cosmovisor). Folders chainvisor did not make are never removed.',
  },
  preUpgradeMaxRetries: {
    env: 'DAEMON_PREUPGRADE_MAX_RETRIES',
    kind: 'count',
    default: '0',
    description: 'Extra attempts of `<new binary> pre-upgrade` when it exits 31.',
  },
  grpcAddress: {
    env: 'DAEMON_GRPC_ADDRESS',
    kind: 'grpcAddress',
    default: 'localhost:9090',
    description:
      "The node's gRPC endpoint (`host:port` or `tcp://host:port`), for reading the scheduled plan and the height. Set by the operator (variable or JSON file, or cosmovisor's config.toml with a value other than the default), it overrides where the node says it listens; otherwise chainvisor reads the node's `--grpc.address`/`--grpc.enable` flags, then `config/app.toml` `[grpc]`. When gRPC is off or does not answer, the node's CometBFT RPC is read instead (docs/staging.md).",
  },
  rpcAddress: {
    env: 'CHAINVISOR_RPC_ADDRESS',
    kind: 'rpcAddress',
    default: '',
    description:
      "The node's CometBFT RPC (`tcp://host:port`, `http://host:port`, `host:port` or `unix:///path`), read when gRPC is off or does not answer. Empty: where the node listens, from its `--rpc.laddr` flag, else `config/config.toml` `[rpc] laddr`, else `tcp://127.0.0.1:26657`.",
  },
  disableLogs: {
    env: 'COSMOVISOR_DISABLE_LOGS',
    kind: 'bool',
    default: 'false',
    description: 'No supervisor logs at all (the node output still passes through).',
  },
  colorLogs: {
    env: 'COSMOVISOR_COLOR_LOGS',
    kind: 'bool',
    default: 'true',
    description: 'Colour in human-readable logs (used when stderr is a terminal).',
  },
  timeFormatLogs: {
    env: 'COSMOVISOR_TIMEFORMAT_LOGS',
    kind: 'enum',
    default: 'kitchen',
    values: [
      'kitchen',
      'layout',
      'ansic',
      'unixdate',
      'rubydate',
      'rfc822',
      'rfc822z',
      'rfc850',
      'rfc1123',
      'rfc1123z',
      'rfc3339',
      'rfc3339nano',
      'stamp',
      'stampmilli',
      'datetime',
      'dateonly',
      'timeonly',
    ],
    description: 'Time format of human-readable logs (Go layout names).',
  },
  logFormat: {
    env: 'CHAINVISOR_LOG_FORMAT',
    kind: 'enum',
    default: 'auto',
    values: ['auto', 'json', 'text'],
    description:
      "chainvisor's log lines: `json`, human-readable `text`, or `auto` (text when stderr is a terminal or systemd's journal, else JSON). When stderr is the journal (`JOURNAL_STREAM`), text lines carry no colour and no time (the journal stamps them) and begin with their syslog priority (`<4>` warning …), so `journalctl -p warning` filters; `json` keeps JSON there.",
  },
  customPreUpgrade: {
    env: 'COSMOVISOR_CUSTOM_PREUPGRADE',
    kind: 'fileName',
    default: '',
    description:
      'A script in `$DAEMON_HOME/cosmovisor/`, run as `<script> <name> <height>` in `$DAEMON_HOME` before switching; a non-zero exit fails the upgrade.',
  },
  disableRecase: {
    env: 'COSMOVISOR_DISABLE_RECASE',
    kind: 'bool',
    default: 'false',
    description: 'Keep plan names as written for folder names instead of lower-casing them.',
  },
} as const satisfies Record<string, SettingSpec>;

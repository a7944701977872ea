/**
 * The one description of every setting: its environment variable, type, default and meaning.
 * The resolved `Config` type, validation, `chainvisor config`, the table in docs/settings.md and
 * `config.example.json` are all derived from this list.
 */

export type SettingKind = 'absPath' | 'fileName' | 'bool' | 'duration' | 'count' | 'bytes' | 'string' | 'enum' | 'grpcAddress' | 'rpcAddress';

interface SettingBase {
  /** Environment variable; the config-file key is its lower-cased form. */
  readonly env: string;
  readonly kind: SettingKind;
  readonly description: string;
  /** Required settings have no default. */
  readonly required?: true;
  /** Allowed values, for `enum`. */
  readonly values?: readonly string[];
  /** Shown instead of the default in docs when the default is derived from another setting. */
  readonly defaultDoc?: string;
  /**
   * The smallest value accepted (durations in ms; every duration is also capped at Node's timer limit), and
   * why a smaller one is refused: a value that would break every upgrade is refused by `config`, never met at the halt.
   */
  readonly min?: { readonly value: number; readonly why: string; readonly shown?: string; readonly zeroTurnsOff?: true };
  /**
   * The largest value the setting can mean (durations in ms), and why a larger one is refused. Without
   * it: 2^53 - 1 bytes or units (./values.ts), and for durations Node's timer limit (./load.ts).
   */
  readonly max?: { readonly value: number; readonly why: string; readonly shown?: string };
  /** `chainvisor config` hides the value (`secret`) or the credentials in its URLs (`urls`). */
  readonly redact?: 'secret' | 'urls';
}

export interface SettingSpec extends SettingBase {
  /** Default as it would be written in the environment (`300ms`, `true`); absent when required or derived. */
  readonly default?: string;
}

export const settings = {
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
    description: "chainvisor's log lines: `json`, human-readable `text`, or `auto` (text when stderr is a terminal).",
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
  smokeTest: {
    env: 'CHAINVISOR_SMOKE_TEST',
    kind: 'bool',
    default: 'false',
    description: 'After a download, run `<binary> version` (10 s limit) and refuse the binary if it fails.',
  },
  // Restart policy for a node that exits with no upgrade (issue: manual upgrades and restart policy).
  restartOnFailure: {
    env: 'CHAINVISOR_RESTART_ON_FAILURE',
    kind: 'bool',
    default: 'false',
    description:
      'Restart a node that fails (non-zero status or a signal) with no upgrade to apply, with exponential backoff; if false, exit with its status as cosmovisor does.',
  },
  restartMax: {
    env: 'CHAINVISOR_RESTART_MAX',
    kind: 'count',
    default: '5',
    description: "Most restarts in a row; the count starts over once the node has run for 10 minutes. Past it chainvisor exits with the node's status.",
  },
  restartBackoff: {
    env: 'CHAINVISOR_RESTART_BACKOFF',
    kind: 'duration',
    default: '500ms',
    description: 'Wait before the first restart; doubled for each further restart, up to 60 s (or this wait, when it is longer).',
  },
  // Observability: HTTP endpoint (metrics, health, status) and webhooks.
  httpAddress: {
    env: 'CHAINVISOR_HTTP_ADDRESS',
    kind: 'string',
    default: '',
    description:
      'Serve `/metrics`, `/healthz` and `/status` on this `host:port`, for example `127.0.0.1:9102`; empty turns the endpoint off. A non-loopback address is allowed (a warning is logged when no token is set).',
  },
  httpToken: {
    env: 'CHAINVISOR_HTTP_TOKEN',
    kind: 'string',
    default: '',
    redact: 'secret',
    description: 'When set, every request to the endpoint must send `Authorization: Bearer <token>`; others get 401.',
  },
  webhookUrl: {
    env: 'CHAINVISOR_WEBHOOK_URL',
    kind: 'string',
    default: '',
    redact: 'urls',
    description:
      'One or more http(s) URLs, comma-separated, that receive a JSON POST for each upgrade event (see docs/monitoring.md); retried in the background, never delaying an upgrade.',
  },
  // Alert channels in each service's own API shape (issue #27, docs/monitoring.md).
  notifyEvents: {
    env: 'CHAINVISOR_NOTIFY_EVENTS',
    kind: 'string',
    default: 'all',
    description:
      'Which upgrade events reach the webhooks, Slack, Discord, Telegram and PagerDuty: `all`, or a comma list of event names (`upgrade-failed,upgrade-applied,…`; see docs/monitoring.md). PagerDuty resolves are always sent.',
  },
  slackWebhookUrl: {
    env: 'CHAINVISOR_SLACK_WEBHOOK_URL',
    kind: 'string',
    default: '',
    redact: 'secret',
    description: 'A Slack incoming-webhook URL (`https://hooks.slack.com/services/…`): each upgrade event is posted as a message. Empty turns Slack off.',
  },
  discordWebhookUrl: {
    env: 'CHAINVISOR_DISCORD_WEBHOOK_URL',
    kind: 'string',
    default: '',
    redact: 'secret',
    description: 'A Discord webhook URL (`https://discord.com/api/webhooks/<id>/<token>`): each upgrade event is posted as an embed. Empty turns Discord off.',
  },
  telegramBotToken: {
    env: 'CHAINVISOR_TELEGRAM_BOT_TOKEN',
    kind: 'string',
    default: '',
    redact: 'secret',
    description:
      "A Telegram bot's token (from @BotFather); with `CHAINVISOR_TELEGRAM_CHAT_ID`, each upgrade event is sent as a message. Empty turns Telegram off.",
  },
  telegramChatId: {
    env: 'CHAINVISOR_TELEGRAM_CHAT_ID',
    kind: 'string',
    default: '',
    description: 'The Telegram chat the bot writes to: a numeric id (`-1001234567890` for a group or channel) or `@channelname`.',
  },
  telegramApiUrl: {
    env: 'CHAINVISOR_TELEGRAM_API_URL',
    kind: 'string',
    default: 'https://api.telegram.org',
    description: 'The Telegram Bot API server, for a self-hosted one.',
  },
  pagerdutyRoutingKey: {
    env: 'CHAINVISOR_PAGERDUTY_ROUTING_KEY',
    kind: 'string',
    default: '',
    redact: 'secret',
    description:
      'A PagerDuty Events API v2 integration (routing) key: a failed upgrade, a node that exits or crash-loops, staging still failing near the height and a failed rehearsal page; the incident is resolved when the cause clears. Empty turns PagerDuty off.',
  },
  pagerdutyApiUrl: {
    env: 'CHAINVISOR_PAGERDUTY_API_URL',
    kind: 'string',
    default: 'https://events.pagerduty.com',
    description: 'The PagerDuty Events API server (`/v2/enqueue` is appended).',
  },
  // Staging before the halt: the plan read from the node while it runs.
  planPollInterval: {
    env: 'CHAINVISOR_PLAN_POLL_INTERVAL',
    kind: 'duration',
    default: '10s',
    min: {
      value: 100,
      zeroTurnsOff: true,
      why: 'a shorter interval asks the node (or dials a node that is down) many times a second; 0s turns plan watching off',
    },
    description:
      "How often `run` reads the scheduled upgrade plan and the latest height from the node's gRPC (`DAEMON_GRPC_ADDRESS`), to stage the binary before the halt; every 5 blocks instead on chains faster than that (at most once a second); until the node answers after a start, after 1, 2, 4 … seconds up to this interval (a node whose gRPC has not answered for a minute is reported once: nothing is staged then). `0s` turns plan watching off.",
  },
  stageWarnBlocks: {
    env: 'CHAINVISOR_STAGE_WARN_BLOCKS',
    kind: 'count',
    default: '100',
    description:
      'When a scheduled upgrade is this many blocks away or fewer and its binary is still not staged: a warning while its download is under way, an error (and `staging-failed`) when staging keeps failing or downloads are off and nobody ran `add-upgrade`.',
  },
  confirmWarn: {
    env: 'CHAINVISOR_CONFIRM_WARN',
    kind: 'duration',
    default: '10m',
    min: { value: 1000, why: 'a shorter wait calls every upgrade stalled before the network could have resumed' },
    description:
      'After an upgrade, how long chainvisor may wait for the network to commit the first block at or past the height before it warns that the upgrade is stalled (`upgrade-stalled`, status `stalled`); repeated every time this much more passes. chainvisor keeps following the network meanwhile (docs/monitoring.md, "After the upgrade").',
  },
  // Rehearsals (issue #19, docs/rehearsal.md).
  rehearsalDir: {
    env: 'CHAINVISOR_REHEARSAL_DIR',
    kind: 'absPath',
    defaultDoc: '`$DAEMON_HOME/cosmovisor`',
    description:
      "Where `rehearse` makes its scratch home (a hidden `.chainvisor-rehearsal-<pid>-<random>` folder, removed afterwards, and at the next start when chainvisor was killed). On the data's filesystem the data's tables are linked, not copied.",
  },
  rehearse: {
    env: 'CHAINVISOR_REHEARSE',
    kind: 'bool',
    default: 'false',
    description:
      '`run` rehearses each staged upgrade once (again when its binary changes), in the background at low CPU and I/O priority, one at a time; given up when the height is `CHAINVISOR_STAGE_WARN_BLOCKS` away or nearer, or free disk runs low. A failure is an error log, a `rehearsal-failed` webhook and a metric, never a refusal to upgrade.',
  },
  // The sign guard (issue #28, docs/backup.md).
  signGuard: {
    env: 'CHAINVISOR_SIGN_GUARD',
    kind: 'enum',
    default: 'on',
    values: ['on', 'off'],
    description:
      "Before every start of the node, refuse (exit 84) when `data/priv_validator_state.json` is behind the highest (height, round, step) this home's validator has signed (kept in `cosmovisor/.chainvisor/sign-state.json` per chain id): a signing state put back from a backup or snapshot would let the node sign a second vote for a height it already signed. Off by itself when `config.toml` names a remote signer (`priv_validator_laddr`). `off` is logged as a warning at every start.",
  },
} as const satisfies Record<string, SettingSpec>;

export type SettingKey = keyof typeof settings;

/** The value type each kind resolves to: durations and byte sizes become numbers (ms, bytes). */
interface KindValue {
  absPath: string;
  fileName: string;
  bool: boolean;
  duration: number;
  count: number;
  bytes: number;
  string: string;
  enum: string;
  grpcAddress: string;
  rpcAddress: string;
}

type ValueOf<S> = S extends { kind: 'enum'; values: readonly (infer V)[] } ? V : S extends { kind: infer K extends SettingKind } ? KindValue[K] : never;

/** Resolved settings: every value present, typed, durations in milliseconds, sizes in bytes. */
export type Config = { readonly [K in SettingKey]: ValueOf<(typeof settings)[K]> };

/** Settings as written in a config file or the environment, before validation. */
export type RawConfig = Partial<Record<SettingKey, string>>;

export const settingKeys = Object.keys(settings) as SettingKey[];

/** The config-file key of a setting: its variable name in lower case. */
export function fileKey(key: SettingKey): string {
  return settings[key].env.toLowerCase();
}

/**
 * The settings of a parsed settings file (chainvisor's JSON, cosmovisor's TOML): keys matched to
 * settings, values turned into the raw text an environment variable would hold by `asText`, which
 * answers `{ wrong }` for a value of the wrong type. Unknown keys and wrong types are added to `problems`.
 */
export function fileSettings(
  entries: Record<string, unknown>,
  file: string,
  problems: Array<{ setting: string; value?: string; message: string }>,
  asText: (value: unknown, kind: SettingKind) => string | { wrong: string },
): RawConfig {
  const byFileKey = new Map(settingKeys.map((key) => [fileKey(key), key]));
  const raw: RawConfig = {};
  for (const [name, value] of Object.entries(entries)) {
    const key = byFileKey.get(name.toLowerCase());
    const label = `${name} in ${file}`;
    if (key === undefined) {
      problems.push({ setting: label, message: "unknown setting; keys are the lower-cased variable names that 'chainvisor config' lists" });
      continue;
    }
    const text = asText(value, settings[key].kind);
    if (typeof text === 'string') raw[key] = text;
    else problems.push({ setting: label, value: JSON.stringify(typeof value === 'bigint' ? String(value) : value), message: text.wrong });
  }
  return raw;
}

/**
 * The catalogue of error codes: every `CHAINVISOR_…` code chainvisor raises, with its exit code, when it
 * happens and what the operator does (the default hint; a throw site may give a more specific one).
 * `ChainvisorError` only accepts a code listed here and takes its exit code from it; docs/errors.md is
 * generated from it (scripts/regen-docs.mjs), and a test fails when the sources raise a code missing here
 * or when a code here is raised nowhere.
 */
import { ExitCode } from './exit-codes.js';
import type { ErrorSpec } from './spec.js';
import { upgradeErrors } from './upgrade-errors.js';

export type { ErrorSpec } from './spec.js';

/** Where a fault is met decides its exit code. */
const inUpgrade = 'met while an upgrade is downloaded or switched the upgrade fails (79); met on a path given on the command line it is a usage error (64)';

export const errorCatalogue = {
  // 1: the command failed
  CHAINVISOR_NO_UPGRADE_INFO: {
    exit: ExitCode.internal,
    when: '`show-upgrade-info`: `current` points at genesis, or at an upgrade folder with no recorded plan.',
    hint: 'nothing to show: no upgrade has put the running binary in place; a plan the node is halting for is in data/upgrade-info.json',
  },

  // 64: the command line is wrong
  CHAINVISOR_USAGE: {
    exit: ExitCode.usage,
    when: 'The command line is wrong: unknown command or option, missing or extra argument.',
    hint: "run 'chainvisor help' for the commands and their arguments",
  },
  CHAINVISOR_BINARY_NOT_FOUND: {
    exit: ExitCode.usage,
    when: '`init` or `add-upgrade`: there is no file at the binary path given.',
    hint: 'give the path of the node binary to install',
  },
  CHAINVISOR_BINARY_NOT_FILE: {
    exit: ExitCode.usage,
    when: '`init` or `add-upgrade`: the binary path given is a folder or not a regular file.',
    hint: 'give the path of the node binary itself, for example build/simd',
  },
  CHAINVISOR_BATCH_REFUSED: {
    exit: ExitCode.usage,
    when: 'A manual upgrade (`add-upgrade --upgrade-height`, `add-batch-upgrade`) is refused: its binary is missing or differs, it clashes with the queue or a governance plan, or its height has passed; nothing was changed.',
    hint: 'fix the entries and run the command again; the queue is in data/upgrade-info.json.batch',
  },
  CHAINVISOR_BATCH_FILE_UNREADABLE: {
    exit: ExitCode.usage,
    when: '`add-batch-upgrade`: the upgrade file given cannot be read.',
    hint: 'give the path of a CSV file (name,path,height per line) or of a JSON array of plans',
  },
  CHAINVISOR_BATCH_FILE_INVALID: {
    exit: ExitCode.usage,
    when: '`add-batch-upgrade`: the upgrade file given is neither a valid CSV nor a valid JSON list of plans.',
    hint: 'a headerless CSV with one name,path-to-binary,height per line, or a JSON array of {"name", "height", "info"}',
  },

  // 78: configuration, home or layout
  CHAINVISOR_CONFIG_INVALID: {
    exit: ExitCode.config,
    when: 'A setting (environment, config file or cosmovisor config) is invalid; every problem is listed.',
    hint: "fix the settings above in the environment or the config file, then run 'chainvisor config' to check",
  },
  CHAINVISOR_HTTP_ADDRESS_INVALID: {
    exit: ExitCode.config,
    when: '`CHAINVISOR_HTTP_ADDRESS` is not `host:port`.',
    hint: 'for example CHAINVISOR_HTTP_ADDRESS=127.0.0.1:9102 (or [::1]:9102); leave it empty to turn the endpoint off',
  },
  CHAINVISOR_HTTP_LISTEN_FAILED: {
    exit: ExitCode.config,
    when: '`run`: the HTTP endpoint cannot listen on `CHAINVISOR_HTTP_ADDRESS` (port in use, address not of this host).',
    hint: 'pick a free port, or an address of this host (an IP of it, or localhost)',
  },
  CHAINVISOR_WEBHOOK_URL_INVALID: {
    exit: ExitCode.config,
    when: '`run` and `config`: an entry of `CHAINVISOR_WEBHOOK_URL` is not an http(s) URL, or its user or password has a `%` that starts no escape.',
    hint: 'give one or more http(s) URLs separated by commas, for example CHAINVISOR_WEBHOOK_URL=https://hooks.example.com/T0/B0/xyz',
  },
  CHAINVISOR_ALREADY_INSTALLED: {
    exit: ExitCode.config,
    when: '`init` or `add-upgrade`: a different binary is already installed where this one would go (the same binary again is a no-op, exit 0). Not 64: the command line is right, the home holds another binary.',
    hint: 'pass --force to replace it',
  },
  CHAINVISOR_HOME_MISSING: {
    exit: ExitCode.config,
    when: '`DAEMON_HOME` (or a folder it must hold) does not exist, cannot be examined, or is not a folder.',
    hint: 'point DAEMON_HOME at the node home folder (the one holding data/ and config/)',
  },
  CHAINVISOR_LAYOUT_INVALID: {
    exit: ExitCode.config,
    alsoExit: { codes: [ExitCode.upgradeFailed, ExitCode.usage], why: inUpgrade },
    when: 'The home cannot work as it is: a file where a folder belongs, a symbolic link loop, a path chainvisor may not read or write, a full or read-only disk.',
    hint: 'fix the path named (move aside what is in the way, give access to the user chainvisor runs as), then run the command again',
  },
  CHAINVISOR_BINARY_EMPTY: {
    exit: ExitCode.config,
    alsoExit: { codes: [ExitCode.upgradeFailed, ExitCode.usage], why: `the node binary \`current\` points at is 78; ${inUpgrade}` },
    when: 'A node binary is an empty file (a failed copy, build or download).',
    hint: 'the copy or download that produced it failed; put the real node binary there',
  },
  CHAINVISOR_CURRENT_NOT_LINK: {
    exit: ExitCode.config,
    when: '`cosmovisor/current` exists but is not a symbolic link.',
    hint: "move it aside and make 'current' a link to the folder of the binary this node runs now (ln -sfn upgrades/<last upgrade applied> cosmovisor/current)",
  },
  CHAINVISOR_CURRENT_OUTSIDE: {
    exit: ExitCode.config,
    when: '`cosmovisor/current` points somewhere other than `genesis` or `upgrades/<name>`.',
    hint: 'point it at the folder of the binary this node runs now: ln -sfn upgrades/<last upgrade applied> cosmovisor/current (genesis only if no upgrade was applied)',
  },
  CHAINVISOR_NO_BINARY: {
    exit: ExitCode.config,
    when: '`run`: there is no node binary in the folder `current` points at.',
    hint: "run 'chainvisor init <path-to-binary>' first (or 'chainvisor add-upgrade <name> <path> --force' for an upgrade's folder)",
  },
  CHAINVISOR_NODE_SPAWN_FAILED: {
    exit: ExitCode.config,
    when: '`run`: the node binary cannot be started (not executable, wrong architecture, interpreter missing).',
    hint: 'check that the file is an executable program for this machine (chmod +x; right architecture)',
  },
  CHAINVISOR_LOCK_FAILED: {
    exit: ExitCode.config,
    when: "`run`: the home's lock cannot be taken for a reason other than another chainvisor (permissions, disk).",
    hint: 'check that the home and its cosmovisor/.chainvisor folder are writable by this user',
  },
  CHAINVISOR_BATCH_READ: {
    exit: ExitCode.config,
    when: 'The queue of manual upgrades (data/upgrade-info.json.batch) cannot be read.',
    hint: 'it must be a regular JSON file (at most 1 MiB) readable by chainvisor; move aside whatever is there',
  },
  CHAINVISOR_BATCH_INVALID: {
    exit: ExitCode.config,
    when: 'The queue of manual upgrades (data/upgrade-info.json.batch) is not a valid batch.',
    hint: 'fix the file by hand (a JSON array of {"name": "...", "height": N, "info": "..."}) or remove it',
  },
  CHAINVISOR_BATCH_GOV_CLASH: {
    exit: ExitCode.config,
    when: '`run`: a governance plan appears on chain at the height of a queued manual upgrade. Reported on an error log line while the node keeps running; it does not end chainvisor.',
    hint: 'the node halts for the governance plan before committing that block: remove the manual entry from data/upgrade-info.json.batch',
  },
  CHAINVISOR_BATCH_WRITE: {
    exit: ExitCode.config,
    when: 'The queue of manual upgrades (data/upgrade-info.json.batch) cannot be written.',
    hint: 'check the permissions and free space of the data folder; the queue was left as it was',
  },

  CHAINVISOR_NETWORK_RPC_OTHER_CHAIN: {
    exit: ExitCode.config,
    when: "`run`, before a start: a `CHAINVISOR_NETWORK_RPC` answers `/status` with another chain id than this home's genesis, so its commits say nothing about this validator.",
    hint: "point CHAINVISOR_NETWORK_RPC at nodes of this home's chain (its genesis chain_id), then start chainvisor again",
  },

  // 79: an upgrade failed
  ...upgradeErrors,

  // 80: pre-upgrade failed
  CHAINVISOR_CUSTOM_PREUPGRADE_FAILED: {
    exit: ExitCode.preUpgradeFailed,
    when: 'The custom pre-upgrade script (`COSMOVISOR_CUSTOM_PREUPGRADE`) is missing, cannot start or failed; nothing was switched.',
    hint: 'fix the script (or unset COSMOVISOR_CUSTOM_PREUPGRADE), then start chainvisor again — the upgrade is applied at start-up',
  },
  CHAINVISOR_PREUPGRADE_FAILED: {
    exit: ExitCode.preUpgradeFailed,
    when: '`<new binary> pre-upgrade` exited 30, exited 31 more often than `DAEMON_PREUPGRADE_MAX_RETRIES` allows, exited with a code outside the contract, or could not run; nothing was switched.',
    hint: "read the output of pre-upgrade in chainvisor's log, fix the cause, then start chainvisor again — the upgrade is applied at start-up",
  },

  // 81: backup failed
  CHAINVISOR_BACKUP_NO_SPACE: {
    exit: ExitCode.backupFailed,
    when: 'The data backup would not fit in `DAEMON_DATA_BACKUP_DIR` (checked before writing; nothing written).',
    hint: "free space in the backup folder (CHAINVISOR_BACKUP_KEEP removes old backups), point DAEMON_DATA_BACKUP_DIR at a bigger disk, (for a copy backup) use CHAINVISOR_BACKUP_MODE=link with the backup folder on the data's filesystem, or set UNSAFE_SKIP_BACKUP=true; then start chainvisor again",
  },
  CHAINVISOR_BACKUP_FAILED: {
    exit: ExitCode.backupFailed,
    when: 'The data backup failed (disk, permissions, something in the data folder that cannot be copied); the partial copy is removed.',
    hint: 'fix the cause shown, or set UNSAFE_SKIP_BACKUP=true (or DAEMON_DATA_BACKUP_DIR to a bigger disk); then start chainvisor again',
  },

  CHAINVISOR_RESTORE_NO_SPACE: {
    exit: ExitCode.backupFailed,
    when: '`restore`: the copy of the backup would not fit beside `data/` (checked before writing; nothing written).',
    hint: "free space on the data's filesystem (old data.replaced-* folders, older data-backup-* folders), then run chainvisor restore again",
  },

  // 79: nothing to restore
  CHAINVISOR_RESTORE_NOTHING: {
    exit: ExitCode.upgradeFailed,
    when: '`restore`: no backup made by chainvisor is recorded (or its folder is gone), or the folder named by `--backup` is not a backup.',
    hint: "name a backup folder with --backup <folder> (a data-backup-* folder in DAEMON_DATA_BACKUP_DIR); 'chainvisor status' lists them",
  },
  CHAINVISOR_RESTORE_FAILED: {
    exit: ExitCode.upgradeFailed,
    when: "`restore`: the copy of the backup or the swap of the folders failed; the original `data/` is in place (or is put back at the next `restore` or `run`). Also, before anything is touched: the backup holds something a restore cannot put back (a FIFO, a socket, a device) or cannot be read; and, for `restore` and `run`, a restore journal (`cosmovisor/.chainvisor/restore-journal.json`) that is not a whole journal of this home's data.",
    hint: 'fix the cause shown, then run chainvisor restore again',
  },
  CHAINVISOR_BACKUP_RECORD_UNREADABLE: {
    exit: ExitCode.upgradeFailed,
    when: 'The record of the backups chainvisor made (`cosmovisor/.chainvisor/backups.json`) cannot be read or is not the shape chainvisor writes. `restore` stops with nothing changed; at an upgrade it is a warning: the backup is made but not recorded, none is reused and CHAINVISOR_BACKUP_KEEP removes none.',
    hint: 'move cosmovisor/.chainvisor/backups.json aside (the backup folders themselves are untouched) and name the backup to restore with --backup <folder>; the next backup starts a new record',
  },

  // 64: restore not confirmed
  CHAINVISOR_RESTORE_UNCONFIRMED: {
    exit: ExitCode.usage,
    when: '`restore` without `--yes` and without a terminal to ask on, or the answer was not yes; nothing was changed.',
    hint: 'check the plan with chainvisor restore --dry-run, then run chainvisor restore --yes',
  },

  // 84: the signing state went back
  CHAINVISOR_SIGN_STATE_BEHIND: {
    exit: ExitCode.doubleSignRisk,
    when: "Before a start of the node: `data/priv_validator_state.json` is behind the highest (height, round, step) this home's validator has signed (a state put back from a backup or a snapshot); the node is not started, as it could sign a second vote for a height it already signed.",
    hint: 'put back the newest priv_validator_state.json (from the data.replaced-* or other folder the data came from; chainvisor restore keeps the newest itself); only if this validator really never signed those heights (a new network under the same chain id), remove cosmovisor/.chainvisor/sign-state.json, or start once with CHAINVISOR_SIGN_GUARD=off',
  },
  CHAINVISOR_GENESIS_UNREADABLE: {
    exit: ExitCode.doubleSignRisk,
    when: "Before a start of the node: the sign guard cannot read the chain id from the node's genesis file (config.toml's `genesis_file`): it is a FIFO, a device, a socket or a folder rather than a file, or it cannot be opened; the node is not started (it could not read its genesis either).",
    hint: 'put the genesis file back as a regular file (a link to one is fine) readable by the user chainvisor runs as, then start chainvisor again',
  },
  CHAINVISOR_SIGN_STATE_UNREADABLE: {
    exit: ExitCode.doubleSignRisk,
    when: "`restore` or a start of the node: a `priv_validator_state.json` cannot be read or is not CometBFT's format (a height above 2^63 - 1 included), or chainvisor's record of the signed state (`cosmovisor/.chainvisor/sign-state.json`) is not exactly the shape chainvisor writes; nothing was changed and the node was not started.",
    hint: 'put back a valid priv_validator_state.json ({"height": "<n>", "round": <n>, "step": <n>, …}), the newest this validator wrote; for a damaged sign-state.json, put it back as chainvisor wrote it, or move it aside once priv_validator_state.json is the newest (chainvisor then records afresh)',
  },

  // 84: another machine signs with this validator's key (issue #32, docs/double-sign.md)
  CHAINVISOR_KEY_IN_USE: {
    exit: ExitCode.doubleSignRisk,
    when: "Before a start of the node, or while it runs: this validator's address signed a block on the network (`CHAINVISOR_NETWORK_RPC`) at a height above this home's `priv_validator_state.json`, a signature this home did not make. The node is not started, or is stopped at once, and not restarted whatever the restart policy.",
    hint: "another machine runs this validator's key: find it and stop it (a failover node, an old VM back after a migration, a restored snapshot, a copied key); do not start this node until then",
  },
  CHAINVISOR_HOME_MISMATCH: {
    exit: ExitCode.doubleSignRisk,
    when: "Before a start of the node, or a few seconds after it (Linux: the files it holds open): the node lives in another home than `DAEMON_HOME` (its `--home`, or the data folder it opened) and signs there with a local validator key (`priv_validator_key.json`, no remote signer); the sign guard and the twin check would guard `DAEMON_HOME`'s signing state, not the node's. The node is not started, or is stopped.",
    hint: "pass --home $DAEMON_HOME to the node (after 'chainvisor run start'), or set DAEMON_HOME to the home the node uses",
  },
  CHAINVISOR_TWIN_UNCHECKED: {
    exit: ExitCode.doubleSignRisk,
    when: "Before a start with `CHAINVISOR_TWIN_CHECK=require`: no network RPC answered within `CHAINVISOR_TWIN_TIMEOUT` (or this validator's key file could not be read), so the check could not be made; the node was not started.",
    hint: 'make a CHAINVISOR_NETWORK_RPC answer (or fix the key file named), or start once with CHAINVISOR_TWIN_CHECK=on, which starts with a warning when the network cannot be asked',
  },

  // 82: the home is taken
  CHAINVISOR_HOME_LOCKED: {
    exit: ExitCode.homeLocked,
    when: '`run`: another chainvisor already supervises this home (its pid is named).',
    hint: "stop the other chainvisor first (kill -TERM <pid>, or 'systemctl stop <unit>'), or point DAEMON_HOME at another home",
  },
  CHAINVISOR_ORPHAN_NODE: {
    exit: ExitCode.homeLocked,
    when: '`run`: a node left running by a killed chainvisor could not be stopped, or its record cannot be trusted — including a record (`cosmovisor/.chainvisor/node.json`) that cannot be read and was written since the machine started.',
    hint: 'stop that pid yourself (as its owner or root), or remove the stale record if it is not the node; then start chainvisor again',
  },

  // 79 / 83: rehearsals (`rehearse`, docs/rehearsal.md)
  CHAINVISOR_REHEARSAL_NO_UPGRADE: {
    exit: ExitCode.upgradeFailed,
    when: '`rehearse` without a name: no plan is scheduled on chain (or the node does not answer) and no manual upgrade is queued.',
    hint: 'name the upgrade: chainvisor rehearse <upgrade-name> (its binary installed in upgrades/<name>/bin/)',
  },
  CHAINVISOR_REHEARSAL_UNAVAILABLE: {
    exit: ExitCode.upgradeFailed,
    when: '`rehearse`: the rehearsal cannot be set up: the upgrade binary is not installed, the current binary has no `in-place-testnet`, or the old binary did not halt on the copy.',
    hint: "install the upgrade binary with 'chainvisor add-upgrade <name> <path>'; an old binary needs `in-place-testnet` (Cosmos SDK v0.50.4+, server.AddTestnetCreatorCommand)",
  },
  CHAINVISOR_REHEARSAL_NO_SPACE: {
    exit: ExitCode.upgradeFailed,
    when: '`rehearse`: the copy of the data would not fit in the rehearsal folder, with room to spare for the node.',
    hint: "free space there, or point CHAINVISOR_REHEARSAL_DIR at a bigger disk (on the data's filesystem, links keep the copy small)",
  },
  CHAINVISOR_REHEARSAL_COPY_FAILED: {
    exit: ExitCode.upgradeFailed,
    when: '`rehearse`: no consistent copy of a database could be taken from the running node after several attempts, or a file of the data could not be read.',
    hint: "try again when the node is less busy (after a compaction), or set CHAINVISOR_REHEARSAL_DIR on the data's filesystem so tables are linked rather than copied",
  },
  CHAINVISOR_REHEARSAL_INTERRUPTED: {
    exit: ExitCode.upgradeFailed,
    when: '`rehearse` was stopped (SIGTERM, SIGINT) before it finished; the scratch node was stopped and the scratch removed.',
    hint: 'run it again when it may finish',
  },
  CHAINVISOR_REHEARSAL_FAILED: {
    exit: ExitCode.rehearsalFailed,
    when: '`rehearse`: the upgrade failed on the copy: pre-upgrade, the switch, or the new binary before N blocks past the upgrade height.',
    hint: "read the reason and the node's last lines in the report; the network still upgrades at its height — fix the binary (or warn the chain's developers) before then",
  },
} as const satisfies Record<`CHAINVISOR_${string}`, ErrorSpec>;

/** Every code chainvisor raises. */
export type ErrorCode = keyof typeof errorCatalogue;

export const errorCodes = Object.keys(errorCatalogue) as ErrorCode[];

/** The catalogue entry of `code`. */
export function errorSpec(code: ErrorCode): ErrorSpec {
  return errorCatalogue[code];
}

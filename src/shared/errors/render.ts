/** docs/errors.md, generated from the catalogue (scripts/regen-docs.mjs): every code, grouped by exit code. */
import { errorCatalogue, type ErrorCode, errorCodes, type ErrorSpec } from './catalogue.js';
import { ExitCode, type ExitCodeValue } from './exit-codes.js';

const groups: ReadonlyArray<{ exit: ExitCodeValue; title: string }> = [
  { exit: ExitCode.internal, title: 'the command failed' },
  { exit: ExitCode.usage, title: 'the command line is wrong' },
  { exit: ExitCode.config, title: 'the configuration, the home or its layout cannot work' },
  { exit: ExitCode.upgradeFailed, title: 'an upgrade failed; `current` is unchanged (for `restore`: nothing to restore)' },
  { exit: ExitCode.preUpgradeFailed, title: 'pre-upgrade failed; `current` is unchanged' },
  { exit: ExitCode.backupFailed, title: 'the data backup failed (or a restore would not fit); `current` is unchanged' },
  { exit: ExitCode.homeLocked, title: 'the home is taken; nothing was started' },
  { exit: ExitCode.rehearsalFailed, title: 'a rehearsal: the upgrade failed on the copy; nothing live was touched' },
  {
    exit: ExitCode.doubleSignRisk,
    title: 'started, the node could double-sign: its signing state went back, or another machine signs with its key; the node was not started (or was stopped)',
  },
];

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function exitCell(spec: ErrorSpec): string {
  const codes = [spec.exit, ...(spec.alsoExit?.codes ?? [])];
  return codes.length === 1 ? String(spec.exit) : `${codes.slice(0, -1).join(', ')} or ${codes.at(-1)}`;
}

function row(code: ErrorCode): string {
  const spec: ErrorSpec = errorCatalogue[code];
  const when = spec.alsoExit === undefined ? spec.when : `${spec.when} Exit ${spec.exit} as a rule; ${spec.alsoExit.why}.`;
  return `| \`${code}\` | ${exitCell(spec)} | ${cell(when)} | ${cell(spec.hint)} |`;
}

/** The whole of docs/errors.md. */
export function renderErrorsDoc(): string {
  const lines = [
    '# Error codes',
    '',
    '<!-- Generated from src/shared/errors/catalogue.ts by scripts/regen-docs.mjs; edit the catalogue, not this file. -->',
    '',
    'Every error chainvisor expects ends with three lines on stderr: `chainvisor: error: …` (what failed),',
    '`chainvisor: hint: …` (what to do; often more precise than the general advice below) and',
    '`chainvisor: code: CHAINVISOR_…`, the stable code listed here. The exit code of the command says which',
    'kind of failure it was; the table of exit codes is in the README. A misused command line (64) adds a fourth,',
    "`chainvisor: usage: …`, the command's usage line, after the error. A code listed with several exit codes",
    'says why. Anything an upgrade meets while its binary is downloaded and installed fails that upgrade with',
    'exit 79, whatever its code.',
    '',
    'Under systemd (docs/systemd/chainvisor.service), `RestartPreventExitStatus=64 78 84` leaves to a person the',
    'exits a restart cannot mend: 64, the command line in the unit is wrong, and stays wrong; 78, the settings',
    'or the home cannot work until someone changes them; 84, the node could double-sign, and starting it again',
    'is the very risk (docs/double-sign.md). The others may pass: 79 to 81 fail an upgrade with `current`',
    'unchanged and a start applies it again (once the binary, the pre-upgrade or the disk is fixed), 82 ends',
    'when the other chainvisor does, and a node that crashed (its own exit status, which chainvisor passes on)',
    'restarts as it would without chainvisor. A failure that ends chainvisor is sent to the webhooks and alert',
    'channels once an hour however often the unit restarts it.',
  ];
  for (const group of groups) {
    const codes = errorCodes.filter((code) => errorCatalogue[code].exit === group.exit);
    if (codes.length === 0) continue;
    lines.push('', `## ${group.exit}: ${group.title}`, '', '| code | exit code | when | what to do |', '|---|---|---|---|', ...codes.map(row));
  }
  return `${lines.join('\n')}\n`;
}

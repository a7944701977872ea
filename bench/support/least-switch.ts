/**
 * The floor of bench:switch: the least a Node.js program does to switch a node, with none of what makes
 * a supervisor safe (no lock, records, backup, checks, logs, retries or standbys). It starts the old
 * binary, waits for data/upgrade-info.json with fs.watch, reads it synchronously, kills the node
 * (SIGKILL), runs `<new binary> pre-upgrade`, renames a link and starts the new binary. What
 * chainvisor adds over this is its own cost; what this costs beyond bash's fork+exec is Node.js's and
 * the machine's (waking an idle process, fork).
 *
 *   node least-switch.js <home> <old binary> <new binary>
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const [home, oldBinary, newBinary] = process.argv.slice(2) as [string, string, string];
const data = path.join(home, 'data');
fs.mkdirSync(data, { recursive: true });
const node = spawn(oldBinary, ['start'], { stdio: 'inherit' });
let seen = false;
const watcher = fs.watch(data, (_event, name) => {
  if (seen || name !== 'upgrade-info.json') return;
  let plan: unknown;
  try {
    plan = JSON.parse(fs.readFileSync(path.join(data, name), 'utf8'));
  } catch {
    return; // truncated and not written yet: the next event brings the text
  }
  if (typeof (plan as { name?: unknown } | null)?.name !== 'string') return;
  seen = true;
  watcher.close();
  node.once('exit', () => {
    const pre = spawn(newBinary, ['pre-upgrade'], { stdio: ['ignore', 'pipe', 'pipe'] });
    pre.stdout.resume();
    pre.stderr.resume();
    pre.once('close', () => {
      const link = path.join(home, 'current.tmp');
      fs.symlinkSync(newBinary, link);
      fs.renameSync(link, path.join(home, 'current'));
      const next = spawn(newBinary, ['start'], { stdio: 'inherit' });
      next.once('exit', (code) => process.exit(code ?? 1));
    });
  });
  node.kill('SIGKILL');
});

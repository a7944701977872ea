/**
 * The container commands as the documentation gives them, so the image test runs what an operator
 * copies: the `docker run -d` of docs/container.md ("Running it"), the node container's `args` of
 * docs/k8s/statefulset.yaml, and the image's own DAEMON_HOME and CMD from the Dockerfile.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { parseAllDocuments } from 'yaml';

const root = path.resolve(fileURLToPath(import.meta.url), '../../../..');
const read = (file: string): string => readFileSync(path.join(root, file), 'utf8');

/** chainvisor's arguments in docs/container.md's `docker run -d …`: the words after the image's name. */
export function containerDocArgs(): string[] {
  const text = read('docs/container.md');
  const start = text.indexOf('docker run -d ');
  if (start === -1) throw new Error('docs/container.md has no `docker run -d` command');
  const lines: string[] = [];
  for (const line of text.slice(start).split('\n')) {
    lines.push(line.replace(/\\$/, ''));
    if (!line.trimEnd().endsWith('\\')) break;
  }
  const words = lines.join(' ').split(/\s+/).filter(Boolean);
  // The image is the one word of the form name:tag (a name, then a tag starting with a digit: 1.0.0).
  const image = words.findIndex((w) => /^[a-z][a-z0-9./-]*:\d[\w.-]*$/.test(w));
  if (image === -1) throw new Error(`no image name in docs/container.md's command: ${words.join(' ')}`);
  return words.slice(image + 1);
}

interface Container {
  name: string;
  args?: string[];
  env?: { name: string; value?: string }[];
}

/** The StatefulSet's node container in docs/k8s/statefulset.yaml: its args and its environment. */
export function statefulSetNode(): { args: string[]; env: Record<string, string> } {
  const objects = parseAllDocuments(read('docs/k8s/statefulset.yaml')).map((d) => d.toJS() as { kind: string; spec?: any });
  const sts = objects.find((o) => o.kind === 'StatefulSet');
  const node = (sts?.spec?.template?.spec?.containers as Container[] | undefined)?.find((c) => c.name === 'node');
  if (node === undefined) throw new Error('docs/k8s/statefulset.yaml has no container named node');
  return { args: node.args ?? [], env: Object.fromEntries((node.env ?? []).map((e) => [e.name, e.value ?? ''])) };
}

/** The Dockerfile's `ENV DAEMON_HOME=…` and `CMD […]`. */
export function imageDefaults(): { daemonHome: string; cmd: string[] } {
  const text = read('Dockerfile');
  const daemonHome = /^ENV DAEMON_HOME=(\S+)$/m.exec(text)?.[1];
  const cmd = /^CMD (\[.*\])$/m.exec(text)?.[1];
  if (daemonHome === undefined || cmd === undefined) throw new Error('the Dockerfile sets no DAEMON_HOME or CMD');
  return { daemonHome, cmd: JSON.parse(cmd) as string[] };
}

/** The value of `--home` (or `--home=`) in a node command line, if any. */
export function homeFlag(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--home') return args[i + 1];
    if (args[i]?.startsWith('--home=')) return args[i]?.slice('--home='.length);
  }
  return undefined;
}

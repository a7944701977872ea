/**
 * Backup tests' kit: a data folder shaped like a node's (LevelDB tables, MANIFEST, CURRENT, LOG, a
 * write-ahead log, a validator state file, a nested symlink, odd modes and old times), and a snapshot
 * of a tree (kind, mode, mtime, content or link target, inode) to compare a backup with its source.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

export interface Node {
  kind: 'dir' | 'file' | 'symlink';
  mode: number;
  mtimeMs: number;
  /** sha256 of a file, target of a link. */
  content: string;
  ino: number;
}

export async function makeDataTree(dir: string): Promise<void> {
  const db = path.join(dir, 'application.db');
  await fs.mkdir(db, { recursive: true });
  await fs.mkdir(path.join(dir, 'blockstore.db'));
  await fs.mkdir(path.join(dir, 'cs.wal'));
  for (let i = 1; i <= 5; i++) await fs.writeFile(path.join(db, `00000${i}.ldb`), Buffer.alloc(20_000 + i * 1000, i));
  await fs.writeFile(path.join(dir, 'blockstore.db', '000010.sst'), Buffer.alloc(300_000, 7));
  await fs.writeFile(path.join(db, 'MANIFEST-000004'), 'manifest');
  await fs.writeFile(path.join(db, 'CURRENT'), 'MANIFEST-000004\n');
  await fs.writeFile(path.join(db, 'LOG'), 'log lines\n');
  await fs.writeFile(path.join(db, 'LOCK'), '');
  await fs.writeFile(path.join(db, '000006.log'), Buffer.alloc(40_000, 9));
  await fs.writeFile(path.join(dir, 'cs.wal', 'wal'), 'wal');
  await fs.writeFile(path.join(dir, 'priv_validator_state.json'), '{"height":"5"}', { mode: 0o600 });
  await fs.chmod(path.join(dir, 'priv_validator_state.json'), 0o600);
  await fs.writeFile(path.join(dir, 'tool.sh'), '#!/bin/sh\n', { mode: 0o750 });
  await fs.chmod(path.join(dir, 'tool.sh'), 0o750);
  await fs.symlink('application.db/CURRENT', path.join(dir, 'current-link'));
  const old = new Date('2024-01-02T03:04:05Z');
  await fs.utimes(path.join(db, '000001.ldb'), old, old);
  await fs.utimes(path.join(dir, 'priv_validator_state.json'), old, old);
  await fs.utimes(path.join(dir, 'cs.wal'), old, old);
}

export async function snapshot(root: string): Promise<Map<string, Node>> {
  const out = new Map<string, Node>();
  const walk = async (rel: string): Promise<void> => {
    for (const name of (await fs.readdir(path.join(root, rel))).sort()) {
      const r = path.join(rel, name);
      const full = path.join(root, r);
      const stat = await fs.lstat(full);
      const base = { mode: stat.mode & 0o7777, mtimeMs: Math.floor(stat.mtimeMs), ino: stat.ino };
      if (stat.isDirectory()) {
        out.set(r, { kind: 'dir', content: '', ...base });
        await walk(r);
      } else if (stat.isSymbolicLink()) {
        out.set(r, { kind: 'symlink', content: await fs.readlink(full), ...base, mode: 0 });
      } else {
        out.set(r, {
          kind: 'file',
          content: createHash('sha256')
            .update(await fs.readFile(full))
            .digest('hex'),
          ...base,
        });
      }
    }
  };
  await walk('');
  return out;
}

/** The snapshot without inodes: what "identical content" means. */
export function withoutInodes(snap: Map<string, Node>): Record<string, Omit<Node, 'ino'>> {
  return Object.fromEntries([...snap].map(([k, { ino: _ino, ...rest }]) => [k, rest]));
}

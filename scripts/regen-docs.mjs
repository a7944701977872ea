#!/usr/bin/env node
// Rewrites config.example.json and the settings table in docs/settings.md from src/config/settings/ (through src/config/schema.ts),
// docs/errors.md from src/shared/errors/catalogue.ts, and the table of formats in docs/download.md from
// src/verify/archive/formats.ts (through the built dist/). Run after `npm run build` whenever a setting, an
// error code or a format is added or changed.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderDocsTable, renderExample } from '../dist/src/config/render.js';
import { renderErrorsDoc } from '../dist/src/shared/errors/render.js';
import { renderFormatsTable } from '../dist/src/verify/index.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
fs.writeFileSync(path.join(repo, 'config.example.json'), renderExample());

/** Replaces the table of `doc` that begins with a line starting with `header` by `table`. */
function replaceTable(doc, header, table) {
  const file = path.join(repo, 'docs', doc);
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const start = lines.findIndex((l) => l.startsWith(header));
  if (start < 0) throw new Error(`docs/${doc}: no table (a line starting "${header}")`);
  let end = start;
  while (end < lines.length && lines[end].startsWith('|')) end++;
  lines.splice(start, end - start, ...table.split('\n'));
  fs.writeFileSync(file, lines.join('\n'));
}

replaceTable('settings.md', '| variable | default | meaning |', renderDocsTable());
replaceTable('download.md', '| format |', renderFormatsTable());
fs.writeFileSync(path.join(repo, 'docs', 'errors.md'), renderErrorsDoc());
console.log('config.example.json, the settings table in docs/settings.md, the formats in docs/download.md and docs/errors.md are up to date');

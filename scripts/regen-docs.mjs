#!/usr/bin/env node
// Rewrites config.example.json and the settings table in docs/settings.md from src/config/settings/ (through src/config/schema.ts),
// and docs/errors.md from src/shared/errors/catalogue.ts (through the built dist/). Run after `npm run build`
// whenever a setting or an error code is added or changed.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderDocsTable, renderExample } from '../dist/src/config/render.js';
import { renderErrorsDoc } from '../dist/src/shared/errors/render.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
fs.writeFileSync(path.join(repo, 'config.example.json'), renderExample());
const readmePath = path.join(repo, 'docs', 'settings.md');
const lines = fs.readFileSync(readmePath, 'utf8').split('\n');
const start = lines.findIndex((l) => l.startsWith('| variable | default | meaning |'));
if (start < 0) throw new Error('docs/settings.md: no settings table (a line starting "| variable | default | meaning |")');
let end = start;
while (end < lines.length && lines[end].startsWith('|')) end++;
lines.splice(start, end - start, ...renderDocsTable().split('\n'));
fs.writeFileSync(readmePath, lines.join('\n'));
fs.writeFileSync(path.join(repo, 'docs', 'errors.md'), renderErrorsDoc());
console.log('config.example.json, the settings table in docs/settings.md and docs/errors.md are up to date');

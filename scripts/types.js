/**
 * Writes types-dist/: the declarations of src/ (tsc -p tsconfig.types.json),
 * each that names Node's own types (Buffer, node:fs, NodeJS.*) headed by
 * `/// <reference types="node" />`, so a project type-checks against
 * pagediet without naming @types/node itself (it is a dependency of
 * pagediet's). Run by `npm install` in this folder (prepare) and `npm pack`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const finalDir = path.join(root, 'types-dist');
// Written beside, then swapped in by renames: a reader (a test, an editor) never sees half a folder.
const outDir = `${finalDir}.${process.pid}.tmp`;
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
await fs.rm(outDir, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.types.json'), '--outDir', outDir], { stdio: 'inherit' });
const REFERENCE = '/// <reference types="node" />\n';
const files = (await fs.readdir(outDir, { recursive: true })).filter((f) => f.endsWith('.d.ts'));
let referenced = 0;
for (const file of files) {
  const full = path.join(outDir, file);
  const text = await fs.readFile(full, 'utf8');
  if (!/\bBuffer\b|["']node:|\bNodeJS\./.test(text) || text.startsWith(REFERENCE)) continue;
  await fs.writeFile(full, REFERENCE + text);
  referenced++;
}
const old = `${finalDir}.${process.pid}.old`;
await fs.rename(finalDir, old).catch(() => {});
await fs.rename(outDir, finalDir);
await fs.rm(old, { recursive: true, force: true });
console.log(`wrote types-dist/ (${files.length} declaration files, ${referenced} with Node's types)`);

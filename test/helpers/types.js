/**
 * types-dist/ as `npm install` leaves it (prepare: scripts/types.js), written
 * again only when a source file is newer: CI's `npm ci` has just written it.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The newest modification time of the files the declarations come from. */
async function newestSource() {
  const files = (await fs.readdir(path.join(ROOT, 'src'), { recursive: true })).filter((f) => f.endsWith('.js')).map((f) => path.join(ROOT, 'src', f));
  files.push(path.join(ROOT, 'scripts/types.js'), path.join(ROOT, 'tsconfig.types.json'), path.join(ROOT, 'tsconfig.json'));
  const times = await Promise.all(files.map(async (f) => (await fs.stat(f)).mtimeMs));
  return Math.max(...times);
}

/** Writes types-dist/ unless it is newer than every source; returns its path. */
export async function ensureTypes() {
  const index = path.join(ROOT, 'types-dist/index.d.ts');
  const written = await fs.stat(index).then((s) => s.mtimeMs, () => 0);
  if (written < (await newestSource())) await run(process.execPath, [path.join(ROOT, 'scripts/types.js')], { cwd: ROOT });
  return path.join(ROOT, 'types-dist');
}

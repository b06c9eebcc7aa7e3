/**
 * The embedded browser: @sparticuz/chromium, an optional dependency whose
 * registry package ships a headless Chromium for Linux x64 as brotli files
 * (about 70 MB; nothing is downloaded at install). It is unpacked once per
 * machine into pagediet's browser cache (about 220 MB), not into the temp
 * folder as the package itself does: the unpack is written to a folder of its
 * own and renamed into place, so two builds at once never see half of one, and
 * a manifest of every file's size lets a damaged unpack (a file deleted or cut
 * short) be found and redone. The package's JavaScript is not loaded (it asks
 * for Node 22); only its files are read.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-fs';
import { userCacheDir, thisHost } from './discovery.js';

/**
 * @typedef {object} EmbeddedBrowser
 * @property {string} executable
 * @property {string} dir the unpacked folder
 * @property {string} version the package's version
 * @property {Record<string, string>} env what the browser's process needs besides the environment (its own libraries where the system lacks them)
 * @property {boolean} unpacked whether this call unpacked it (false: it was there)
 */

/** The manifest written last into an unpack: its presence says the unpack finished. */
export const MANIFEST = 'pagediet-unpack.json';

/** Libraries the browser links that a minimal Linux may lack; the package ships them (al2023.tar.br). */
const SHIPPED_LIBRARIES = ['libnss3.so', 'libnspr4.so', 'libexpat.so.1'];
const SYSTEM_LIBRARY_DIRS = ['/lib/x86_64-linux-gnu', '/usr/lib/x86_64-linux-gnu', '/lib64', '/usr/lib64', '/lib', '/usr/lib'];

/**
 * Where unpacked browsers are kept: PAGEDIET_BROWSER_CACHE, or the user's
 * cache folder's pagediet/browsers.
 * @param {import('./discovery.js').Host} [host]
 */
export function browserCacheDir(host = thisHost()) {
  return host.env.PAGEDIET_BROWSER_CACHE || path.join(userCacheDir(host) ?? path.join(host.home, '.cache'), 'pagediet', 'browsers');
}

/**
 * The unpacked embedded browser, unpacking it first when it is missing or damaged.
 * @param {string} packageDir the package's folder (findBrowsers gives it)
 * @param {{ cacheDir?: string, redo?: boolean }} [options] redo: unpack again even when the sizes are right (it failed to start)
 * @returns {Promise<EmbeddedBrowser>}
 */
export async function embeddedBrowser(packageDir, { cacheDir = browserCacheDir(), redo = false } = {}) {
  const { version } = JSON.parse(await fsp.readFile(path.join(packageDir, 'package.json'), 'utf8'));
  const dir = path.join(cacheDir, `chromium-${version}`);
  let unpacked = false;
  if (redo || !(await intact(dir))) {
    await unpack(path.join(packageDir, 'bin'), dir, { replace: redo });
    unpacked = true;
  }
  const libDir = path.join(dir, 'lib');
  const lacking = SHIPPED_LIBRARIES.some((lib) => !SYSTEM_LIBRARY_DIRS.some((d) => fs.existsSync(path.join(d, lib))));
  return { executable: path.join(dir, 'chromium'), dir, version, env: lacking ? { LD_LIBRARY_PATH: [libDir, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':') } : {}, unpacked };
}

/**
 * Whether an unpack finished and every file it wrote is still there, whole.
 * @param {string} dir
 */
export async function intact(dir) {
  let manifest;
  try {
    manifest = JSON.parse(await fsp.readFile(path.join(dir, MANIFEST), 'utf8'));
  } catch {
    return false;
  }
  const files = /** @type {Record<string, number>} */ (manifest.files ?? {});
  if (!Object.keys(files).length) return false;
  for (const [name, size] of Object.entries(files)) {
    const stat = await fsp.stat(path.join(dir, name)).catch(() => null);
    if (!stat || stat.size !== size) return false;
  }
  return true;
}

/**
 * Unpacks the package's brotli files into `dir`, atomically: into a folder of
 * its own beside it, renamed into place once the manifest is written. A
 * damaged folder at `dir` is moved aside and removed; when another process
 * renamed its own unpack into place first, that one is kept.
 * @param {string} binDir the package's bin folder
 * @param {string} dir
 * @param {{ replace?: boolean }} [options] replace: move aside what is at `dir` even when it looks intact
 */
export async function unpack(binDir, dir, { replace = false } = {}) {
  await fsp.mkdir(path.dirname(dir), { recursive: true });
  const work = `${dir}.unpack-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  await fsp.mkdir(work);
  try {
    await pipeline(fs.createReadStream(path.join(binDir, 'chromium.br')), zlib.createBrotliDecompress(), fs.createWriteStream(path.join(work, 'chromium'), { mode: 0o755 }));
    for (const [archive, into] of [['swiftshader.tar.br', '.'], ['al2023.tar.br', '.'], ['fonts.tar.br', '.']]) {
      const file = path.join(binDir, archive);
      if (fs.existsSync(file)) await pipeline(fs.createReadStream(file), zlib.createBrotliDecompress(), tar.extract(path.join(work, into)));
    }
    /** @type {Record<string, number>} */
    const files = {};
    for (const entry of await fsp.readdir(work, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const file = path.join(entry.parentPath, entry.name);
      files[path.relative(work, file)] = (await fsp.stat(file)).size;
    }
    await fsp.writeFile(path.join(work, MANIFEST), `${JSON.stringify({ files }, null, 1)}\n`);
    if (fs.existsSync(dir) && (replace || !(await intact(dir)))) {
      const aside = `${dir}.damaged-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
      await fsp.rename(dir, aside).catch(() => {});
      await fsp.rm(aside, { recursive: true, force: true });
    }
    try {
      await fsp.rename(work, dir);
    } catch (error) {
      // Another build put its unpack in place first (rename onto a non-empty folder fails): use that one.
      const code = /** @type {NodeJS.ErrnoException} */ (error).code;
      if ((code !== 'ENOTEMPTY' && code !== 'EEXIST') || !(await intact(dir))) throw error;
    }
  } finally {
    await fsp.rm(work, { recursive: true, force: true });
  }
}

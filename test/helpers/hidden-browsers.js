/**
 * Runs pagediet as a new user's machine would: every browser installed on
 * this one is covered, in a mount namespace of the child's own, so that only
 * what pagediet brings can be found. Each browser file found is covered by
 * /dev/null and, with `hideEmbedded`, the embedded browser's package by an
 * empty folder; HOME is a fresh folder (no Playwright or Puppeteer cache, a
 * fresh pagediet cache where the embedded browser is unpacked, and a fresh
 * build cache: fits that other tests proved with a browser would otherwise be
 * served without one). Nothing is
 * changed outside the child's namespace. Needs Linux, root, and unshare and
 * mount from util-linux.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { findBrowsers } from '../../src/browser/discovery.js';
import { tempDir } from './tmp.js';

/** Why browsers cannot be hidden here, or null. */
export async function hidingUnavailable() {
  if (process.platform !== 'linux') return 'mount namespaces are Linux only';
  if (process.getuid?.() !== 0) return 'covering files in a mount namespace needs root';
  try {
    await promisify(execFile)('unshare', ['--mount', '--propagation', 'private', 'mount', '--bind', '/dev/null', '/dev/null']);
    return null;
  } catch (error) {
    return `unshare --mount does not work here: ${String(/** @type {Error} */ (error).message).split('\n')[0]}`;
  }
}

/**
 * Runs `node bin/pagediet.js ...args` with every browser of this machine covered.
 * @param {string[]} args
 * @param {{ hideEmbedded?: boolean, home?: string }} [options]
 * @returns {Promise<{ code: number | null, stdout: string, stderr: string, home: string }>}
 */
export async function runWithBrowsersHidden(args, { hideEmbedded = false, home } = {}) {
  home ??= await tempDir('pagediet-home-');
  const empty = await tempDir('pagediet-empty-');
  /** @type {[string, string][]} what covers what */
  const covers = [];
  for (const browser of findBrowsers()) {
    if (browser.source === 'embedded') {
      if (hideEmbedded) covers.push([empty, browser.path]);
    } else if (fs.existsSync(browser.path)) {
      covers.push(['/dev/null', fs.realpathSync(browser.path)]);
    }
  }
  const script = ['set -e', ...covers.map(([from, to]) => `mount --bind ${quote(from)} ${quote(to)}`), 'exec "$@"'].join('\n');
  /** @type {NodeJS.ProcessEnv} */
  const env = { ...process.env, HOME: home, PAGEDIET_BROWSER_CACHE: path.join(home, 'browsers'), PAGEDIET_CACHE_DIR: path.join(home, 'cache'), CI: '', PAGEDIET_DEBUG: '' };
  for (const name of ['PAGEDIET_CHROMIUM', 'PLAYWRIGHT_BROWSERS_PATH', 'PUPPETEER_CACHE_DIR', 'XDG_CACHE_HOME']) delete env[name];
  const child = spawn('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', script, 'sh', process.execPath, path.resolve('bin/pagediet.js'), ...args], { cwd: home, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  const code = await new Promise((resolve) => child.on('close', resolve));
  return { code, stdout, stderr, home };
}

/** @param {string} s */
const quote = (s) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * What the layout of src/ promises (docs/architecture.md):
 * - src/ holds rooms, each named in docs/architecture.md, and the API's entry;
 * - the browser is the build's: no module a pass reaches launches Chromium
 *   (passes get the build's browser through ctx.browser, which
 *   src/browser/build-browser.js starts through src/browser/launch.js);
 * - a pass reaches no other pass and nothing in another pass's room (a room
 *   named for a pass, such as src/svg/, is that pass's);
 * - no file is over 600 lines but ported code that says so in its header.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PASSES } from '../src/passes/index.js';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const ARCHITECTURE = fileURLToPath(new URL('../docs/architecture.md', import.meta.url));
const LINE_LIMIT = 600;

/** A path under src/, with forward slashes. @param {string} file */
const fromSrc = (file) => path.relative(SRC, file).split(path.sep).join('/');

/**
 * The relative imports of a module, static and literal dynamic, as absolute
 * paths. TypeScript's scanner reads them: a specifier in a comment (a JSDoc
 * type) is no import.
 * @param {string} file
 * @param {string} text
 */
function importsOf(file, text) {
  return ts.preProcessFile(text, true, true).importedFiles
    .map((ref) => ref.fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => path.resolve(path.dirname(file), specifier));
}

/**
 * Every module of src/ a set of modules reaches, with its text.
 * @param {string[]} roots absolute paths
 * @returns {Promise<Map<string, string>>}
 */
async function reached(roots) {
  /** @type {Map<string, string>} */
  const seen = new Map();
  const queue = [...roots];
  while (queue.length) {
    const file = /** @type {string} */ (queue.pop());
    if (seen.has(file) || !file.startsWith(SRC)) continue;
    const text = await readFile(file, 'utf8').catch(() => null);
    if (text === null) continue;
    seen.set(file, text);
    queue.push(...importsOf(file, text));
  }
  return seen;
}

/** Every .js file under src/, absolute. @returns {Promise<string[]>} */
async function sourceFiles() {
  const entries = await readdir(SRC, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.js')).map((e) => path.join(e.parentPath, e.name)).sort();
}

const passFile = (/** @type {string} */ name) => path.join(SRC, 'passes', `${name}.js`);

describe('the layout of src/', () => {
  it('has rooms, each named in docs/architecture.md, and the API\'s entry as its one file', async () => {
    const entries = await readdir(SRC, { withFileTypes: true });
    expect(entries.filter((e) => e.isFile()).map((e) => e.name)).toEqual(['index.js']);
    const rooms = entries.filter((e) => e.isDirectory()).map((e) => e.name);
    expect(rooms.length).toBeGreaterThan(10);
    const doc = await readFile(ARCHITECTURE, 'utf8');
    const roomRows = [...doc.matchAll(/^\| `src\/([a-z-]+)\/` \|/gm)].map((m) => m[1]);
    expect(roomRows.sort()).toEqual([...rooms].sort());
  });

  it('has no module a pass reaches launch a browser', async () => {
    const modules = await reached(PASSES.map((pass) => passFile(pass.name)));
    expect(modules.size).toBeGreaterThan(PASSES.length);
    const launchers = [...modules]
      .filter(([file, text]) => fromSrc(file) === 'browser/launch.js' || /\blaunchBrowser\s*\(|\bchromium\.launch\s*\(|from 'playwright(-core)?'/.test(text))
      .map(([file]) => fromSrc(file));
    expect(launchers).toEqual([]);
    // The walk sees what a pass does reach: the build's browser's failure module.
    expect([...modules.keys()].map(fromSrc)).toContain('browser/page-failed.js');
  });

  it('has no pass reach another pass, or a module in another pass\'s room', async () => {
    const names = new Set(PASSES.map((pass) => pass.name));
    /** @type {string[]} */
    const crossings = [];
    for (const pass of PASSES) {
      for (const file of (await reached([passFile(pass.name)])).keys()) {
        const [room, rest] = fromSrc(file).split('/');
        const otherPass = room === 'passes' && rest !== `${pass.name}.js`;
        const otherRoom = names.has(room) && room !== pass.name;
        if (otherPass || otherRoom) crossings.push(`${pass.name} -> ${fromSrc(file)}`);
      }
    }
    expect(crossings).toEqual([]);
    // Rooms named for a pass exist, so the rule above has something to hold.
    const rooms = (await readdir(SRC, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
    expect(rooms.filter((room) => names.has(room)).sort()).toEqual(['fonts', 'scripts', 'svg', 'text-images']);
  });

  it(`has no file over ${LINE_LIMIT} lines but ported code named as such in its header`, async () => {
    /** @type {string[]} */
    const long = [];
    for (const file of await sourceFiles()) {
      const text = await readFile(file, 'utf8');
      const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
      if (lines <= LINE_LIMIT) continue;
      const header = /^\/\*\*[\s\S]*?\*\//.exec(text)?.[0] ?? '';
      long.push(`${fromSrc(file)}${/\bported code\b/i.test(header) ? ' (ported)' : ''}`);
    }
    expect(long).toEqual(['images/ssimulacra2.js (ported)']);
  });
});

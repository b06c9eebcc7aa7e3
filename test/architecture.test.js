/**
 * What the layout of src/ promises (docs/architecture.md): the browser is
 * the build's. No module a pass reaches starts Chromium: passes get the
 * build's browser through ctx.browser, which src/browser/build-browser.js
 * starts, through src/browser/launch.js.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PASSES } from '../src/passes/index.js';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/**
 * The relative imports of a module (static and literal dynamic), as absolute paths.
 * @param {string} file
 * @param {string} text
 */
function importsOf(file, text) {
  const found = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s*)'(\.[^']+)'/gm)].map((m) => m[1]);
  return found.map((specifier) => path.resolve(path.dirname(file), specifier));
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
    // A specifier in a comment names no file (tsc checks the real imports).
    const text = await readFile(file, 'utf8').catch(() => null);
    if (text === null) continue;
    seen.set(file, text);
    queue.push(...importsOf(file, text));
  }
  return seen;
}

describe('the layout of src/', () => {
  it('has no module a pass reaches start a browser but the build\'s browser', async () => {
    const roots = PASSES.map((pass) => path.join(SRC, 'passes', `${pass.name}.js`));
    const modules = await reached(roots);
    expect(modules.size).toBeGreaterThan(PASSES.length);
    const starters = [...modules]
      .filter(([, text]) => /\blaunchBrowser\s*\(|\bchromium\.launch\s*\(/.test(text))
      .map(([file]) => path.relative(SRC, file).split(path.sep).join('/'));
    expect(starters.sort()).toEqual(['browser/build-browser.js', 'browser/launch.js']);
  });
});

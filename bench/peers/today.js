// The files of today's sites beside jampack: fixtures/modern's SVG images
// and icons, scripts and web fonts, as pagediet writes them (its svg,
// scripts and fonts passes, then precompression) and as jampack writes them
// with its defaults, on the same input; every page visited in Chromium at
// 1280x800 (bench/peers/chromium-visit.js), the bytes fetched summed by
// kind of file.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { measure } from './measure.js';
import { JAMPACK_VERSION, installJampack, runJampack, visit } from './chromium-visit.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const INPUT = path.join(ROOT, 'fixtures/modern');
const PAGES = ['index.html', 'blog/index.html', 'blog/first-post.html', 'about/index.html', 'gallery.html'];
const KINDS = ['svg', 'scripts', 'fonts'];

/**
 * Builds both outputs under `work` and returns the figures and a table.
 * @param {string} work
 */
export async function besideJampack(work) {
  const pagedietOut = path.join(work, 'pagediet');
  const passes = 'svg,scripts,fonts,precompress';
  await measure(process.execPath, [path.join(ROOT, 'bin/pagediet.js'), 'build', INPUT, '-o', pagedietOut, '--only', passes, '--no-cache', '--no-report', '--json']);
  const jampackOut = path.join(work, 'jampack');
  fs.cpSync(INPUT, jampackOut, { recursive: true });
  installJampack();
  runJampack(jampackOut);
  /** @type {Record<string, import('./chromium-visit.js').VisitFigures>} */
  const figures = {};
  for (const [name, root] of [['input', INPUT], ['pagediet', pagedietOut], ['jampack', jampackOut]]) figures[name] = (await visit(root, PAGES, [{ width: 1280, height: 800 }]))['1280px'];
  const rows = [`| fixtures/modern, first visit at 1280 px | ${KINDS.join(' | ')} |`, `| --- |${' ---: |'.repeat(KINDS.length)}`];
  for (const [name, f] of Object.entries(figures)) rows.push(`| ${name} | ${KINDS.map((k) => `${f.byKind[k].bytes.toLocaleString('en-US')} B (${f.byKind[k].requests})`).join(' | ')} |`);
  const table = `${rows.join('\n')}\n\nBytes fetched over the 5 pages (requests in parentheses); pagediet with --only ${passes}, jampack ${JAMPACK_VERSION} with its defaults.`;
  return { figures, table };
}

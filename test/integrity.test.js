// Subresource Integrity through a build: an integrity attribute that held on
// the input names the output's bytes of the file it loads (the page keeps its
// style sheet in Chromium), a fingerprinted file whose bytes changed gets a new
// name, and a value that did not hold is left as it was (the browser refuses
// that file before and after).
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { build } from '../src/build/pipeline.js';
import { startServer } from '../src/loader/server.js';
import { linkKind } from '../src/site/reference-kinds.js';
import { chromiumTest, launchChromium } from './helpers/chromium.js';
import { tempDir, writeTree } from './helpers/tmp.js';

/** @param {string} algorithm @param {string | Buffer} bytes */
const sri = (algorithm, bytes) => `${algorithm}-${crypto.createHash(algorithm).update(bytes).digest('base64')}`;

// Style sheets csso makes smaller: each colours one element.
const FINGERPRINTED = '.a {\n  color: rgb(255, 0, 0);\n}\n\n/* a comment */\n';
const PLAIN = '.b {\n  color: rgb(0, 128, 0);\n}\n';
const STALE = '.c {\n  color: rgb(0, 0, 255);\n}\n';

const PAGE = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>pinned</title>
<link crossorigin="anonymous" href="/css/style.3f9a1c2b.css" integrity="${sri('sha384', FINGERPRINTED)}" rel="preload stylesheet" as="style">
<link rel="stylesheet" href="css/plain.css" integrity="${sri('sha256', PLAIN)} ${sri('sha512', PLAIN)}">
<link rel="stylesheet" href="css/stale.css" integrity="sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=">
</head><body><p class="a">a</p><p class="b">b</p><p class="c">c</p></body></html>
`;

/** @type {string} */
let input;
/** @type {string} */
let output;
/** @type {import('../src/build/summary.js').BuildSummary} */
let summary;
/** @type {string} */
let page;

beforeAll(async () => {
  const dir = await tempDir();
  input = path.join(dir, 'in');
  output = path.join(dir, 'out');
  await writeTree(input, { 'index.html': PAGE, 'css/style.3f9a1c2b.css': FINGERPRINTED, 'css/plain.css': PLAIN, 'css/stale.css': STALE });
  summary = await build({ input, output, cache: false, only: ['css', 'hash-names'], configs: false });
  page = await fs.readFile(path.join(output, 'index.html'), 'utf8');
}, 120_000);

/** The href and integrity of each <link> of the output page. */
const links = () => [...page.matchAll(/<link[^>]*?href="([^"]+)"[^>]*?integrity="([^"]+)"|<link[^>]*?integrity="([^"]+)"[^>]*?href="([^"]+)"/g)]
  .map((m) => ({ href: m[1] ?? m[4], integrity: m[2] ?? m[3] }));

describe('Subresource Integrity', () => {
  it('reads rel="preload stylesheet" as a style sheet', () => {
    expect(linkKind('preload stylesheet')).toBe('stylesheet');
    expect(linkKind('stylesheet preload')).toBe('stylesheet');
    expect(linkKind('preload')).toBe('preload');
  });

  it('sets each attribute that held to the hashes of the new bytes, with the same algorithms, and leaves a stale one', async () => {
    const found = links();
    expect(found).toHaveLength(3);
    const [fingerprinted, plain, stale] = found;
    // The fingerprinted sheet changed: it has a new name, and its attribute names the new bytes.
    expect(fingerprinted.href).toMatch(/^\/css\/style\.3f9a1c2b\.[0-9a-f]{8,}\.css$/);
    const fingerprintedBytes = await fs.readFile(path.join(output, fingerprinted.href));
    expect(fingerprintedBytes.length).toBeLessThan(Buffer.byteLength(FINGERPRINTED));
    expect(fingerprinted.integrity).toBe(sri('sha384', fingerprintedBytes));
    // Two algorithms in, the same two out.
    expect(plain.href).toMatch(/^css\/plain\.[0-9a-f]{8,}\.css$/);
    const plainBytes = await fs.readFile(path.join(output, plain.href));
    expect(plainBytes.toString()).not.toBe(PLAIN);
    expect(plain.integrity).toBe(`${sri('sha256', plainBytes)} ${sri('sha512', plainBytes)}`);
    expect(stale.integrity).toBe('sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=');
    expect(summary.warnings.filter((w) => w.code.startsWith('integrity-')).map((w) => `${w.severity} ${w.code} ${w.file}`).sort())
      .toEqual(['info integrity-stale index.html', 'info integrity-updated index.html']);
    // The input is never modified.
    expect(await fs.readFile(path.join(input, 'index.html'), 'utf8')).toBe(PAGE);
  });

  chromiumTest('the page draws with the same style sheets in Chromium before and after', async () => {
    const browser = await launchChromium();
    const servers = await Promise.all([startServer({ root: input }), startServer({ root: output })]);
    try {
      /** @type {string[][]} */
      const colours = [];
      for (const server of servers) {
        const tab = await browser.newPage();
        await tab.goto(`${server.url}/index.html`, { waitUntil: 'load' });
        colours.push(await tab.evaluate(() => [...document.querySelectorAll('p')].map((p) => getComputedStyle(p).color)));
        await tab.close();
      }
      // The stale sheet is refused on both sides: its paragraph keeps the default colour.
      expect(colours[0]).toEqual(['rgb(255, 0, 0)', 'rgb(0, 128, 0)', 'rgb(0, 0, 0)']);
      expect(colours[1]).toEqual(colours[0]);
    } finally {
      await Promise.all(servers.map((s) => s.close()));
      await browser.close();
    }
  }, 120_000);
});


// A page whose script never yields, once it has loaded, cannot hold a build:
// every call into a page has a time limit (PAGE_TIMEOUT_MS, 10 s here through
// the test-only PAGEDIET_TEST_PAGE_TIMEOUT_S), after which the page is closed,
// what the pass would have changed on it is kept with one layout-failed
// warning, and the next page is measured in a new tab.
import fs from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, vi } from 'vitest';
import { chromiumTest } from './helpers/chromium.js';
import { tempDir, writeTree } from './helpers/tmp.js';
import { build } from '../src/build/pipeline.js';
import { PAGE_TIMEOUT_MS } from '../src/browser/page-failed.js';

// Before the imports above (vitest hoists it): the limit is read when page-failed.js loads.
vi.hoisted(() => { process.env.PAGEDIET_TEST_PAGE_TIMEOUT_S = '10'; });

/** A page with one image without width and height; `script` runs in it. @param {string} script */
const page = (script) => `<!DOCTYPE html><html><head><meta charset="utf-8"><title>t</title></head><body><p>text</p><img src="dot.png" alt="a dot"><script>${script}</script></body></html>`;

describe('a page that never yields', () => {
  /** @type {string} */
  let input;
  beforeAll(async () => {
    input = await writeTree(await tempDir(), {
      // After load, the page's script spins for ever: no call into the page can run.
      'hung.html': page("addEventListener('load', () => setTimeout(() => { for (;;) {} }, 0));"),
      'fine.html': page(''),
      'dot.png': await sharp({ create: { width: 40, height: 30, channels: 3, background: '#c03' } }).png().toBuffer(),
    });
  });

  chromiumTest('fails that page alone: kept as it was, one layout-failed message, and the other page is measured', async () => {
    expect(PAGE_TIMEOUT_MS).toBe(10_000);
    const output = path.join(await tempDir(), 'out');
    const summary = await build({ input, output, cache: false, only: ['image-markup'], configs: false });
    expect(await fs.readFile(path.join(output, 'hung.html'), 'utf8')).toBe(await fs.readFile(path.join(input, 'hung.html'), 'utf8'));
    expect(await fs.readFile(path.join(output, 'fine.html'), 'utf8')).toContain('<img src="dot.png" alt="a dot" width="40" height="30"');
    expect(summary.warnings.map((w) => `${w.severity} ${w.code} ${w.file}`)).toEqual(['error layout-failed hung.html']);
    expect(summary.warnings[0].message).toMatch(/had not ended after 10 s/);
  }, 300_000);
});

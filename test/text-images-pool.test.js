// text-images on a site whose pages are worth the worker pool (1 MB or more): the plans and the replacements' CSS
// are made in the pool; what it writes is what the build's own thread writes for a small site.
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { build } from '../src/build/pipeline.js';
import { POOL_WORTHWHILE_BYTES } from '../src/util/pool.js';
import { Site } from '../src/site/site.js';
import { tempDir, writeTree } from './helpers/tmp.js';

const NAV = path.resolve('fixtures/microscape/images/nav');
const FILLER = '<p>Words of the page, enough of them to make its pages worth the pool.</p>\n'.repeat(620);

/** @param {number} i */
const page = (i) => `<!DOCTYPE html><html><head><title>Page ${i}</title></head>\n<body><a href="page-${i + 1}.html"><img src="news.gif" width=60 height=20 border=0 alt=News></a> <img src="products.gif" width=71 height=20 border=0 alt=Products>\n${FILLER}</body></html>\n`;

/** @param {number} pages */
async function site(pages) {
  const dir = await tempDir();
  /** @type {Record<string, string | Buffer>} */
  const files = { 'news.gif': await fs.readFile(path.join(NAV, 'news.gif')), 'products.gif': await fs.readFile(path.join(NAV, 'products.gif')) };
  for (let i = 0; i < pages; i++) files[`page-${i}.html`] = page(i);
  await writeTree(path.join(dir, 'in'), files);
  return dir;
}

describe('text-images on pages worth the worker pool', () => {
  it('writes each page as on a small site, and the site model reads the pages it wrote', async () => {
    const small = await site(1);
    const large = await site(25);
    expect(Buffer.byteLength(page(0)) * 25).toBeGreaterThanOrEqual(POOL_WORTHWHILE_BYTES);
    expect(Buffer.byteLength(page(0))).toBeLessThan(POOL_WORTHWHILE_BYTES);
    const one = await build({ input: path.join(small, 'in'), output: path.join(small, 'out'), only: ['text-images'], cache: false });
    const many = await build({ input: path.join(large, 'in'), output: path.join(large, 'out'), only: ['text-images'], cache: false });
    expect(one.passes[0].decisions.filter((d) => d.action === 'changed').map((d) => d.file).sort()).toEqual(['news.gif', 'products.gif']);
    expect(many.passes[0].decisions.filter((d) => d.action === 'changed').map((d) => d.file).sort()).toEqual(['news.gif', 'products.gif']);
    // The two plans and the pages' CSS, minified once (every page has the same rules), in the pool; the <img>s are
    // read from their tags and the written pages' references moved, without parsing a page.
    expect(many.work.jobs).toBe(2 + 1);
    expect(one.work.jobs).toBe(2);
    const written = await fs.readFile(path.join(small, 'out', 'page-0.html'), 'utf8');
    expect(written).toMatch(/^<!DOCTYPE html><html><head><title>Page 0<\/title><style>\.pd1,\.pd2\{display:inline-block;[^<]+\}<\/style><\/head>\n<body><a href="page-1\.html"><span class=pd1>News<\/span><\/a> <span class=pd2>Products<\/span>\n/);
    for (let i = 0; i < 25; i++) {
      const text = await fs.readFile(path.join(large, 'out', `page-${i}.html`), 'utf8');
      expect(text).toBe(written.replace('Page 0', `Page ${i}`).replace('page-1.html', `page-${i + 1}.html`));
    }
    // The model built from what was written has each page's one link and no image.
    const read = await Site.read(path.join(large, 'out'));
    for (let i = 0; i < 25; i++) expect(read.get(`page-${i}.html`).references.map((r) => `${r.kind} ${r.url}`)).toEqual([`anchor page-${i + 1}.html`]);
  }, 180_000);
});

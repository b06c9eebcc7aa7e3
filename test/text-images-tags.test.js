/**
 * text-images reads an <img> from its start tag alone (imageOfTag), located
 * by the site model's reference, and the head's end from the page findings:
 * both as a parse of the whole page (pageImages) finds them, on the fixtures
 * and on generated pages (fuzz, fixed seed); and the references the site
 * model moves when those images become <span>s are what a parse finds.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../scripts/fixtures/random.js';
import { DocumentView } from '../src/site/document-view.js';
import { applyEdits } from '../src/site/edits.js';
import { headEnd, parsePage } from '../src/site/html-tree.js';
import { Site } from '../src/site/site.js';
import { imageOfTag, pageImages } from '../src/text-images/elements.js';
import { tempDir, writeTree } from './helpers/tmp.js';

/** The fuzz's seed, printed so that a failure can be run again. */
const SEED = 20261127;

/**
 * Every <img src> of the site's pages read from its tag, against the page's parse; the head's end against it too.
 * @param {Site} site
 * @returns {Promise<number>} the images compared
 */
async function compareSite(site) {
  let compared = 0;
  for (const page of site.pages) {
    const bytes = await site.read(page.path);
    const parsed = pageImages(bytes, /** @type {string} */ (page.charset), page.bomLength);
    const view = new DocumentView(bytes, /** @type {string} */ (page.charset), page.bomLength);
    expect(page.headEnd, page.path).toBe(headEnd(parsePage(view), view));
    for (const ref of page.references) {
      if (ref.kind !== 'img' || ref.tagStart === undefined || ref.tagEnd === undefined) continue;
      const whole = parsed.images.find((image) => image.srcStart === ref.start);
      expect(imageOfTag(bytes, /** @type {string} */ (page.charset), { ...ref, tagStart: ref.tagStart, tagEnd: ref.tagEnd }), `${page.path} at ${ref.start}`).toEqual(whole);
      compared++;
    }
  }
  return compared;
}

describe('an <img> read from its start tag', () => {
  for (const fixture of ['microscape', 'ricochet', 'markup', 'bad', 'modern']) {
    it(`is the <img> the page's parse finds, and the head ends where it says (fixtures/${fixture})`, async () => {
      const site = await Site.read(new URL(`../fixtures/${fixture}`, import.meta.url).pathname);
      expect(await compareSite(site)).toBeGreaterThan(0);
    });
  }

  it(`is the <img> the page's parse finds on pages of odd tags and places (fuzz, seed ${SEED})`, async () => {
    console.log(`image tag fuzz: seed ${SEED}`);
    const rng = new Rng(SEED);
    const attributes = [
      'alt="Home"', "alt='Go &amp; see'", 'alt=Next', 'ALT="Upper"', 'width=88', 'height="31"', 'title="a > b"', 'border=0',
      'alt="&eacute;t&eacute;"', 'alt="caf\u00e9"', 'alt', 'alt=""', 'align=middle', 'hspace=2', 'alt="one"', 'src="x.gif"',
      'data-x="<img src=y.gif>"', 'style="color:red"', 'class=icon', 'alt="line\nbreak"',
    ];
    const wrappers = [['', ''], ['<p>', '</p>'], ['<table><tr><td>', '</td></tr></table>'], ['<table>', '</table>'], ['<picture>', '</picture>'],
      ['<a href=x.html>', '</a>'], ['<svg><foreignObject>', '</foreignObject></svg>'], ['<form>', '</form>'], ['<center><font size=2>', '</font></center>']];
    /** @type {Record<string, string>} */
    const files = { 'a.gif': 'GIF89a', 'b.gif': 'GIF89a' };
    for (let n = 0; n < 60; n++) {
      const head = rng.pick(['<head><title>t</title></head>', '<head><title>t</title>', '<title>t</title>', '', '<head></head>', '<HEAD><meta charset=utf-8></HEAD>']);
      let body = '';
      for (let i = rng.int(1, 6); i > 0; i--) {
        const picked = [];
        for (let k = rng.int(0, 4); k > 0; k--) picked.push(rng.pick(attributes));
        const name = rng.pick(['img', 'IMG', 'image', 'img']);
        const src = rng.pick(['src="a.gif"', "src='b.gif'", 'src=a.gif', 'SRC = "b.gif"']);
        const order = rng.chance(0.5) ? [src, ...picked] : [...picked, src];
        const [open, close] = rng.pick(wrappers);
        body += `${open}<${name}${rng.pick([' ', '\n', '  '])}${order.join(rng.pick([' ', '\n', '\t']))}${rng.pick(['', '/', ' /'])}>${close}`;
      }
      files[`p${n}.html`] = `<!doctype html><html>${head}<body>${body}</body></html>`;
    }
    const dir = await tempDir();
    await writeTree(dir, files);
    const site = await Site.read(dir);
    expect(await compareSite(site)).toBeGreaterThan(100);
    // The same pages with every <img> made a <span> and a <style> added where the head ends, as text-images writes
    // them: the references the site model moves are those a parse of the new bytes finds.
    for (const page of site.pages) {
      const edits = page.references.filter((r) => r.kind === 'img' && r.tagStart !== undefined)
        .map((r, i) => ({ start: /** @type {number} */ (r.tagStart), end: /** @type {number} */ (r.tagEnd), bytes: Buffer.from(`<span class=pd${i}>x</span>`) }));
      const at = page.headEnd ?? Math.min(...edits.map((e) => e.start));
      edits.push({ start: at, end: at, bytes: Buffer.from('<style>.pd0{color:red}</style>') });
      expect(await site.writeReplacedImages(page.path, applyEdits(await site.read(page.path), edits), edits), page.path).toBe(true);
    }
    const held = site.pages.map((page) => ({ references: page.references, headEnd: page.headEnd }));
    for (const page of site.pages) await site.parse(page);
    expect(held).toEqual(site.pages.map((page) => ({ references: page.references, headEnd: page.headEnd })));
  });
});

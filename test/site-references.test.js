import { describe, expect, it } from 'vitest';
import { Site } from '../src/site/site.js';
import { tempDir, writeTree } from './helpers/tmp.js';

const GIF = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1');

/** The bytes of the source at a reference's range. */
async function slice(site, ref) {
  return (await site.read(ref.source)).subarray(ref.start, ref.end).toString('latin1');
}

async function siteOf(files) {
  return Site.read(await writeTree(await tempDir(), files));
}

describe('HTML references', () => {
  const page = [
    '<!DOCTYPE html><html><head>',
    '<link rel="stylesheet" href="css/a.css">',
    '<link rel="shortcut icon" href=favicon.ico>',
    '<link rel=preload href="f.woff2" as=font>',
    '<link rel="alternate stylesheet" href="alt.css">',
    "<script src='js/app.js'></script>",
    '<style>@import "css/b.css"; body { background: url( img/style-bg.gif ) }</style>',
    '</head><BODY BACKGROUND="img/body.gif">',
    '<TABLE BACKGROUND=img/table.gif><TR><TD BACKGROUND="img/td.gif">x</TD><TH background="img/th.gif">y</TH></TR></TABLE>',
    '<IMG SRC="img/a.gif" SRCSET="img/a-1.gif 1x,img/a-2.gif 2x">',
    '<picture><source srcset="img/p.webp 1x, img/p2.webp 2x" type="image/webp"><img src="img/p.gif"></picture>',
    '<form><INPUT TYPE=image SRC="img/go.gif"></form>',
    '<p style="background:url(&quot;img/attr.gif&quot;)">x</p>',
    '<video poster="img/poster.gif"><source src="v.mp4"></video>',
    '<object data="img/o.svg"></object><embed src="img/e.svg">',
    '<iframe src="frame.html"></iframe><a href="other.html#top">link</a>',
    '<svg><use href="img/sprite.svg#cup"></use><use xlink:href="img/sprite.svg#bean"/><use href="#local"/><image xlink:href="img/photo.gif" width="9" height="9"/></svg>',
    '</BODY></html>',
  ].join('\n');
  const files = {
    'index.html': page,
    'css/a.css': 'p { background: url("../img/css-bg.gif") } @import url(c.css);',
    'css/b.css': '',
    'css/c.css': '',
    'alt.css': '',
    'favicon.ico': 'ico',
    'f.woff2': 'font',
    'js/app.js': '',
    'v.mp4': '',
    'frame.html': '<p>frame</p>',
    'other.html': '<p>other</p>',
    ...Object.fromEntries(['style-bg', 'body', 'table', 'td', 'th', 'a', 'a-1', 'a-2', 'p', 'go', 'attr', 'poster', 'css-bg'].map((n) => [`img/${n}.gif`, GIF])),
    'img/p.webp': 'w', 'img/p2.webp': 'w', 'img/o.svg': '<svg/>', 'img/e.svg': '<svg/>', 'img/sprite.svg': '<svg/>', 'img/photo.gif': GIF,
  };

  it('finds every kind with the exact byte range of its URL', async () => {
    const site = await siteOf(files);
    const refs = site.get('index.html').references;
    const seen = await Promise.all(refs.map(async (r) => [r.kind, await slice(site, r), r.status, r.target ?? null]));
    expect(seen).toEqual([
      ['stylesheet', 'css/a.css', 'ok', 'css/a.css'],
      ['icon', 'favicon.ico', 'ok', 'favicon.ico'],
      ['preload', 'f.woff2', 'ok', 'f.woff2'],
      ['link', 'alt.css', 'ok', 'alt.css'],
      ['script', 'js/app.js', 'ok', 'js/app.js'],
      ['css-import', 'css/b.css', 'ok', 'css/b.css'],
      ['style-element-url', 'img/style-bg.gif', 'ok', 'img/style-bg.gif'],
      ['background', 'img/body.gif', 'ok', 'img/body.gif'],
      ['background', 'img/table.gif', 'ok', 'img/table.gif'],
      ['background', 'img/td.gif', 'ok', 'img/td.gif'],
      ['background', 'img/th.gif', 'ok', 'img/th.gif'],
      ['img', 'img/a.gif', 'ok', 'img/a.gif'],
      ['srcset', 'img/a-1.gif', 'ok', 'img/a-1.gif'],
      ['srcset', 'img/a-2.gif', 'ok', 'img/a-2.gif'],
      ['picture-source', 'img/p.webp', 'ok', 'img/p.webp'],
      ['picture-source', 'img/p2.webp', 'ok', 'img/p2.webp'],
      ['img', 'img/p.gif', 'ok', 'img/p.gif'],
      ['input-image', 'img/go.gif', 'ok', 'img/go.gif'],
      ['style-attribute-url', 'img/attr.gif', 'ok', 'img/attr.gif'],
      ['poster', 'img/poster.gif', 'ok', 'img/poster.gif'],
      ['media', 'v.mp4', 'ok', 'v.mp4'],
      ['object', 'img/o.svg', 'ok', 'img/o.svg'],
      ['embed', 'img/e.svg', 'ok', 'img/e.svg'],
      ['iframe', 'frame.html', 'ok', 'frame.html'],
      ['anchor', 'other.html#top', 'ok', 'other.html'],
      ['svg-href', 'img/sprite.svg#cup', 'ok', 'img/sprite.svg'],
      ['svg-href', 'img/sprite.svg#bean', 'ok', 'img/sprite.svg'],
      ['svg-href', '#local', 'fragment', null],
      ['svg-href', 'img/photo.gif', 'ok', 'img/photo.gif'],
    ]);
    // Byte offsets, not just slices: the first reference sits right after `<link rel="stylesheet" href="`.
    const first = refs[0];
    expect(first.start).toBe(page.indexOf('css/a.css'));
    expect(first.end).toBe(page.indexOf('css/a.css') + 'css/a.css'.length);
  });

  it('reads url() and @import in style sheets, relative to the style sheet', async () => {
    const site = await siteOf(files);
    const css = site.get('css/a.css');
    expect(css.role).toBe('stylesheet');
    expect(await Promise.all(css.references.map(async (r) => [r.kind, await slice(site, r), r.target]))).toEqual([
      ['css-url', '../img/css-bg.gif', 'img/css-bg.gif'],
      ['css-import', 'c.css', 'css/c.css'],
    ]);
    expect(site.get('css/c.css').role).toBe('stylesheet');
  });

  it('decodes entities and CSS escapes in the URL while keeping the raw range', async () => {
    const site = await siteOf({
      'index.html': '<img src="a&amp;b.gif"><p style="background:url(c\\ d.gif)"></p>',
      'a&b.gif': GIF,
      'c d.gif': GIF,
    });
    const [img, styled] = site.get('index.html').references;
    expect([img.url, await slice(site, img), img.target]).toEqual(['a&b.gif', 'a&amp;b.gif', 'a&b.gif']);
    expect([styled.url, await slice(site, styled), styled.target]).toEqual(['c d.gif', 'c\\ d.gif', 'c d.gif']);
  });

  it('ignores URLs in comments, scripts and text', async () => {
    const site = await siteOf({
      'index.html': '<!-- <img src="no1.gif"> --><script>var s = "<img src=no2.gif>";</script><p>url(no3.gif)</p><style>/* url(no4.gif) */</style><textarea><img src="no5.gif"></textarea>',
    });
    expect(site.get('index.html').references).toEqual([]);
  });
});

describe('resolution', () => {
  it('resolves relative, root-relative and same-site absolute URLs and honours <base href>', async () => {
    const dir = await writeTree(await tempDir(), {
      'sub/page.html': '<img src="../a.gif"><img src="/a.gif"><img src="https://www.example.com/a.gif?x=1#f"><img src="//www.example.com/a.gif"><img src="http://elsewhere.org/a.gif"><img src="data:image/gif;base64,R0lG">',
      'based/page.html': '<base href="/sub/"><img src="x.gif">',
      'a.gif': GIF,
      'sub/x.gif': GIF,
    });
    const site = await Site.read(dir, { origins: ['https://www.example.com'] });
    expect(site.get('sub/page.html').references.map((r) => [r.status, r.target ?? null])).toEqual([
      ['ok', 'a.gif'], ['ok', 'a.gif'], ['ok', 'a.gif'], ['ok', 'a.gif'], ['external', null], ['inline', null],
    ]);
    expect(site.get('based/page.html').references.filter((r) => r.kind === 'img').map((r) => r.target)).toEqual(['sub/x.gif']);
  });

  it('resolves extensionless sources to the one file that matches, and says when several do', async () => {
    const site = await siteOf({
      'Icons/page.html': '<IMG SRC="../Icons/bullet"><IMG SRC="arrow"><IMG SRC="dot">',
      'Icons/bullet.gif': GIF,
      'Icons/arrow.gif': GIF,
      'Icons/arrow.png': 'png',
      'Icons/dot.x.gif': GIF,
    });
    const refs = site.get('Icons/page.html').references;
    expect(refs.map((r) => [r.status, r.target ?? null, r.via ?? null])).toEqual([
      ['ok', 'Icons/bullet.gif', 'extensionless'],
      ['ok', 'Icons/arrow.gif', 'extensionless'],
      ['missing', null, null],
    ]);
    expect(refs[1].note).toBe('chose arrow.gif of arrow.gif, arrow.png');
  });

  it('reports a missing file, and a name that differs only in case', async () => {
    const site = await siteOf({ 'index.html': '<img src="gone.gif"><img src="Logo.GIF">', 'logo.gif': GIF });
    const refs = site.get('index.html').references;
    expect(refs.map((r) => [r.status, r.note ?? null])).toEqual([['missing', null], ['missing', 'differs only in case from logo.gif']]);
  });
});

describe('references kept without a parse', () => {
  /**
   * Each page's references and head's end as the site model holds them, then as a parse of its current bytes finds them.
   * @param {Site} site
   */
  async function heldAndParsed(site) {
    const of = (/** @type {import('../src/site/site.js').SiteFile} */ page) => ({ references: page.references, headEnd: page.headEnd });
    const held = site.pages.map(of);
    for (const page of site.pages) await site.parse(page);
    return { held, parsed: site.pages.map(of) };
  }

  for (const fixture of ['microscape', 'ricochet', 'markup', 'bad']) {
    it(`fixtures/${fixture}: pointing every image at a new file moves the references as a parse finds them`, async () => {
      const site = await Site.read(new URL(`../fixtures/${fixture}`, import.meta.url).pathname);
      /** @type {Map<string, string>} */
      const mapping = new Map();
      for (const file of [...site.files.values()]) {
        if (!/\.(gif|png|jpe?g)$/i.test(file.path)) continue;
        // Names of other lengths, in the same and in other folders, and one a browser would decode (a parse is needed).
        const target = mapping.size % 3 === 0 ? `${file.path}.converted.png` : mapping.size % 3 === 1 ? `moved/${file.path.replace(/\//g, '-')}.png` : `${file.path} copy.png`;
        await site.add(target, GIF);
        mapping.set(file.path, target);
      }
      expect(mapping.size).toBeGreaterThan(0);
      const counts = await site.retargetAll(mapping);
      expect([...counts.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
      const { held, parsed } = await heldAndParsed(site);
      expect(held).toEqual(parsed);
    });
  }

  for (const fixture of ['microscape', 'ricochet', 'markup', 'bad', 'modern']) {
    it(`fixtures/${fixture}: every <img> made a <span> (or removed) and a <style> added to the head moves the references as a parse finds them`, async () => {
      const site = await Site.read(new URL(`../fixtures/${fixture}`, import.meta.url).pathname);
      let pages = 0;
      let moved = 0;
      for (const [n, page] of site.pages.entries()) {
        const tags = page.references.filter((r) => r.kind === 'img' && r.tagStart !== undefined);
        if (!tags.length || /^utf-16/.test(/** @type {string} */ (page.charset))) continue;
        const edits = tags.map((r, i) => ({ start: /** @type {number} */ (r.tagStart), end: /** @type {number} */ (r.tagEnd), bytes: Buffer.from(i % 3 === 2 ? '' : `<span class=pd${i}>T&amp;${i}</span>`) }));
        const at = page.headEnd ?? Math.min(...edits.map((e) => e.start));
        if (n % 2 === 0) edits.push({ start: at, end: at, bytes: Buffer.from('<style>.pd0{color:red}</style>') });
        const { applyEdits } = await import('../src/site/edits.js');
        if (await site.writeReplacedImages(page.path, applyEdits(await site.read(page.path), edits), edits)) moved++;
        pages++;
      }
      // Every page moved its references without a parse.
      expect(pages).toBeGreaterThan(0);
      expect(moved).toBe(pages);
      const { held, parsed } = await heldAndParsed(site);
      expect(held).toEqual(parsed);
    });
  }

  it('a page whose names changed case keeps its references', async () => {
    const { nameRanges, recase } = await import('../src/markup/names.js');
    const { DocumentView } = await import('../src/site/document-view.js');
    const site = await Site.read(new URL('../fixtures/microscape', import.meta.url).pathname);
    for (const page of site.pages) {
      const view = new DocumentView(await site.read(page.path), /** @type {string} */ (page.charset), page.bomLength);
      const lowered = recase(view, await nameRanges(view), 'lower');
      expect(lowered.changed).toBeGreaterThan(0);
      await site.writeSameReferences(page.path, lowered.bytes);
    }
    const { held, parsed } = await heldAndParsed(site);
    expect(held).toEqual(parsed);
  });
});

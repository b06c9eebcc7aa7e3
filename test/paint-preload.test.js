/**
 * The preloads image-markup writes for a largest contentful paint drawn as
 * a CSS background: what each layer of a computed background-image asks
 * for, the widths each preload is for, the link's markup, the references
 * the site model and the robot find in it, and the Link headers of
 * `_headers`.
 */
import { describe, expect, test } from 'vitest';
import { MAX_PRELOADS, offerOf, paintPreloads, preloadLink, topLevelList } from '../src/images/paint-preload.js';
import { chosenReferences, mediaHolds } from '../src/site/image-choice.js';
import { preloadHeaders } from '../src/configs/page-preloads.js';
import { headersConfig } from '../src/configs/headers.js';
import { siteFacts } from '../src/configs/shared.js';
import { DocumentView } from '../src/site/document-view.js';
import { htmlReferences } from '../src/site/html-refs.js';

const O = 'http://pagediet.invalid';

describe('offerOf', () => {
  test('a plain url() is one 1x candidate of no type', () => {
    expect(offerOf(`url("${O}/img/a.jpg")`)).toEqual({ type: '', candidates: [[`${O}/img/a.jpg`, 1]] });
  });
  test('an image-set() gives its first type, its resolutions ascending', () => {
    const set = `image-set(url("${O}/a-2.avif") 2x type("image/avif"), url("${O}/a.avif") 1x type("image/avif"), url("${O}/a.jpg") 1x type("image/jpeg"))`;
    expect(offerOf(set)).toEqual({ type: 'image/avif', candidates: [[`${O}/a.avif`, 1], [`${O}/a-2.avif`, 2]] });
    expect(offerOf(`-webkit-image-set("${O}/a.png" 1x, "${O}/b.png" 2dppx)`)).toEqual({ type: '', candidates: [[`${O}/a.png`, 1], [`${O}/b.png`, 2]] });
  });
  test('a gradient, none, or an option it does not read is no offer', () => {
    expect(offerOf('linear-gradient(red, blue)')).toBeNull();
    expect(offerOf('none')).toBeNull();
    expect(offerOf(`image-set(linear-gradient(red, blue) 1x, url("${O}/a.png") 2x)`)).toBeNull();
  });
  test('layers split at top-level commas only, quotes and brackets kept whole', () => {
    expect(topLevelList(`linear-gradient(rgba(0, 0, 0, 0.5), red), url("${O}/a,b.jpg")`)).toEqual(['linear-gradient(rgba(0, 0, 0, 0.5), red)', `url("${O}/a,b.jpg")`]);
  });
});

describe('paintPreloads', () => {
  const small = `url("${O}/small.png")`;
  const large = `url("${O}/large.png")`;
  const measured = [360, 767, 768, 1024, 1280, 1920].map((viewport) => ({ viewport, background: `linear-gradient(red, blue), ${viewport < 768 ? small : large}` }));

  test('one preload per run of widths that asks for the same file, for every run the widths painted reach', () => {
    expect(paintPreloads(measured, `${O}/small.png`, [360, 1280])).toEqual([
      { offer: { type: '', candidates: [[`${O}/small.png`, 1]] }, from: null, below: 768 },
      { offer: { type: '', candidates: [[`${O}/large.png`, 1]] }, from: 768, below: null },
    ]);
    const third = measured.map((m) => (m.viewport === 1920 ? { ...m, background: `linear-gradient(red, blue), url("${O}/huge.png")` } : m));
    expect(paintPreloads(third, `${O}/small.png`, [360, 1280]).map((p) => [p.from, p.below])).toEqual([[null, 768], [768, 1920]]);
    expect(paintPreloads(third, `${O}/small.png`, [360, 1280], { andWider: true }).map((p) => [p.from, p.below])).toEqual([[null, 768], [768, 1920], [1920, null]]);
  });
  test('andWider: the widest width painted stands for every wider one', () => {
    expect(paintPreloads(measured, `${O}/large.png`, [1280], { andWider: true })).toEqual([
      { offer: { type: '', candidates: [[`${O}/large.png`, 1]] }, from: 768, below: null },
    ]);
  });
  test('painted at the narrowest width only: every narrower width too, and no wider run', () => {
    expect(paintPreloads(measured, `${O}/small.png`, [360])).toEqual([
      { offer: { type: '', candidates: [[`${O}/small.png`, 1]] }, from: null, below: 768 },
    ]);
  });
  test('none where a run between has no image, or more than MAX_PRELOADS runs are needed', () => {
    const gap = measured.map((m) => (m.viewport === 1024 ? { ...m, background: 'linear-gradient(red, blue), none' } : m));
    expect(paintPreloads(gap, `${O}/small.png`, [360, 1280])).toEqual([]);
    const changing = Array.from({ length: MAX_PRELOADS + 1 }, (_, i) => ({ viewport: 360 + i, background: `url("${O}/${i}.png")` }));
    expect(paintPreloads(changing, `${O}/0.png`, [360], { andWider: true })).toEqual([]);
  });
  test('none when the painted image is in no layer', () => {
    expect(paintPreloads(measured, `${O}/other.png`, [360])).toEqual([]);
  });
});

describe('preloadLink', () => {
  test('relative to the page, with imagesrcset, type and media where they apply, escaped', () => {
    const offer = { type: 'image/avif', candidates: /** @type {[string, number][]} */ ([[`${O}/img/sky%20blue-1024w.avif?v=1&x=2`, 1], [`${O}/img/sky%20blue.avif`, 2]]) };
    expect(preloadLink({ offer, from: 768, below: 1025 }, 'blog/post.html', O)).toEqual({
      html: '<link rel="preload" as="image" href="../img/sky%20blue-1024w.avif?v=1&amp;x=2" imagesrcset="../img/sky%20blue-1024w.avif?v=1&amp;x=2 1x, ../img/sky%20blue.avif 2x" type="image/avif" media="(width >= 768px) and (width < 1025px)" fetchpriority="high">',
      targets: ['img/sky blue-1024w.avif', 'img/sky blue.avif'],
    });
    expect(preloadLink({ offer: { type: '', candidates: [[`${O}/hero.jpg`, 1]] }, from: null, below: null }, 'index.html', O)?.html)
      .toBe('<link rel="preload" as="image" href="hero.jpg" fetchpriority="high">');
  });
  test('none for an image from another origin', () => {
    expect(preloadLink({ offer: { type: '', candidates: [['https://cdn.example/hero.jpg', 1]] }, from: null, below: null }, 'index.html', O)).toBeNull();
  });
  test('the robot evaluates the media it writes', () => {
    expect([mediaHolds('(width < 1025px)'), mediaHolds('(width >= 1025px)'), mediaHolds('(width >= 768px) and (width < 1281px)'), mediaHolds('(width > 1280px)')]).toEqual([false, true, true, false]);
  });
});

const PRELOADS = '<!doctype html><html><head><title>p</title>'
  + '<link rel="preload" as="image" href="../img/a-1024w.avif?v=1&amp;x=2" imagesrcset="../img/a-1024w.avif?v=1&amp;x=2 1x, ../img/a.avif 2x" type="image/avif" media="(width < 1025px)" fetchpriority="high">'
  + '<link rel="preload" as="image" href="../img/a-1280w.avif" type="image/avif" media="(width >= 1025px)" fetchpriority="high">'
  + '<link rel="preload" as="image" href="https://cdn.example/b.jpg">'
  + '<link rel="preload" as="font" href="../f.woff2" crossorigin>'
  + '</head><body><link rel="preload" as="image" href="../late.jpg"></body></html>';

describe('a page\'s preloads', () => {
  test('the site model finds the href and every imagesrcset candidate; the robot takes the href whose media holds at 1280 px', () => {
    const view = new DocumentView(Buffer.from(PRELOADS), 'utf-8');
    const refs = htmlReferences(view).references.filter((r) => r.kind === 'preload');
    expect(refs.map((r) => [r.url, r.attribute, r.media ?? false])).toEqual([
      ['../img/a-1024w.avif?v=1&x=2', 'href', true],
      ['../img/a-1024w.avif?v=1&x=2', 'imagesrcset', true],
      ['../img/a.avif', 'imagesrcset', true],
      ['../img/a-1280w.avif', 'href', false],
      ['https://cdn.example/b.jpg', 'href', false],
      ['../f.woff2', 'href', false],
      ['../late.jpg', 'href', false],
    ]);
    expect(chosenReferences(refs).map((r) => r.url)).toEqual(['../img/a-1280w.avif', 'https://cdn.example/b.jpg', '../f.woff2', '../late.jpg']);
    // A type the robot's browser does not show is passed over as a browser passes it over.
    const jxl = htmlReferences(new DocumentView(Buffer.from('<link rel="preload" as="image" href="a.jxl" type="image/jxl"><link rel="preload" as="font" href="f.woff2" type="font/woff2">'), 'utf-8')).references;
    expect(jxl.map((r) => r.media ?? false)).toEqual([true, false]);
  });

  test('as Link headers: the head\'s image and font preloads, their URLs as absolute paths, parameters quoted', () => {
    expect(preloadHeaders(Buffer.from(PRELOADS), 'blog/post.html')).toEqual([
      '</img/a-1024w.avif?v=1&x=2>; rel=preload; as=image; imagesrcset="/img/a-1024w.avif?v=1&x=2 1x, /img/a.avif 2x"; type="image/avif"; media="(width < 1025px)"; fetchpriority="high"',
      '</img/a-1280w.avif>; rel=preload; as=image; type="image/avif"; media="(width >= 1025px)"; fetchpriority="high"',
      '</f.woff2>; rel=preload; as=font; crossorigin',
    ]);
    // A <base href> moves the URLs: none is sent.
    expect(preloadHeaders(Buffer.from(PRELOADS.replace('<title>', '<base href="/x/"><title>')), 'blog/post.html')).toEqual([]);
    expect(preloadHeaders(Buffer.from('<!doctype html><title>none</title><p>preload'), 'index.html')).toEqual([]);
  });

  test('_headers sends them with the page, at its URL and its folder\'s', () => {
    const preloads = new Map([['blog/index.html', ['</img/a.avif>; rel=preload; as=image; type="image/avif"']]]);
    expect(headersConfig(siteFacts(['blog/index.html', 'index.html'], [], preloads)).split('\n').filter((l) => !l.startsWith('#'))).toEqual([
      '/blog/',
      '  Cache-Control: no-cache',
      '  Link: </img/a.avif>; rel=preload; as=image; type="image/avif"',
      '/blog/index.html',
      '  Cache-Control: no-cache',
      '  Link: </img/a.avif>; rel=preload; as=image; type="image/avif"',
      '/',
      '  Cache-Control: no-cache',
      '/index.html',
      '  Cache-Control: no-cache',
      '',
    ]);
  });
});

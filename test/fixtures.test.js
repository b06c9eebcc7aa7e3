// The generated test sites: deterministic, up to date with the committed
// fixtures/, and composed as the papers describe. Generates everything twice
// into temporary directories (about 20 s in all).
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as cheerio from 'cheerio';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFixtures } from '../scripts/make-fixtures.js';

const COMMITTED = fileURLToPath(new URL('../fixtures/', import.meta.url));
const SITES = ['microscape', 'ricochet', 'h2-sample', 'modern'];
const KB = 1024;

/**
 * @typedef {object} ManifestFile
 * @property {string} path
 * @property {number} bytes
 * @property {string} sha256
 * @property {string} kind
 * @property {boolean} [subresource]
 * @property {string} [url]
 * @property {number} [uses]
 * @property {number} [width]
 * @property {number} [height]
 * @property {number} [frames]
 * @property {string | null} [text]
 * @property {string | null} [alt]
 * @property {boolean} [replaceable]
 * @property {{ family: string, size: number, weight: string, style: string }} [font]
 * @property {string} [colour]
 * @property {string | null} [background]
 */
/** @typedef {{ files: ManifestFile[] }} Manifest */
/** @typedef {{ path: string, bytes: number, gif: ReturnType<typeof walkGif> }} GifFile */

/** @type {string} */
let first;
/** @type {string} */
let second;

/**
 * Every file under dir, as '/'-separated relative paths, sorted.
 * @param {string} dir
 * @returns {Promise<string[]>}
 */
async function listFiles(dir) {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => posix.join(...join(e.parentPath, e.name).slice(dir.length).split(/[\\/]/).filter(Boolean)))
    .sort();
}

/**
 * Files written by the generator: the site directories and manifests.
 * @param {string} root
 * @returns {Promise<string[]>}
 */
async function generatedFiles(root) {
  const out = [];
  for (const site of SITES) {
    out.push(`${site}.json`);
    for (const f of await listFiles(join(root, site))) out.push(`${site}/${f}`);
  }
  return out.sort();
}

/**
 * Count the images in a GIF by walking its blocks (independent of omggif).
 * @param {Buffer} buf
 * @returns {{ frames: number, disposals: number[], localPalettes: number, transparent: boolean, loop: boolean }}
 */
function walkGif(buf) {
  const sig = buf.subarray(0, 6).toString('latin1');
  if (sig !== 'GIF89a' && sig !== 'GIF87a') throw new Error('not a GIF');
  let p = 13;
  const flags = buf[10];
  if (flags & 0x80) p += 3 * (2 << (flags & 7));
  let frames = 0;
  let localPalettes = 0;
  let transparent = false;
  let loop = false;
  const disposals = [];
  while (p < buf.length) {
    const b = buf[p++];
    if (b === 0x3b) return { frames, disposals, localPalettes, transparent, loop };
    if (b === 0x21) {
      const label = buf[p++];
      if (label === 0xf9) {
        disposals.push((buf[p + 1] >> 2) & 7);
        if (buf[p + 1] & 1) transparent = true;
      }
      if (label === 0xff && buf.subarray(p + 1, p + 12).toString('latin1') === 'NETSCAPE2.0') loop = true;
      while (buf[p]) p += buf[p] + 1;
      p++;
    } else if (b === 0x2c) {
      frames++;
      const f = buf[p + 8];
      p += 9;
      if (f & 0x80) {
        localPalettes++;
        p += 3 * (2 << (f & 7));
      }
      p++; // LZW minimum code size
      while (buf[p]) p += buf[p] + 1;
      p++;
    } else {
      throw new Error(`bad GIF block 0x${b.toString(16)} at ${p - 1}`);
    }
  }
  throw new Error('GIF without trailer');
}

/**
 * Subresource references in a page: [tag, attribute, value].
 * @param {string} html
 * @returns {{ images: string[], other: string[] }}
 */
function references(html) {
  const $ = cheerio.load(html);
  /** @type {string[]} */
  const images = [];
  /** @type {string[]} */
  const other = [];
  $('img[src]').each((_, el) => void images.push(String($(el).attr('src'))));
  $('input[src]').each((_, el) => void images.push(String($(el).attr('src'))));
  $('[background]').each((_, el) => void images.push(String($(el).attr('background'))));
  $('link[href]').each((_, el) => void other.push(String($(el).attr('href'))));
  $('script[src], embed[src], iframe[src], frame[src], object[data], source[src], video[src], audio[src]').each((_, el) => void other.push(String($(el).attr('src') ?? $(el).attr('data'))));
  return { images, other };
}

/**
 * Map an image URL from the page to a file of the site, as a server would:
 * root-relative and relative URLs both resolve against the site root, and an
 * extensionless URL is served by the .gif file of that name.
 * @param {string} url
 * @param {Set<string>} files
 * @returns {string | undefined}
 */
function resolveImage(url, files) {
  const path = url.replace(/^\//, '');
  if (files.has(path)) return path;
  if (!/\.[a-z]+$/i.test(path) && files.has(`${path}.gif`)) return `${path}.gif`;
  return undefined;
}

/**
 * @param {string} site
 * @returns {Promise<{ manifest: Manifest, dir: string, files: string[] }>}
 */
async function site(site) {
  const dir = join(first, site);
  return { manifest: JSON.parse(await readFile(join(first, `${site}.json`), 'utf8')), dir, files: await listFiles(dir) };
}

beforeAll(async () => {
  first = await mkdtemp(join(tmpdir(), 'pagediet-fixtures-a-'));
  second = await mkdtemp(join(tmpdir(), 'pagediet-fixtures-b-'));
  await makeFixtures(first);
  await makeFixtures(second);
  // About 20 s on 2 quiet cores; over 120 s beside another test file with every core busy. A guard against a hang.
}, 900_000);

afterAll(async () => {
  await rm(first, { recursive: true, force: true });
  await rm(second, { recursive: true, force: true });
});

describe('generator', () => {
  it('writes the same bytes on every run', async () => {
    const a = await generatedFiles(first);
    const b = await generatedFiles(second);
    expect(b).toEqual(a);
    for (const f of a) {
      const [x, y] = await Promise.all([readFile(join(first, f)), readFile(join(second, f))]);
      expect(x.equals(y), f).toBe(true);
    }
  });

  it('matches the committed fixtures/ (run `npm run fixtures` after changing the generator)', async () => {
    const generated = await generatedFiles(first);
    expect(await generatedFiles(COMMITTED)).toEqual(generated);
    const stale = [];
    for (const f of generated) {
      const [x, y] = await Promise.all([readFile(join(first, f)), readFile(join(COMMITTED, f))]);
      if (!x.equals(y)) stale.push(f);
    }
    expect(stale).toEqual([]);
  });

  it('lists every file in each manifest with its size and hash', async () => {
    const { createHash } = await import('node:crypto');
    for (const name of SITES) {
      const { manifest, dir, files } = await site(name);
      expect(manifest.files.map((f) => f.path)).toEqual(files);
      for (const f of manifest.files) {
        const bytes = await readFile(join(dir, f.path));
        expect(f.bytes, f.path).toBe(bytes.length);
        expect(f.sha256, f.path).toBe(createHash('sha256').update(bytes).digest('hex'));
      }
    }
  });
});

describe('microscape (SIGCOMM 97)', () => {
  it('has a 42 KB HTML page in 1997 style and ISO-8859-1', async () => {
    const html = await readFile(join(first, 'microscape', 'index.html'));
    expect(html.length).toBeGreaterThanOrEqual(42000);
    expect(html.length).toBeLessThanOrEqual(43500);
    const text = html.toString('latin1');
    expect(text.startsWith('<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">')).toBe(true);
    expect(text).toContain('<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=iso-8859-1">');
    expect(html.includes(0xa9)).toBe(true); // the copyright sign as one Latin-1 byte
    expect(html.includes(0xe9)).toBe(true); // e acute
    expect(html.includes(Buffer.from('\u00e9', 'utf8'))).toBe(false);
    const tags = text.match(/<\/?[A-Za-z]+/g) ?? [];
    const upper = tags.filter((t) => t.replace(/[</]/g, '') === t.replace(/[</]/g, '').toUpperCase()).length;
    expect(upper / tags.length).toBeGreaterThan(0.6);
    for (const mixed of ['<Td', '<Font', 'Width=']) expect(text).toContain(mixed);
    for (const legacy of ['<BR CLEAR=ALL>', 'HSPACE=', 'VSPACE=', 'BORDER=0', 'ALIGN=CENTER', '<TABLE', '<FONT']) expect(text).toContain(legacy);
  });

  it('references exactly 42 distinct GIFs and nothing else', async () => {
    const { files } = await site('microscape');
    const html = (await readFile(join(first, 'microscape', 'index.html'))).toString('latin1');
    const refs = references(html);
    expect(refs.other).toEqual([]);
    const urls = [...new Set(refs.images)];
    expect(urls).toHaveLength(42);
    const gifs = new Set(files.filter((f) => f.endsWith('.gif')));
    expect(gifs.size).toBe(42);
    const resolved = urls.map((u) => resolveImage(u, gifs));
    expect(resolved.filter((r) => r === undefined)).toEqual([]);
    expect(new Set(resolved).size).toBe(42);
    expect(files.filter((f) => !f.endsWith('.gif')).sort()).toEqual(['README.md', 'index.html']);
    expect(urls.filter((u) => !/\.gif$/.test(u)).length).toBeGreaterThanOrEqual(1);
    expect(urls.filter((u) => u.startsWith('/')).length).toBeGreaterThanOrEqual(1);
    expect(urls.filter((u) => !u.startsWith('/')).length).toBeGreaterThanOrEqual(1);
    const $ = cheerio.load(html);
    expect($('form input[type=image]').length).toBe(1);
    expect($('td[background], body[background]').length).toBeGreaterThanOrEqual(1);
  });

  it('has 40 static GIFs in the paper size buckets and 2 animations', async () => {
    const { dir, manifest } = await site('microscape');
    /** @type {GifFile[]} */
    const stills = [];
    /** @type {GifFile[]} */
    const anims = [];
    for (const f of manifest.files.filter((f) => f.path.endsWith('.gif'))) {
      const bytes = await readFile(join(dir, f.path));
      const g = walkGif(bytes);
      expect(g.frames, f.path).toBe(f.frames);
      (g.frames > 1 ? anims : stills).push({ path: f.path, bytes: bytes.length, gif: g });
    }
    expect(stills).toHaveLength(40);
    expect(anims).toHaveLength(2);
    const bucket = (/** @type {number} */ lo, /** @type {number} */ hi) => stills.filter((s) => s.bytes >= lo && s.bytes < hi).length;
    expect([bucket(0, KB), bucket(KB, 2 * KB), bucket(2 * KB, 3 * KB), bucket(3 * KB, Infinity)]).toEqual([19, 7, 6, 8]);
    const staticBytes = stills.reduce((n, s) => n + s.bytes, 0);
    expect(Math.abs(staticBytes - 103299) / 103299).toBeLessThanOrEqual(0.03);
    const animBytes = anims.reduce((n, s) => n + s.bytes, 0);
    expect(Math.abs(animBytes - 24988) / 24988).toBeLessThanOrEqual(0.05);
    const sizes = stills.map((s) => s.bytes);
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(60);
    expect(Math.min(...sizes)).toBeLessThanOrEqual(80);
    expect(Math.max(...sizes)).toBeGreaterThan(38000);
    expect(Math.max(...sizes)).toBeLessThan(42000);
    const solutions = stills.find((s) => s.path === 'images/solutions.gif');
    expect(solutions).toBeDefined();
    expect(Math.abs((solutions?.bytes ?? 0) - 682) / 682).toBeLessThanOrEqual(0.15);
    // Animation features: loop, transparency, all three disposals, a local colour table.
    expect(anims.every((a) => a.gif.loop && a.gif.transparent)).toBe(true);
    const disposals = new Set(anims.flatMap((a) => a.gif.disposals));
    for (const d of [1, 2, 3]) expect(disposals.has(d)).toBe(true);
    expect(anims.some((a) => a.gif.localPalettes > 0)).toBe(true);
  });

  it('describes every image in the manifest and places it at its real size', async () => {
    const { manifest } = await site('microscape');
    const html = (await readFile(join(first, 'microscape', 'index.html'))).toString('latin1');
    const $ = cheerio.load(html);
    const images = manifest.files.filter((f) => f.path.endsWith('.gif'));
    const kinds = new Set(['text', 'symbol', 'spacer', 'rule', 'button', 'picture', 'logo', 'animation']);
    for (const f of images) {
      expect(kinds.has(f.kind), f.path).toBe(true);
      expect(typeof f.replaceable).toBe('boolean');
      expect(f.replaceable, f.path).toBe(['text', 'symbol', 'spacer', 'rule'].includes(f.kind));
      if (f.kind === 'text') {
        expect(f.text?.length).toBeGreaterThan(0);
        expect(f.font?.size).toBeGreaterThanOrEqual(10);
        expect(f.font?.size).toBeLessThanOrEqual(24);
        expect(f.colour).toMatch(/^#[0-9A-F]{6}$/);
      }
    }
    const kindCount = (/** @type {string} */ k) => images.filter((f) => f.kind === k).length;
    for (const k of ['text', 'symbol', 'spacer', 'rule', 'button', 'picture', 'logo']) expect(kindCount(k), k).toBeGreaterThanOrEqual(1);
    expect(kindCount('animation')).toBe(2);
    const needOcr = images.filter((f) => f.kind === 'text' && f.alt !== f.text);
    expect(needOcr.length).toBeGreaterThanOrEqual(3);
    expect(new Set(images.filter((f) => f.kind === 'text').map((f) => f.font?.family)).size).toBeGreaterThanOrEqual(3);
    const solutions = images.find((f) => f.path === 'images/solutions.gif');
    expect(solutions).toMatchObject({ kind: 'text', text: 'solutions', colour: '#FFFFFF', background: '#FFCC00', font: { family: 'DejaVu Sans', weight: 'bold', style: 'oblique' } });
    // WIDTH/HEIGHT equal the real size except for stretched spacers and rules.
    const byUrl = new Map(images.map((f) => [f.url, f]));
    $('img, input[type=image]').each((_, el) => {
      const f = byUrl.get(String($(el).attr('src')));
      if (!f) throw new Error(`no manifest entry for ${$(el).attr('src')}`);
      expect(f.alt ?? undefined).toBe($(el).attr('alt'));
      if (f.kind === 'spacer' || f.kind === 'rule') return;
      expect(Number($(el).attr('width')), f.path).toBe(f.width);
      expect(Number($(el).attr('height')), f.path).toBe(f.height);
    });
    const spacer = images.find((f) => f.path === 'images/spacer.gif');
    expect(spacer?.uses).toBeGreaterThan(5);
  });
});

describe('ricochet (1999 wireless study)', () => {
  it('has a 25 KB page with 30 GIFs making 69 KB with it', async () => {
    const { files, dir } = await site('ricochet');
    const html = await readFile(join(dir, 'index.html'));
    expect(html.length).toBeGreaterThanOrEqual(25300);
    expect(html.length).toBeLessThanOrEqual(26000);
    const refs = references(html.toString('latin1'));
    expect(refs.other).toEqual([]);
    const urls = [...new Set(refs.images)];
    expect(urls).toHaveLength(30);
    const gifs = new Set(files.filter((f) => f.endsWith('.gif')));
    expect(gifs.size).toBe(30);
    expect(new Set(urls.map((u) => resolveImage(u, gifs))).size).toBe(30);
    const sizes = [];
    for (const g of gifs) {
      const bytes = await readFile(join(dir, g));
      expect(walkGif(bytes).frames).toBe(1);
      sizes.push(bytes.length);
    }
    expect(Math.min(...sizes)).toBeLessThan(100);
    expect(Math.max(...sizes)).toBeGreaterThan(9 * KB);
    expect(Math.max(...sizes)).toBeLessThan(11.5 * KB);
    const total = html.length + sizes.reduce((a, b) => a + b, 0);
    expect(Math.abs(total - 69 * KB) / (69 * KB)).toBeLessThanOrEqual(0.03);
  });
});

describe('h2-sample (2014 HTTP/2 study)', () => {
  it('has the slide 23 composition', async () => {
    const { files, dir } = await site('h2-sample');
    /** @param {RegExp} re */
    const sizesOf = async (re) => Promise.all(files.filter((f) => re.test(f)).map(async (f) => (await readFile(join(dir, f))).length));
    const within = (/** @type {number[]} */ sizes, /** @type {number} */ target, /** @type {number} */ tol) => sizes.every((s) => Math.abs(s - target) / target <= tol);
    expect(await sizesOf(/^index\.html$/)).toHaveLength(1);
    expect(within(await sizesOf(/^index\.html$/), 60 * KB, 0.01)).toBe(true);
    expect(await sizesOf(/\.css$/)).toHaveLength(1);
    expect(within(await sizesOf(/\.css$/), 60 * KB, 0.01)).toBe(true);
    for (const [kb, count] of [[1, 5], [10, 5], [20, 5], [37, 5]]) {
      const s = await sizesOf(new RegExp(`^js/${kb}k-\\d+\\.js$`));
      expect(s, `${kb} KB scripts`).toHaveLength(count);
      expect(within(s, kb * KB, 0.01)).toBe(true);
    }
    expect(files.filter((f) => f.endsWith('.js'))).toHaveLength(20);
    for (const [kb, count] of [[1, 10], [5, 10], [20, 20], [40, 5], [140, 5]]) {
      const s = await sizesOf(new RegExp(`^img/${kb}k-\\d+\\.(png|jpg)$`));
      expect(s, `${kb} KB images`).toHaveLength(count);
      expect(within(s, kb * KB, 0.05), `${kb} KB images: ${s.join(', ')}`).toBe(true);
    }
    expect(files.filter((f) => f.startsWith('img/'))).toHaveLength(50);
    expect(files.some((f) => f.endsWith('.png')) && files.some((f) => f.endsWith('.jpg'))).toBe(true);
  });

  it('references its 71 subresources from the page', async () => {
    const { files, dir } = await site('h2-sample');
    const html = (await readFile(join(dir, 'index.html'))).toString('utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    const $ = cheerio.load(html);
    const refs = [
      ...$('link[rel=stylesheet]').map((_, el) => String($(el).attr('href'))).get(),
      ...$('script[src]').map((_, el) => String($(el).attr('src'))).get(),
      ...$('img[src]').map((_, el) => String($(el).attr('src'))).get(),
    ];
    expect(new Set(refs).size).toBe(71);
    expect(refs.every((r) => files.includes(r))).toBe(true);
    expect(files.filter((f) => f !== 'README.md')).toHaveLength(72);
    const css = (await readFile(join(dir, 'css/style.css'))).toString('utf8');
    expect(css).not.toMatch(/url\(/);
  });
});

describe('modern (a Bootstrap site of today)', () => {
  const PAGES = ['about/index.html', 'blog/first-post.html', 'blog/index.html', 'gallery.html', 'index.html'];

  /**
   * Every subresource URL a page (or the style sheet) loads, with its kind.
   * @param {string} from path of the page or style sheet in the site
   * @param {string} text
   * @returns {{ kind: string, url: string }[]}
   */
  function loads(from, text) {
    const urls = (/** @type {string} */ css) => [...css.matchAll(/url\(\s*(['"]?)([^'")]+)\1\s*\)/g)].map((m) => m[2]).filter((u) => !u.startsWith('data:'));
    if (from.endsWith('.css')) return urls(text).map((url) => ({ kind: 'css-url', url }));
    const $ = cheerio.load(text);
    return [
      ...$('img[src]').map((_, el) => ({ kind: 'img', url: String($(el).attr('src')) })).get(),
      ...$('link[rel=stylesheet]').map((_, el) => ({ kind: 'stylesheet', url: String($(el).attr('href')) })).get(),
      ...$('script[src]').map((_, el) => ({ kind: 'script', url: String($(el).attr('src')) })).get(),
      ...$('use[href]').map((_, el) => ({ kind: 'svg-use', url: String($(el).attr('href')) })).get(),
      ...$('[style]').map((_, el) => urls(String($(el).attr('style'))).map((url) => ({ kind: 'style-attribute-url', url }))).get().flat(),
    ];
  }

  it('has five Bootstrap pages at three depths, with Bootstrap 5.3.9 copied as it ships', async () => {
    const { files, dir } = await site('modern');
    expect(files.filter((f) => f.endsWith('.html'))).toEqual(PAGES);
    expect(files).not.toContain('README.md');
    for (const page of PAGES) {
      const html = (await readFile(join(dir, page))).toString('utf8');
      expect(html.startsWith('<!doctype html>'), page).toBe(true);
      const $ = cheerio.load(html);
      expect($('meta[charset=utf-8]').length, page).toBe(1);
      expect($('nav.navbar').length, page).toBe(1);
      expect($('footer.site-footer').length, page).toBe(1);
    }
    const bootstrap = fileURLToPath(new URL('../node_modules/bootstrap/', import.meta.url));
    for (const [from, to] of [['dist/css/bootstrap.min.css', 'vendor/bootstrap/css/bootstrap.min.css'], ['dist/js/bootstrap.bundle.min.js', 'vendor/bootstrap/js/bootstrap.bundle.min.js'], ['LICENSE', 'vendor/bootstrap/LICENSE']]) {
      expect((await readFile(join(dir, to))).equals(await readFile(join(bootstrap, from))), to).toBe(true);
    }
  });

  it('loads every image from its pages or style sheet by relative URLs that resolve', async () => {
    const { files, dir, manifest } = await site('modern');
    /** @type {Map<string, Set<string>>} */
    const usedFrom = new Map();
    /** @type {{ kind: string, url: string, from: string }[]} */
    const all = [];
    for (const from of [...PAGES, 'css/site.css']) {
      for (const ref of loads(from, (await readFile(join(dir, from))).toString('utf8'))) {
        all.push({ ...ref, from });
        expect(ref.url, `${from}: ${ref.url}`).not.toMatch(/^(\/|[a-z]+:)/i);
        const target = posix.normalize(posix.join(posix.dirname(from), ref.url.replace(/[?#].*$/, '')));
        expect(files, `${from}: ${ref.url}`).toContain(target);
        usedFrom.set(target, (usedFrom.get(target) ?? new Set()).add(from));
      }
    }
    const images = files.filter((f) => f.startsWith('img/'));
    expect(images.filter((f) => !usedFrom.has(f))).toEqual([]);
    expect(manifest.files.filter((f) => f.subresource).map((f) => f.path).sort()).toEqual([...usedFrom.keys()].sort());
    // The reference shapes the image passes meet on real sites.
    expect(all.filter((r) => r.url.includes('?v=2'))).toHaveLength(1);
    expect(all.filter((r) => r.kind === 'style-attribute-url' && r.url.startsWith('img/photos/'))).toHaveLength(1);
    expect(all.filter((r) => r.kind === 'css-url' && r.url.startsWith('../img/photos/')).length).toBeGreaterThanOrEqual(1);
    expect([...usedFrom.entries()].some(([f, from]) => f.startsWith('img/') && new Set([...from].map((p) => posix.dirname(p))).size >= 2)).toBe(true);
    let sized = 0;
    let unsized = 0;
    for (const page of PAGES) {
      const $ = cheerio.load((await readFile(join(dir, page))).toString('utf8'));
      $('img').each((_, el) => void ($(el).attr('width') && $(el).attr('height') ? sized++ : unsized++));
    }
    expect(sized).toBeGreaterThanOrEqual(2);
    expect(unsized).toBeGreaterThanOrEqual(5);
    const $ = cheerio.load((await readFile(join(dir, 'gallery.html'))).toString('utf8'));
    expect($('.gallery img').length).toBeGreaterThanOrEqual(8);
  });

  it('has camera-style exports, thumbnails, a WebP and a PNG screenshot, as the manifest says', async () => {
    const { dir, manifest } = await site('modern');
    // The raster images; the SVG icons beside them in img/icons/ are checked below.
    const images = manifest.files.filter((f) => f.path.startsWith('img/') && ['photo', 'thumbnail', 'screenshot'].includes(f.kind));
    expect(manifest.files.filter((f) => f.path.startsWith('img/') && !images.includes(f)).every((f) => f.path.startsWith('img/icons/') && f.path.endsWith('.svg'))).toBe(true);
    let total = 0;
    /** @type {Record<string, number>} */
    const formats = {};
    const orientations = new Set();
    let withIcc = 0;
    let withXmp = 0;
    for (const f of images) {
      const bytes = await readFile(join(dir, f.path));
      total += bytes.length;
      const m = await sharp(bytes).metadata();
      formats[m.format] = (formats[m.format] ?? 0) + 1;
      expect([m.width, m.height], f.path).toEqual([f.width, f.height]);
      if (m.orientation && m.orientation !== 1) orientations.add(m.orientation);
      if (m.icc) withIcc++;
      if (m.xmp) withXmp++;
      if (f.kind === 'photo') {
        expect(Math.max(m.width, m.height), f.path).toBeGreaterThanOrEqual(1200);
        expect(Math.max(m.width, m.height), f.path).toBeLessThanOrEqual(2400);
        if (m.format === 'jpeg') expect(m.chromaSubsampling, f.path).toBe('4:4:4');
      }
      if (f.kind === 'thumbnail') expect(Math.max(m.width, m.height), f.path).toBeLessThanOrEqual(600);
    }
    expect(formats).toEqual({ jpeg: 12, webp: 1, png: 1 });
    expect([...orientations].sort()).toEqual([6, 8]);
    expect(withIcc).toBeGreaterThanOrEqual(3);
    expect(withXmp).toBeGreaterThanOrEqual(1);
    expect(images.filter((f) => f.kind === 'thumbnail').length).toBeGreaterThanOrEqual(4);
    expect(total).toBeGreaterThan(4 * KB * KB);
    expect(total).toBeLessThan(8 * KB * KB);
  });

  /**
   * A page's HTML, parsed.
   * @param {string} dir
   * @param {string} page
   */
  async function load(dir, page) {
    return cheerio.load((await readFile(join(dir, page))).toString('utf8'));
  }

  /**
   * The site path a relative URL of a file names, without query or fragment.
   * @param {string} from
   * @param {string} url
   */
  function target(from, url) {
    return posix.normalize(posix.join(posix.dirname(from), url.replace(/[?#].*$/, '')));
  }

  it('has SVG icons as editors export them, a sprite every page uses, and inline SVG that CSS and links point at', async () => {
    const { dir, files, manifest } = await site('modern');
    const icons = manifest.files.filter((f) => f.kind === 'svg-icon');
    expect(icons.length).toBeGreaterThanOrEqual(4);
    const texts = await Promise.all(icons.map(async (f) => (await readFile(join(dir, f.path))).toString('utf8')));
    let referenced = 0;
    let unreferenced = 0;
    for (const [i, f] of icons.entries()) {
      const svg = texts[i];
      expect(f.path, f.path).toMatch(/^img\/icons\/[a-z-]+\.svg$/);
      expect(f.bytes, f.path).toBeLessThan(8 * KB);
      expect(svg, f.path).toMatch(/^<\?xml version="1\.0" encoding="(UTF|utf)-8"/);
      expect(svg, f.path).toMatch(/<!-- (Created with Inkscape|Generator: Adobe Illustrator)/);
      expect(svg, f.path).toMatch(/<title[^>]*>[^<]+<\/title>/);
      expect((await sharp(Buffer.from(svg)).metadata()).format, f.path).toBe('svg');
      // Every internal reference resolves; some ids are referenced, others only name things.
      const ids = new Set([...svg.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]));
      const refs = [...svg.matchAll(/url\(#([^)]+)\)|href="#([^"]+)"/g)].map((m) => m[1] ?? m[2]);
      for (const r of refs) expect(ids.has(r), `${f.path}: #${r}`).toBe(true);
      referenced += new Set(refs).size;
      unreferenced += [...ids].filter((id) => !refs.includes(id)).length;
    }
    expect(referenced).toBeGreaterThanOrEqual(3);
    expect(unreferenced).toBeGreaterThanOrEqual(10);
    const all = texts.join('\n');
    expect(new Set(icons.map((f) => f.exportedAs))).toEqual(new Set(['inkscape', 'illustrator']));
    expect(all).toMatch(/<sodipodi:namedview/);
    expect(all).toMatch(/<metadata/);
    expect(all).toMatch(/stroke-dasharray:none/);
    expect(all).toMatch(/ x="0px" y="0px"/);
    expect(all).toMatch(/enable-background:new/);
    expect(all).toMatch(/\d\.\d{7}/); // unrounded coordinates

    // The sprite: <symbol>s, used by <svg><use href> from every page, each fragment naming a symbol.
    const sprite = manifest.files.filter((f) => f.kind === 'svg-sprite');
    expect(sprite.map((f) => f.path)).toEqual(['img/icons/sprite.svg']);
    const spriteSvg = (await readFile(join(dir, 'img/icons/sprite.svg'))).toString('utf8');
    const symbols = new Set([...spriteSvg.matchAll(/<symbol id="([^"]+)"/g)].map((m) => m[1]));
    expect(symbols.size).toBeGreaterThanOrEqual(4);
    /** @type {Set<string>} */
    const usedSymbols = new Set();
    /** @type {Set<string>} */
    const iconPages = new Set();
    for (const page of PAGES) {
      const $ = await load(dir, page);
      const uses = $('svg > use[href]').map((_, el) => String($(el).attr('href'))).get();
      expect(uses.length, page).toBeGreaterThanOrEqual(3);
      for (const u of uses) {
        expect(target(page, u), `${page}: ${u}`).toBe('img/icons/sprite.svg');
        const id = u.slice(u.indexOf('#') + 1);
        expect(symbols.has(id), `${page}: ${u}`).toBe(true);
        usedSymbols.add(id);
      }
      $('img[src$=".svg"]').each((_, el) => {
        const src = String($(el).attr('src'));
        expect(files, `${page}: ${src}`).toContain(target(page, src));
        iconPages.add(page);
      });
    }
    expect(usedSymbols.size).toBeGreaterThanOrEqual(3);
    expect(iconPages.size).toBeGreaterThanOrEqual(2);
    expect(icons.every((f) => files.includes(f.path))).toBe(true);

    // Inline: an image with a <title> that aria-labelledby names ...
    const home = await load(dir, 'index.html');
    const labelled = home('svg[role=img][aria-labelledby]');
    expect(labelled.length).toBeGreaterThanOrEqual(1);
    expect(labelled.find(`title#${labelled.attr('aria-labelledby')}`).text().length).toBeGreaterThan(0);
    // ... and one with an id that site.css selects and links from other pages point at.
    const about = await load(dir, 'about/index.html');
    const mapId = about('main svg[id]').attr('id');
    expect(mapId).toBeDefined();
    expect((await readFile(join(dir, 'css/site.css'))).toString('utf8')).toContain(`#${mapId} {`);
    const $index = home;
    const links = $index(`a[href$="#${mapId}"]`).map((_, el) => String($index(el).attr('href'))).get();
    expect(links.map((u) => target('index.html', u))).toContain('about/index.html');
  });

  it('loads htmx 4.0.1 unminified on one page and minified on another, with its licence, and scripts of its own', async () => {
    const { dir, manifest } = await site('modern');
    const vm = await import('node:vm');
    const htmx = fileURLToPath(new URL('../node_modules/htmx.org/', import.meta.url));
    expect(JSON.parse(await readFile(join(htmx, 'package.json'), 'utf8')).version).toBe('4.0.1');
    for (const [from, to] of [['dist/htmx.js', 'vendor/htmx/htmx.js'], ['dist/htmx.min.js', 'vendor/htmx/htmx.min.js'], ['LICENSE', 'vendor/htmx/LICENSE']]) {
      expect((await readFile(join(dir, to))).equals(await readFile(join(htmx, from))), to).toBe(true);
    }
    expect((await readFile(join(dir, 'vendor/htmx/LICENSE'))).toString('utf8')).toMatch(/^Zero-Clause BSD/);

    /** @type {Map<string, string[]>} */
    const scripts = new Map();
    /** @type {{ page: string, type: string, code: string, after: string[] }[]} */
    const inline = [];
    for (const page of PAGES) {
      const $ = await load(dir, page);
      /** @type {string[]} */
      const loaded = [];
      $('script').each((_, el) => {
        const src = $(el).attr('src');
        if (src) loaded.push(target(page, src));
        else inline.push({ page, type: $(el).attr('type') ?? 'classic', code: $(el).text(), after: [...loaded] });
      });
      scripts.set(page, loaded);
    }
    const loading = (/** @type {string} */ file) => PAGES.filter((p) => scripts.get(p)?.includes(file));
    expect(loading('vendor/htmx/htmx.js')).toHaveLength(1);
    expect(loading('vendor/htmx/htmx.min.js')).toHaveLength(1);
    expect(loading('vendor/htmx/htmx.js')[0]).not.toBe(loading('vendor/htmx/htmx.min.js')[0]);
    for (const page of [...loading('vendor/htmx/htmx.js'), ...loading('vendor/htmx/htmx.min.js')]) {
      expect((await load(dir, page))('[hx-get]').length, page).toBeGreaterThanOrEqual(1);
    }

    // js/site.js: hand-written, commented, a classic script whose top-level function an inline script calls after loading it.
    expect(manifest.files.find((f) => f.path === 'js/site.js')).toMatchObject({ kind: 'js', subresource: true });
    expect(loading('js/site.js')).toEqual(PAGES);
    const siteJs = (await readFile(join(dir, 'js/site.js'))).toString('utf8');
    expect(siteJs).toMatch(/\/\*[\s\S]*?\*\//);
    expect(siteJs.split('\n').length).toBeGreaterThan(40);
    expect(() => new vm.Script(siteJs)).not.toThrow();
    const functions = [...siteJs.matchAll(/^function (\w+)\(/gm)].map((m) => m[1]);
    const calls = inline.filter((s) => s.type === 'classic' && s.after.includes('js/site.js') && functions.some((fn) => s.code.includes(`${fn}(`)));
    expect(calls.length).toBeGreaterThanOrEqual(1);
    // An inline module that changes the page and logs.
    const modules = inline.filter((s) => s.type === 'module');
    expect(modules.length).toBeGreaterThanOrEqual(1);
    expect(modules[0].code).toMatch(/console\.log\(/);
    expect(modules[0].code).toMatch(/document\./);
    // Structured data.
    const ld = inline.filter((s) => s.type === 'application/ld+json');
    expect(ld).toHaveLength(1);
    expect(JSON.parse(ld[0].code)['@context']).toBe('https://schema.org');
    // Deterministic: no clock, no randomness.
    for (const code of [siteJs, ...inline.filter((s) => s.type !== 'application/ld+json').map((s) => s.code)]) {
      expect(code).not.toMatch(/\bDate\b|Math\.random|performance\.now/);
      expect(() => new vm.Script(code)).not.toThrow();
    }
  });

  it('serves a real web font from @font-face as WOFF and TTF, without WOFF2, for the headings and the brand', async () => {
    const { dir, files, manifest } = await site('modern');
    const { inflateSync } = await import('node:zlib');
    expect(files.filter((f) => /woff2$/i.test(f))).toEqual([]);
    const css = (await readFile(join(dir, 'css/site.css'))).toString('utf8');
    expect(css).not.toMatch(/woff2/i);
    const face = /@font-face\s*\{[^}]*\}/.exec(css)?.[0] ?? '';
    const family = /font-family:\s*"([^"]+)"/.exec(face)?.[1] ?? '';
    expect(family).toBe('DejaVu Serif Condensed');
    const src = [...(/src:\s*([^;]+);/.exec(face)?.[1] ?? '').matchAll(/url\("?([^")]+)"?\)\s*format\("([^"]+)"\)/g)].map((m) => ({ url: m[1], format: m[2] }));
    expect(src.map((s) => s.format)).toEqual(['woff', 'truetype']);
    const [woffPath, ttfPath] = src.map((s) => target('css/site.css', s.url));
    const ttf = await readFile(join(dir, ttfPath));
    const woff = await readFile(join(dir, woffPath));
    expect(ttf.readUInt32BE(0)).toBe(0x00010000);
    expect(ttf.length).toBeLessThan(150 * KB);
    expect(woff.toString('latin1', 0, 4)).toBe('wOFF');
    expect(woff.readUInt32BE(4)).toBe(0x00010000);
    expect(woff.length).toBeLessThan(ttf.length);

    // The WOFF holds the TTF's tables, compressed.
    /** @type {Map<string, Buffer>} */
    const tables = new Map();
    for (let i = 0; i < ttf.readUInt16BE(4); i++) {
      const at = 12 + 16 * i;
      tables.set(ttf.toString('latin1', at, at + 4), ttf.subarray(ttf.readUInt32BE(at + 8), ttf.readUInt32BE(at + 8) + ttf.readUInt32BE(at + 12)));
    }
    expect(woff.readUInt16BE(12)).toBe(tables.size);
    for (let i = 0; i < tables.size; i++) {
      const at = 44 + 20 * i;
      const tag = woff.toString('latin1', at, at + 4);
      const [offset, compLength, origLength] = [woff.readUInt32BE(at + 4), woff.readUInt32BE(at + 8), woff.readUInt32BE(at + 12)];
      const stored = woff.subarray(offset, offset + compLength);
      const data = compLength < origLength ? inflateSync(stored) : stored;
      expect(data.equals(tables.get(tag) ?? Buffer.alloc(0)), tag).toBe(true);
    }
    // A real font's tables (outlines, hinting, kerning and layout, names) and many glyphs.
    for (const tag of ['cmap', 'glyf', 'loca', 'head', 'hhea', 'hmtx', 'maxp', 'name', 'OS/2', 'post', 'fpgm', 'prep', 'cvt ', 'GPOS', 'GSUB']) expect(tables.has(tag), tag).toBe(true);
    const glyphs = tables.get('maxp')?.readUInt16BE(4) ?? 0;
    expect(glyphs).toBeGreaterThan(1000);
    expect(manifest.files.find((f) => f.path === ttfPath)).toMatchObject({ kind: 'font', glyphs, source: 'fixtures/sources/fonts/DejaVuSerifCondensed-Bold.ttf' });
    expect(tables.get('name')?.toString('latin1').replace(/\0/g, '')).toContain('DejaVu Serif Condensed');
    // Its licence ships beside it, as committed with the source.
    const sources = fileURLToPath(new URL('../fixtures/sources/fonts/', import.meta.url));
    expect((await readFile(join(dir, 'fonts/LICENSE'))).equals(await readFile(join(sources, 'LICENSE')))).toBe(true);

    // Used by the headings and the brand (directly or through a custom property).
    const custom = new RegExp(`(--[\\w-]+):\\s*"${family}"`).exec(css)?.[1];
    const users = [...css.matchAll(/([^{}]+)\{([^}]*)\}/g)]
      .filter((m) => /font(-family)?:/.test(m[2]) && (m[2].includes(`"${family}"`) || (custom && m[2].includes(`var(${custom})`))) && !m[1].includes('@font-face'))
      .flatMap((m) => m[1].split(',').map((sel) => sel.trim()));
    for (const sel of ['h1', 'h2', '.navbar-brand']) expect(users).toContain(sel);
  });
});

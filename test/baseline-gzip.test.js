// The loader's compressOnTheFly: the report's 'before' side served as an ordinary server serves it,
// gzip on the fly (level 6) for compressible types without sidecars of their own.
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPRESSIBLE_EXTENSIONS } from '../src/compress/encodings.js';
import { COMPRESSIBLE_TYPES, ON_THE_FLY, isCompressibleType, loadSite } from '../src/loader/load.js';
import { startServer } from '../src/loader/server.js';
import { MIME_TYPES } from '../src/site/mime.js';
import { tempDir, writeTree } from './helpers/tmp.js';
import { request } from './helpers/http-requests.js';

const PAGE = Buffer.from(
  `<!doctype html><html><head><meta charset="utf-8"><title>baseline</title><link rel="stylesheet" href="style.css"></head><body>\n${
    Array.from({ length: 60 }, (_, i) => `<p class="row">Row ${i}: the quick brown fox jumps over the lazy dog, again and again.</p>\n`).join('')
  }<img src="img.png" alt=""></body></html>\n`,
);
const CSS = Buffer.from(Array.from({ length: 40 }, (_, i) => `.row:nth-child(${i}) { color: #${(i * 4).toString(16).padStart(2, '0')}3333; margin: 0 0 ${i}px }\n`).join(''));
const PAGE2 = Buffer.from(`<!doctype html><title>two</title><link rel="stylesheet" href="style.css">\n${'<p>a page with its own sidecar</p>\n'.repeat(50)}`);
// Level 1, so the sidecar's length is not the level-6 gzip's: which one was sent shows.
const PAGE2_GZ = zlib.gzipSync(PAGE2, { level: 1 });
const EMPTY_CSS = Buffer.alloc(0);
const gzip6 = (/** @type {Buffer} */ bytes) => zlib.gzipSync(bytes, { level: 6 });

let root = '';
/** @type {Buffer} */
let PNG;

beforeAll(async () => {
  root = path.join(await tempDir('pagediet-baseline-gzip-'), 'site');
  const pixels = Buffer.from(Array.from({ length: 32 * 32 * 3 }, (_, i) => (i * 37 + (i >> 5) * 11) % 256));
  PNG = await sharp(pixels, { raw: { width: 32, height: 32, channels: 3 } }).png().toBuffer();
  await writeTree(root, {
    'index.html': PAGE,
    'style.css': CSS,
    'img.png': PNG,
    'index2.html': PAGE2,
    'index2.html.gz': PAGE2_GZ,
    'empty.css': EMPTY_CSS,
  });
  expect(gzip6(PAGE).length).not.toBe(PAGE2_GZ.length);
  expect(gzip6(PAGE2).length).not.toBe(PAGE2_GZ.length);
});

/** The strong ETag the server derives from a representation's bytes. */
function tag(bytes, coding = 'identity') {
  const hash = crypto.createHash('sha1').update(bytes).digest('base64url').slice(0, 16);
  return `"${hash}${coding === 'identity' ? '' : `-${coding}`}"`;
}


describe('the types compressed on the fly', () => {
  it('are one list: text, scripts, JSON, XML, SVG, icons, uncompressed fonts; never images or WOFF', () => {
    expect(ON_THE_FLY).toEqual({ encoding: 'gzip', level: 6 });
    for (const type of ['text/html', 'text/css', 'application/javascript', 'text/javascript', 'application/json', 'image/svg+xml', 'text/plain',
      'application/xml', 'text/xml', 'application/font-sfnt', 'font/ttf', 'font/otf', 'application/manifest+json', 'Text/HTML; charset=utf-8']) {
      expect(isCompressibleType(type), type).toBe(true);
    }
    for (const type of ['image/png', 'image/gif', 'image/jpeg', 'image/webp', 'image/avif', 'font/woff', 'font/woff2', 'application/zip',
      'application/gzip', 'application/pdf', 'video/mp4', 'application/octet-stream']) {
      expect(isCompressibleType(type), type).toBe(false);
    }
    expect(COMPRESSIBLE_TYPES.every((t) => isCompressibleType(t))).toBe(true);
  });

  it('cover every type of the extensions the precompression pass compresses', () => {
    for (const extension of COMPRESSIBLE_EXTENSIONS) {
      const type = MIME_TYPES[extension];
      if (type) expect(isCompressibleType(type), extension).toBe(true);
    }
  });
});

describe.each([
  ['http1', false],
  ['http1', true],
  ['h2c', false],
  ['h2c', true],
])('startServer over %s (snapshot %s) with compressOnTheFly', (protocol, snapshot) => {
  let on;
  let off;
  beforeAll(async () => {
    on = await startServer({ root, protocol, snapshot, compressOnTheFly: 'gzip' });
    off = await startServer({ root, protocol, snapshot });
  });
  afterAll(() => Promise.all([on?.close(), off?.close()]));

  it('gzips the page and the style sheet at level 6, with their own ETag, Vary and Content-Length', async () => {
    for (const [url, bytes, type] of [['/index.html', PAGE, 'text/html'], ['/style.css', CSS, 'text/css'], ['/', PAGE, 'text/html']]) {
      for (let i = 0; i < 2; i++) {
        const r = await request(on, url, { headers: { 'accept-encoding': 'br, gzip' } });
        expect(r.status).toBe(200);
        // The same bytes each time: made once, kept.
        expect(r.body).toEqual(gzip6(bytes));
        expect(r.headers).toEqual({
          'content-type': type,
          'content-encoding': 'gzip',
          'content-length': String(gzip6(bytes).length),
          vary: 'Accept-Encoding',
          etag: tag(bytes, 'gzip'),
          'last-modified': expect.any(String),
          // The cache policy of pagediet's server configs, the server's default: pages revalidated, other files an hour.
          'cache-control': type === 'text/html' ? 'no-cache' : 'public, max-age=3600, must-revalidate',
        });
      }
      // HEAD: the same length, no body.
      const head = await request(on, url, { method: 'HEAD', headers: { 'accept-encoding': 'gzip' } });
      expect(head.headers['content-length']).toBe(String(gzip6(bytes).length));
      expect(head.body.length).toBe(0);
      // A client that takes no gzip gets the file, with the identity tag, and Vary all the same.
      for (const headers of [{}, { 'accept-encoding': 'br' }, { 'accept-encoding': 'gzip;q=0, identity' }]) {
        const plain = await request(on, url, { headers });
        expect(plain.body).toEqual(bytes);
        expect(plain.headers['content-encoding']).toBeUndefined();
        expect(plain.headers.etag).toBe(tag(bytes));
        expect(plain.headers.vary).toBe('Accept-Encoding');
        expect(plain.headers['accept-ranges']).toBe('bytes');
      }
    }
  });

  it('never encodes the PNG or an empty file, and a page with its own sidecar gets its sidecar', async () => {
    const image = await request(on, '/img.png', { headers: { 'accept-encoding': 'br, gzip' } });
    expect(image.body).toEqual(PNG);
    expect(image.headers['content-encoding']).toBeUndefined();
    expect(image.headers.vary).toBeUndefined();
    expect(image.headers['content-length']).toBe(String(PNG.length));
    const empty = await request(on, '/empty.css', { headers: { 'accept-encoding': 'gzip' } });
    expect(empty.headers['content-encoding']).toBeUndefined();
    expect(empty.body.length).toBe(0);
    for (const server of [on, off]) {
      const own = await request(server, '/index2.html', { headers: { 'accept-encoding': 'br, gzip' } });
      expect(own.body).toEqual(PAGE2_GZ);
      expect(own.headers['content-encoding']).toBe('gzip');
      expect(own.headers.etag).toBe(tag(PAGE2_GZ, 'gzip'));
      const plain = await request(server, '/index2.html', { headers: { 'accept-encoding': 'br' } });
      expect(plain.body).toEqual(PAGE2);
    }
  });

  it('revalidates the gzip variant with 304, and not with the identity tag', async () => {
    const first = await request(on, '/index.html', { headers: { 'accept-encoding': 'gzip' } });
    const again = await request(on, '/index.html', { headers: { 'accept-encoding': 'gzip', 'if-none-match': first.headers.etag } });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(tag(PAGE, 'gzip'));
    expect(again.headers.vary).toBe('Accept-Encoding');
    // The identity variant's tag does not validate the gzip one, nor the other way round.
    const crossed = await request(on, '/index.html', { headers: { 'accept-encoding': 'gzip', 'if-none-match': tag(PAGE) } });
    expect(crossed.status).toBe(200);
    expect(crossed.body).toEqual(gzip6(PAGE));
    const identity = await request(on, '/index.html', { headers: { 'if-none-match': first.headers.etag } });
    expect(identity.status).toBe(200);
    expect(identity.body).toEqual(PAGE);
  });

  it('serves ranges of the identity bytes only', async () => {
    const ranged = await request(on, '/style.css', { headers: { range: 'bytes=0-9' } });
    expect(ranged.status).toBe(206);
    expect(ranged.body).toEqual(CSS.subarray(0, 10));
    const gzipped = await request(on, '/style.css', { headers: { range: 'bytes=0-9', 'accept-encoding': 'gzip' } });
    expect(gzipped.status).toBe(200);
    expect(gzipped.body).toEqual(gzip6(CSS));
  });

  it('off, serves as before: the files as they are, no Vary for a file without sidecars', async () => {
    for (const [url, bytes] of [['/index.html', PAGE], ['/style.css', CSS], ['/img.png', PNG]]) {
      const r = await request(off, url, { headers: { 'accept-encoding': 'br, gzip' } });
      expect(r.body).toEqual(bytes);
      expect(r.headers['content-encoding']).toBeUndefined();
      expect(r.headers.vary).toBeUndefined();
      expect(r.headers.etag).toBe(tag(bytes));
      expect(r.headers['content-length']).toBe(String(bytes.length));
    }
  });
});

it('startServer and loadSite refuse a level that is not 1 to 9, before listening', async () => {
  for (const bad of [{ gzip: 0 }, { gzip: 10 }, { gzip: 6.5 }, 'br', true]) {
    await expect(startServer({ root, compressOnTheFly: /** @type {any} */ (bad) })).rejects.toThrow(RangeError);
    await expect(loadSite({ root, protocols: ['http1.1'], compressOnTheFly: /** @type {any} */ (bad) })).rejects.toThrow(RangeError);
  }
  const nine = await startServer({ root, compressOnTheFly: { gzip: 9 } });
  try {
    const r = await request(nine, '/index.html', { headers: { 'accept-encoding': 'gzip' } });
    expect(r.body).toEqual(zlib.gzipSync(PAGE, { level: 9 }));
  } finally {
    await nine.close();
  }
});

describe('loadSite with compressOnTheFly', () => {
  const pages = ['/index.html', '/index2.html'];
  const protocols = /** @type {const} */ (['http1.1', 'h2']);
  let on;
  let off;
  let before;
  beforeAll(async () => {
    [on, off, before] = await Promise.all([
      loadSite({ root, pages, protocols: [...protocols], compressOnTheFly: 'gzip' }),
      loadSite({ root, pages, protocols: [...protocols], compressOnTheFly: undefined }),
      loadSite({ root, pages, protocols: [...protocols] }),
    ]);
  });
  const trace = (result, page, protocol, visit) => result.traces.find((t) => t.page === page && t.protocol === protocol && t.visit === visit);
  const record = (t, p) => t.requests.find((r) => r.path === p);

  it.each(protocols)('%s: on, a first visit gets the html and css gzip-encoded at level 6, the PNG as it is, index2 its own sidecar', (protocol) => {
    const first = trace(on, '/index.html', protocol, 'first');
    expect(first.requests.map((r) => r.path)).toEqual(['/index.html', '/style.css', '/img.png']);
    for (const [p, bytes] of [['/index.html', PAGE], ['/style.css', CSS]]) {
      const r = record(first, p);
      expect(r.status).toBe(200);
      expect(r.encoding).toBe('gzip');
      // Body bytes as sent: exactly the level-6 gzip (HTTP/1.1 with Content-Length has no framing in them).
      expect(r.bodyBytes).toBe(gzip6(bytes).length);
      expect(r.decodedBytes).toBe(bytes.length);
    }
    const image = record(first, '/img.png');
    expect(image.encoding).toBeNull();
    expect(image.bodyBytes).toBe(PNG.length);
    const two = record(trace(on, '/index2.html', protocol, 'first'), '/index2.html');
    expect(two.encoding).toBe('gzip');
    expect(two.bodyBytes).toBe(PAGE2_GZ.length);
    expect(two.decodedBytes).toBe(PAGE2.length);
  });

  it.each(protocols)('%s: on, a revalidation visit gets 304 for every response, the gzip variants too', (protocol) => {
    for (const page of pages) {
      const again = trace(on, page, protocol, 'revalidate');
      expect(again.requests.length).toBeGreaterThan(1);
      expect(again.requests.every((r) => r.status === 304 && r.bodyBytes === 0)).toBe(true);
    }
  });

  it.each(protocols)('%s: off, nothing changes: the files as they are, the sidecar where there is one', (protocol) => {
    const first = trace(off, '/index.html', protocol, 'first');
    for (const [p, bytes] of [['/index.html', PAGE], ['/style.css', CSS], ['/img.png', PNG]]) {
      const r = record(first, p);
      expect(r.encoding).toBeNull();
      expect(r.bodyBytes).toBe(bytes.length);
    }
    expect(record(trace(off, '/index2.html', protocol, 'first'), '/index2.html').bodyBytes).toBe(PAGE2_GZ.length);
    // Undefined is the same as no option at all, to the byte of every body. Response headers are left out: on a
    // real load their size depends on which request ends a connection (Keep-Alive or close) or is encoded first
    // in HPACK's table, which two loads need not share (CI saw 75 against 52 B for one response).
    const shape = (result) => result.traces.map((t) => t.requests.map((r) => [t.page, t.protocol, t.visit, r.path, r.status, r.encoding, r.bodyBytes]));
    expect(shape(off)).toEqual(shape(before));
  });

  it('on, the first visit costs fewer bytes than off, and the model sees it', () => {
    const bytes = (result, visit) => result.runs.filter((r) => r.visit === visit).reduce((n, r) => n + r.wireBytes, 0);
    expect(bytes(on, 'first')).toBeLessThan(bytes(off, 'first'));
  });
});

import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs/promises';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestedRange } from '../src/loader/conditional.js';
import { chooseEncoding } from '../src/loader/negotiate.js';
import { startServer } from '../src/loader/server.js';
import { tempDir, writeTree } from './helpers/tmp.js';
import { needed } from './helpers/needed.js';
import { clean, h2Request, http1Request, request, within } from './helpers/http-requests.js';
import { existsSync } from 'node:fs';

const PAGE = Buffer.from('<!doctype html><meta charset="utf-8"><title>t</title><img src="img.png"><p>caf\u00e9\n');
const IMAGE = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 31 + 7) % 256))]);
const CSS = Buffer.from('body { color: #333; background: url(img.png) }\n'.repeat(40));
const CSS_BR = zlib.brotliCompressSync(CSS);
const CSS_GZ = zlib.gzipSync(CSS);
// Node 20 cannot make zstd; the server never looks inside a sidecar, so any bytes do.
const CSS_ZST = Buffer.from('28b52ffd not really zstd, but served as it is');
const PAGE_BR = zlib.brotliCompressSync(PAGE);
const PAGE_GZ = zlib.gzipSync(PAGE);
const BIG = Buffer.alloc(4 * 1024 * 1024, 'pagediet ');
const SECRET = 'TOP SECRET, outside the root';
const MTIME = new Date('2024-05-01T12:00:00Z');
const LAST_MODIFIED = 'Wed, 01 May 2024 12:00:00 GMT';
const PROTOCOLS = /** @type {const} */ (['http1', 'h2c', 'h2']);
/** The Cache-Control of pagediet's server configs (src/configs/shared.js): pages, names without a fingerprint. */
const PAGE_CACHE = 'no-cache';
const SHORT_CACHE = 'public, max-age=3600, must-revalidate';
const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';
const BIN = path.resolve('bin/pagediet.js');

let parent = '';
let root = '';

beforeAll(async () => {
  parent = await tempDir('pagediet-server-');
  root = path.join(parent, 'site');
  await writeTree(parent, { 'secret.txt': SECRET, 'outside/inner.txt': SECRET });
  await writeTree(root, {
    'index.html': PAGE,
    'img.png': IMAGE,
    'style.css': CSS,
    'style.css.br': CSS_BR,
    'style.css.gz': CSS_GZ,
    'style.css.zst': CSS_ZST,
    'sub/index.html': 'sub',
    'a/b': 'reachable only as /a/b',
    '.hidden': 'a dotfile',
    '.well-known/security.txt': 'Contact: x',
    '.pagediet-output.json': '{"files":[]}',
    'empty.txt': '',
    'big.bin': BIG,
    'images/bullet.gif': IMAGE,
    'images/both.gif': IMAGE,
    'images/both.html': PAGE,
    'images/packed.gz': 'a sidecar alone is not a name.ext match',
    // An older build's server configs in the site's root: never served.
    'pagediet-configs/nginx.conf': '# pagediet 0.1.0: nginx snippet\ngzip_static on;\n',
    'compressed/index.html': PAGE,
    'compressed/index.html.br': PAGE_BR,
    'compressed/index.html.gz': PAGE_GZ,
  });
  for (const name of ['index.html', 'img.png', 'style.css', 'style.css.br', 'style.css.gz', 'style.css.zst']) {
    await fs.utimes(path.join(root, name), MTIME, MTIME);
  }
  await fs.symlink('index.html', path.join(root, 'link-in.html'));
  await fs.symlink('../secret.txt', path.join(root, 'link-out.txt'));
  await fs.symlink('../outside', path.join(root, 'dir-out'));
});

/** The strong ETag the server derives from a representation's bytes. */
function tag(bytes, coding = 'identity') {
  const hash = crypto.createHash('sha1').update(bytes).digest('base64url').slice(0, 16);
  return `"${hash}${coding === 'identity' ? '' : `-${coding}`}"`;
}

/**
 * Complete HTTP/1 responses at the start of a buffer (none of them to HEAD).
 * @param {Buffer} buffer
 */
function parseResponses(buffer) {
  const responses = [];
  let at = 0;
  for (;;) {
    const headEnd = buffer.indexOf('\r\n\r\n', at);
    if (headEnd < 0) break;
    const [statusLine, ...lines] = buffer.subarray(at, headEnd).toString('latin1').split('\r\n');
    const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    const end = headEnd + 4 + Number(headers['content-length'] ?? 0);
    if (end > buffer.length) break;
    responses.push({ statusLine, status: Number(statusLine.split(' ')[1]), headers, body: buffer.subarray(headEnd + 4, end) });
    at = end;
  }
  return responses;
}

/** A raw TCP client: what it writes is sent as is, byte for byte. */
function rawClient(port) {
  const socket = net.connect(port, '127.0.0.1');
  let buffer = Buffer.alloc(0);
  let closed = false;
  /** @type {(() => void)[]} */
  let waiters = [];
  const wake = () => {
    const pending = waiters;
    waiters = [];
    for (const check of pending) check();
  };
  socket.on('data', (d) => {
    buffer = Buffer.concat([buffer, d]);
    wake();
  });
  socket.on('error', () => {});
  const closing = new Promise((resolve) => socket.on('close', () => {
    closed = true;
    wake();
    resolve(undefined);
  }));
  return {
    socket,
    write: (/** @type {string} */ text) => socket.write(text),
    /** The first n complete responses (fewer if the connection closes first). */
    responses: (n, ms = 5000) => within(ms, new Promise((resolve) => {
      const check = () => (parseResponses(buffer).length >= n || closed ? resolve(parseResponses(buffer)) : waiters.push(check));
      check();
    })),
    closed: (ms = 5000) => within(ms, closing),
    get isClosed() {
      return closed;
    },
    text: () => buffer.toString('latin1'),
  };
}

/** Polls until the predicate holds (log entries arrive when a response is over). */
async function eventually(predicate, ms = 5000) {
  const start = Date.now();
  while (!(await predicate())) {
    if (Date.now() - start > ms) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe.each(PROTOCOLS)('server over %s', (protocol) => {
  let server;
  beforeAll(async () => {
    server = await startServer({ root, protocol });
  });
  afterAll(() => server?.close());

  it('reports where it listens', () => {
    expect(server.protocol).toBe(protocol);
    expect(server.url).toBe(`${protocol === 'h2' ? 'https' : 'http'}://127.0.0.1:${server.port}`);
    expect(server.port).toBeGreaterThan(0);
  });

  it('serves a page and an image with exact status, headers and bytes', async () => {
    for (const [urlPath, bytes, type] of [['/index.html', PAGE, 'text/html'], ['/', PAGE, 'text/html'], ['/img.png', IMAGE, 'image/png'], ['/link-in.html', PAGE, 'text/html']]) {
      const res = await request(server, urlPath);
      expect([urlPath, res.status, res.headers]).toEqual([urlPath, 200, {
        'content-type': type,
        'content-length': String(bytes.length),
        'accept-ranges': 'bytes',
        'cache-control': type === 'text/html' ? PAGE_CACHE : SHORT_CACHE,
        etag: tag(bytes),
        'last-modified': LAST_MODIFIED,
      }]);
      expect(res.body.equals(bytes)).toBe(true);
    }
  });

  it('chooses the precompressed sidecar by Accept-Encoding, with the original type and Vary', async () => {
    const identity = await request(server, '/style.css', { headers: { 'accept-encoding': 'identity' } });
    expect(identity.headers['content-type']).toBe('text/css');
    const cases = [
      ['br', 'br'],
      ['gzip', 'gzip'],
      ['br, gzip', 'br'],
      ['gzip, br', 'br'],
      ['gzip;q=0, br', 'br'],
      ['gzip;q=1, br;q=0.5', 'gzip'],
      ['gzip, zstd', 'zstd'],
      ['*', 'br'],
      ['x-gzip', 'gzip'],
      ['identity', 'identity'],
      ['deflate', 'identity'],
      [undefined, 'identity'],
    ];
    const sidecar = { br: CSS_BR, gzip: CSS_GZ, zstd: CSS_ZST, identity: CSS };
    for (const [accept, coding] of cases) {
      const res = await request(server, '/style.css', { headers: accept === undefined ? {} : { 'accept-encoding': accept } });
      expect([accept, res.status, res.headers]).toEqual([accept, 200, {
        'content-type': identity.headers['content-type'],
        'content-length': String(sidecar[coding].length),
        ...(coding === 'identity' ? { 'accept-ranges': 'bytes' } : { 'content-encoding': coding }),
        vary: 'Accept-Encoding',
        'cache-control': SHORT_CACHE,
        etag: tag(sidecar[coding], coding),
        'last-modified': LAST_MODIFIED,
      }]);
      expect(res.body.equals(sidecar[coding])).toBe(true);
      const decoded = { br: zlib.brotliDecompressSync, gzip: zlib.gunzipSync, identity: (b) => b }[coding];
      if (decoded) expect(decoded(res.body).equals(CSS)).toBe(true);
    }
    for (const accept of ['br;q=0, gzip;q=0, identity;q=0', '*;q=0']) {
      const res = await request(server, '/style.css', { headers: { 'accept-encoding': accept } });
      expect([res.status, res.headers.vary, res.headers['content-encoding']]).toEqual([406, 'Accept-Encoding', undefined]);
    }
    // A file without sidecars: identity only, no Vary; 406 when identity is refused.
    const plain = await request(server, '/index.html', { headers: { 'accept-encoding': 'br, gzip' } });
    expect([plain.status, plain.headers['content-encoding'], plain.headers.vary]).toEqual([200, undefined, undefined]);
    expect((await request(server, '/index.html', { headers: { 'accept-encoding': 'identity;q=0' } })).status).toBe(406);
    // A sidecar is never served under its own name (it is x.css's, sent by Accept-Encoding); a .gz with nothing
    // beside it is a file like any other.
    for (const name of ['/style.css.gz', '/style.css.br', '/style.css.zst', '/STYLE.CSS.GZ']) {
      const sidecar = await request(server, name, { headers: { 'accept-encoding': 'gzip, br, zstd' } });
      expect([name, sidecar.status, sidecar.headers['content-type']]).toEqual([name, 404, 'text/plain; charset=utf-8']);
    }
    const packed = await request(server, '/images/packed.gz', { headers: { 'accept-encoding': 'gzip' } });
    expect([packed.status, packed.headers['content-type'], packed.headers['content-encoding']]).toEqual([200, 'application/gzip', undefined]);
  });

  it('answers 404 for a page\'s sidecar by name and for an older build\'s configs, and still sends the sidecar by Accept-Encoding (snapshot mode too)', async () => {
    const snapshot = await startServer({ root, protocol, snapshot: true });
    try {
      for (const each of [server, snapshot, snapshot]) {
        for (const name of ['/compressed/index.html.br', '/compressed/index.html.gz', '/pagediet-configs/nginx.conf', '/pagediet-configs/', '/pagediet-configs', '/Pagediet-Configs/nginx.conf']) {
          const res = await request(each, name, { headers: { 'accept-encoding': 'br, gzip' } });
          expect([name, res.status, res.headers['content-type']]).toEqual([name, 404, 'text/plain; charset=utf-8']);
        }
        for (const url of ['/compressed/index.html', '/compressed/']) {
          for (const [accept, coding, bytes] of [['br', 'br', PAGE_BR], ['gzip', 'gzip', PAGE_GZ], ['identity', undefined, PAGE]]) {
            const res = await request(each, url, { headers: { 'accept-encoding': accept } });
            expect([url, accept, res.status, res.headers['content-type'], res.headers['content-encoding'], res.headers.vary]).toEqual([url, accept, 200, 'text/html', coding, 'Accept-Encoding']);
            expect(res.body.equals(bytes), `${url} ${accept}`).toBe(true);
          }
        }
      }
    } finally {
      await snapshot.close();
    }
  });

  it('answers If-None-Match and If-Modified-Since with 304 and no body', async () => {
    const first = await request(server, '/style.css', { headers: { 'accept-encoding': 'br' } });
    const notModified = { 'cache-control': SHORT_CACHE, etag: first.headers.etag, vary: 'Accept-Encoding', 'last-modified': LAST_MODIFIED };
    for (const inm of [first.headers.etag, `"nope", W/${first.headers.etag}`, '*']) {
      const res = await request(server, '/style.css', { headers: { 'accept-encoding': 'br', 'if-none-match': inm } });
      expect([inm, res.status, res.headers, res.body.length]).toEqual([inm, 304, notModified, 0]);
    }
    // Another representation's tag does not match this one.
    expect((await request(server, '/style.css', { headers: { 'accept-encoding': 'gzip', 'if-none-match': first.headers.etag } })).status).toBe(200);
    const page = (h) => request(server, '/index.html', { headers: h });
    expect((await page({ 'if-modified-since': LAST_MODIFIED })).status).toBe(304);
    expect((await page({ 'if-modified-since': 'Thu, 02 May 2024 00:00:00 GMT' })).status).toBe(304);
    expect((await page({ 'if-modified-since': 'Tue, 30 Apr 2024 00:00:00 GMT' })).status).toBe(200);
    expect((await page({ 'if-modified-since': 'not a date' })).status).toBe(200);
    // If-None-Match wins over If-Modified-Since.
    expect((await page({ 'if-none-match': '"other"', 'if-modified-since': LAST_MODIFIED })).status).toBe(200);
  });

  it('sends the cache policy of pagediet\'s server configs on 200 and 304, or with cacheHeaders none only the validators', async () => {
    const site = await writeTree(await tempDir('pagediet-cache-headers-'), {
      'index.html': PAGE,
      'app.3f9a1c2b.js': 'console.log(1);\n'.repeat(40),
      'app.3f9a1c2b.js.br': zlib.brotliCompressSync(Buffer.from('console.log(1);\n'.repeat(40))),
      'logo-CWg6gKPv.png': IMAGE,
      'logo.png': IMAGE,
      'docs/page.htm': PAGE,
    });
    const none = await startServer({ root: site, protocol, cacheHeaders: 'none' });
    const policy = await startServer({ root: site, protocol, snapshot: true });
    try {
      for (const [url, expected] of [['/', PAGE_CACHE], ['/index.html', PAGE_CACHE], ['/docs/page.htm', PAGE_CACHE], ['/app.3f9a1c2b.js', IMMUTABLE_CACHE], ['/logo-CWg6gKPv.png', IMMUTABLE_CACHE], ['/logo.png', SHORT_CACHE]]) {
        for (const encoding of ['br', 'identity']) {
          const first = await request(policy, url, { headers: { 'accept-encoding': encoding } });
          expect([url, encoding, first.status, first.headers['cache-control']]).toEqual([url, encoding, 200, expected]);
          const again = await request(policy, url, { headers: { 'accept-encoding': encoding, 'if-none-match': first.headers.etag } });
          expect([url, encoding, again.status, again.headers['cache-control']]).toEqual([url, encoding, 304, expected]);
          const plain = await request(none, url, { headers: { 'accept-encoding': encoding } });
          expect([url, plain.status, plain.headers['cache-control'], typeof plain.headers.etag, typeof plain.headers['last-modified']]).toEqual([url, 200, undefined, 'string', 'string']);
          const plainAgain = await request(none, url, { headers: { 'accept-encoding': encoding, 'if-modified-since': plain.headers['last-modified'] } });
          expect([url, plainAgain.status, plainAgain.headers['cache-control']]).toEqual([url, 304, undefined]);
        }
      }
      // Errors and redirects carry none.
      expect((await request(policy, '/nope.png')).headers['cache-control']).toBeUndefined();
      expect((await request(policy, '/docs')).headers['cache-control']).toBeUndefined();
    } finally {
      await Promise.all([none.close(), policy.close()]);
    }
    await expect(startServer({ root: site, protocol, cacheHeaders: /** @type {any} */ ('no-cache') })).rejects.toThrow("cacheHeaders must be 'policy' or 'none', not \"no-cache\"");
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const get = await request(server, '/style.css', { headers: { 'accept-encoding': 'gzip' } });
    const head = await request(server, '/style.css', { method: 'HEAD', headers: { 'accept-encoding': 'gzip' } });
    expect([head.status, head.headers, head.body.length]).toEqual([200, get.headers, 0]);
    const missing = await request(server, '/missing.html', { method: 'HEAD' });
    expect([missing.status, missing.body.length]).toEqual([404, 0]);
  });

  it('serves single byte ranges of the identity bytes, 416 past the end, whole files otherwise', async () => {
    const size = IMAGE.length;
    for (const [range, start, end] of [['bytes=0-7', 0, 7], ['bytes=100-', 100, size - 1], ['bytes=-16', size - 16, size - 1], ['bytes=10-99999', 10, size - 1]]) {
      const res = await request(server, '/img.png', { headers: { range } });
      expect([range, res.status, res.headers['content-range'], res.headers['content-length']]).toEqual([range, 206, `bytes ${start}-${end}/${size}`, String(end - start + 1)]);
      expect(res.body.equals(IMAGE.subarray(start, end + 1))).toBe(true);
    }
    for (const range of ['bytes=5000-', 'bytes=-0']) {
      const res = await request(server, '/img.png', { headers: { range } });
      expect([range, res.status, res.headers['content-range']]).toEqual([range, 416, `bytes */${size}`]);
    }
    expect((await request(server, '/empty.txt', { headers: { range: 'bytes=0-' } })).status).toBe(416);
    for (const range of ['bytes=0-1,4-5', 'bytes=9-3', 'lines=1-2']) {
      const res = await request(server, '/img.png', { headers: { range } });
      expect([range, res.status, res.body.equals(IMAGE)]).toEqual([range, 200, true]);
    }
    const compressed = await request(server, '/style.css', { headers: { range: 'bytes=0-3', 'accept-encoding': 'br' } });
    expect([compressed.status, compressed.headers['content-encoding'], compressed.body.equals(CSS_BR)]).toEqual([200, 'br', true]);
    const etag = tag(IMAGE);
    expect((await request(server, '/img.png', { headers: { range: 'bytes=0-0', 'if-range': etag } })).status).toBe(206);
    expect((await request(server, '/img.png', { headers: { range: 'bytes=0-0', 'if-range': '"stale"' } })).status).toBe(200);
  });

  it('never serves a byte from outside the root', async () => {
    const attempts = [
      ['/../secret.txt', 400],
      ['/../../../../../../etc/passwd', 400],
      ['/%2e%2e/secret.txt', 400],
      ['/%2E%2E/%2e%2e/%2e%2e/etc/passwd', 400],
      ['/sub/..%2f..%2fsecret.txt', 400],
      ['/a%2fb', 400],
      ['/a%5cb', 400],
      ['/a\\b', 400],
      ['/x%00.html', 400],
      ['/%zz', 400],
      ['/link-out.txt', 404],
      ['/dir-out/inner.txt', 404],
      ['/dir-out/', 404],
      ['/dir-out/inner', 404],
    ];
    for (const [urlPath, status] of attempts) {
      const res = await request(server, urlPath);
      expect([urlPath, res.status]).toEqual([urlPath, status]);
      expect(res.body.toString('latin1')).not.toMatch(/SECRET|root:/);
    }
    expect((await request(server, '/a/b')).status).toBe(200);
  });

  it('redirects directories to their slash form, serves dotfiles and extensionless names, hides the marker, ignores queries', async () => {
    const redirect = await request(server, '/sub?x=1');
    expect([redirect.status, redirect.headers.location]).toEqual([301, '/sub/?x=1']);
    expect((await request(server, '/sub/')).body.toString()).toBe('sub');
    expect((await request(server, '/index.html?v=2#frag')).body.equals(PAGE)).toBe(true);
    expect((await request(server, '/.hidden')).body.toString()).toBe('a dotfile');
    expect((await request(server, '/.well-known/security.txt')).status).toBe(200);
    expect((await request(server, '/.pagediet-output.json')).status).toBe(404);
    expect((await request(server, '/index.html/')).status).toBe(404);
    // Rebuilt from decoded segments: a path that starts with // cannot redirect off-site.
    const doubled = await request(server, '//sub');
    expect([doubled.status, doubled.headers.location]).toEqual([301, '/sub/']);
    // Extensionless names, as old servers negotiated them and the site model resolves them.
    const bullet = await request(server, '/images/bullet');
    expect([bullet.status, bullet.headers['content-type'], bullet.body.equals(IMAGE)]).toEqual([200, 'image/gif', true]);
    expect((await request(server, '/images/both', { headers: { accept: 'image/*,*/*;q=0.8' } })).headers['content-type']).toBe('image/gif');
    expect((await request(server, '/images/both', { headers: { accept: 'text/html,*/*;q=0.8' } })).headers['content-type']).toBe('text/html');
    expect((await request(server, '/images/bullet/')).status).toBe(404);
    expect((await request(server, '/images/packed')).status).toBe(404);
    const post = await request(server, '/index.html', { method: 'POST' });
    expect([post.status, post.headers.allow]).toEqual([405, 'GET, HEAD']);
  });
});

describe('HTTP/1 connections', () => {
  /** @type {import('../src/loader/handler.js').RequestLogEntry[]} */
  const log = [];
  let server;
  beforeAll(async () => {
    server = await startServer({ root, onRequest: (entry) => log.push(entry) });
  });
  afterAll(() => server?.close());

  it('answers three requests pipelined in one write, in order, on one connection', async () => {
    log.length = 0;
    const client = rawClient(server.port);
    client.write(
      'GET /index.html HTTP/1.1\r\nHost: t\r\n\r\n' +
        'GET /img.png HTTP/1.1\r\nHost: t\r\n\r\n' +
        'GET /style.css HTTP/1.1\r\nHost: t\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n',
    );
    await client.closed();
    const responses = parseResponses(Buffer.from(client.text(), 'latin1'));
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(responses[0].body.equals(PAGE)).toBe(true);
    expect(responses[1].body.equals(IMAGE)).toBe(true);
    expect([responses[2].headers['content-encoding'], responses[2].body.equals(CSS_GZ)]).toEqual(['gzip', true]);
    await eventually(() => log.length === 3);
    expect(log.map((e) => [e.url, e.httpVersion, e.status, e.encoding])).toEqual([
      ['/index.html', '1.1', 200, 'identity'],
      ['/img.png', '1.1', 200, 'identity'],
      ['/style.css', '1.1', 200, 'gzip'],
    ]);
    expect(new Set(log.map((e) => e.connection)).size).toBe(1);
  });

  it('answers requests pipelined behind a 4 MiB response whole and in order (replies batched, then streamed with backpressure)', async () => {
    const client = rawClient(server.port);
    client.write(
      'GET /img.png HTTP/1.1\r\nHost: t\r\n\r\n' +
        'GET /big.bin HTTP/1.1\r\nHost: t\r\n\r\n' +
        'GET /index.html HTTP/1.1\r\nHost: t\r\n\r\n' +
        `GET /img.png HTTP/1.1\r\nHost: t\r\nIf-None-Match: ${tag(IMAGE)}\r\nConnection: close\r\n\r\n`,
    );
    await client.closed(10_000);
    const responses = parseResponses(Buffer.from(client.text(), 'latin1'));
    expect(responses.map((r) => [r.status, r.body.length])).toEqual([[200, IMAGE.length], [200, BIG.length], [200, PAGE.length], [304, 0]]);
    expect([responses[0].body.equals(IMAGE), responses[1].body.equals(BIG), responses[2].body.equals(PAGE)]).toEqual([true, true, true]);
  });

  it('in snapshot mode answers byte for byte as without it, repeated requests from memory', async () => {
    const requests = [
      'GET /index.html HTTP/1.1\r\nHost: t\r\n\r\n',
      'HEAD /index.html HTTP/1.1\r\nHost: t\r\n\r\n',
      `GET /index.html HTTP/1.1\r\nHost: t\r\nIf-None-Match: ${tag(PAGE)}\r\n\r\n`,
      `GET /index.html HTTP/1.1\r\nHost: t\r\nIf-Modified-Since: ${LAST_MODIFIED}\r\n\r\n`,
      'GET /index.html HTTP/1.1\r\nHost: t\r\nIf-Modified-Since: Wed, 01 May 2024 11:00:00 GMT\r\n\r\n',
      'GET /style.css HTTP/1.1\r\nHost: t\r\nAccept-Encoding: br\r\n\r\n',
      `GET /style.css HTTP/1.1\r\nHost: t\r\nAccept-Encoding: gzip\r\nIf-None-Match: ${tag(CSS_GZ, 'gzip')}\r\n\r\n`,
      'GET /style.css HTTP/1.1\r\nHost: t\r\nAccept-Encoding: identity;q=0\r\n\r\n',
      'GET /style.css HTTP/1.1\r\nHost: t\r\nRange: bytes=0-9\r\n\r\n',
      'GET /images/both HTTP/1.1\r\nHost: t\r\nAccept: text/html\r\n\r\n',
      'GET /images/both HTTP/1.1\r\nHost: t\r\n\r\n',
      'GET /empty.txt HTTP/1.1\r\nHost: t\r\n\r\n',
      'GET /sub HTTP/1.1\r\nHost: t\r\n\r\n',
      'GET /missing.png HTTP/1.1\r\nHost: t\r\n\r\n',
      'POST /index.html HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n',
    ];
    const exchange = async (/** @type {number} */ port) => {
      const client = rawClient(port);
      client.write(`${requests.flatMap((r) => [r, r]).join('')}GET /img.png HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n`);
      await client.closed();
      return client.text().replace(/\r\nDate: [^\r]*/g, '');
    };
    const snapshot = await startServer({ root, snapshot: true });
    try {
      // Requests that arrive together are all looked up; on the second connection, the snapshot remembers their answers.
      const [first, remembered, looked] = [await exchange(snapshot.port), await exchange(snapshot.port), await exchange(server.port)];
      expect(first).toBe(looked);
      expect(remembered).toBe(looked);
      // Status lines (the bodies here hold no such text; compressed ones need not end in a newline).
      expect([...remembered.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]))).toEqual([
        200, 200, 200, 200, 304, 304, 304, 304, 200, 200, 200, 200, 304, 304, 406, 406, 206, 206, 200, 200, 200, 200, 200, 200, 301, 301, 404, 404, 405, 405, 200,
      ]);
    } finally {
      await snapshot.close();
    }
  });

  it('closes an HTTP/1.0 connection after the response unless asked to keep it alive', async () => {
    const plain = rawClient(server.port);
    plain.write('GET /index.html HTTP/1.0\r\n\r\n');
    await plain.closed();
    const [only, ...rest] = parseResponses(Buffer.from(plain.text(), 'latin1'));
    expect([only.status, only.body.equals(PAGE), rest.length]).toEqual([200, true, 0]);

    const kept = rawClient(server.port);
    kept.write('GET /index.html HTTP/1.0\r\nConnection: keep-alive\r\n\r\n');
    const [first] = await kept.responses(1);
    expect([first.status, first.headers.connection, kept.isClosed]).toEqual([200, 'keep-alive', false]);
    kept.write('GET /img.png HTTP/1.0\r\n\r\n');
    const both = await kept.responses(2);
    expect(both[1].body.equals(IMAGE)).toBe(true);
    await kept.closed();
  });

  it('with keepAlive: false, answers one request per connection with Connection: close', async () => {
    const entries = [];
    const downgraded = await startServer({ root, keepAlive: false, onRequest: (e) => entries.push(e) });
    try {
      const client = rawClient(downgraded.port);
      client.write('GET /index.html HTTP/1.1\r\nHost: t\r\n\r\nGET /img.png HTTP/1.1\r\nHost: t\r\n\r\n');
      await client.closed();
      const responses = parseResponses(Buffer.from(client.text(), 'latin1'));
      expect(responses.map((r) => [r.status, r.headers.connection])).toEqual([[200, 'close']]);
      expect(responses[0].body.equals(PAGE)).toBe(true);
      const again = await http1Request(downgraded.port, '/img.png', 'GET', { connection: 'keep-alive' });
      expect(again.status).toBe(200);
      await eventually(() => entries.length === 2);
      expect(entries[0].connection).not.toBe(entries[1].connection);
    } finally {
      await downgraded.close();
    }
  });

  it('refuses raw traversal on the request line', async () => {
    for (const target of ['/../secret.txt', '/../../../../../../etc/passwd', '/sub/../../secret.txt', '/./index.html']) {
      const client = rawClient(server.port);
      client.write(`GET ${target} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n`);
      await client.closed();
      expect([target, client.text()]).toEqual([target, expect.stringMatching(/^HTTP\/1\.1 400 /)]);
      expect(client.text()).not.toMatch(/SECRET|root:/);
    }
  });

  it('answers 431 to oversized headers and closes slow clients', async () => {
    const big = rawClient(server.port);
    big.write(`GET / HTTP/1.1\r\nHost: t\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    await big.closed();
    expect(big.text()).toMatch(/^HTTP\/1\.1 431 /);

    const strict = await startServer({ root, maxHeaderSize: 1024, headersTimeout: 200 });
    try {
      const res = await http1Request(strict.port, '/', 'GET', { 'x-big': 'a'.repeat(2000) });
      expect(res.status).toBe(431);
      expect((await http1Request(strict.port, '/', 'GET', { 'x-small': 'a' })).status).toBe(200);
      const slow = rawClient(strict.port);
      slow.write('GET / HTTP/1.1\r\nHost: t\r\n'); // and never the blank line
      await slow.closed(3000);
    } finally {
      await strict.close();
    }
  });

  it('survives a client that leaves mid-response', async () => {
    log.length = 0;
    const client = rawClient(server.port);
    client.write('GET /big.bin HTTP/1.1\r\nHost: t\r\n\r\n');
    await within(5000, once(client.socket, 'data'));
    client.socket.destroy();
    await eventually(() => log.length === 1);
    expect([log[0].status, log[0].aborted]).toEqual([200, true]);
    const after = await http1Request(server.port, '/big.bin');
    expect([after.status, after.body.equals(BIG)]).toEqual([200, true]);
  });
});

describe('HTTP/2', () => {
  it('answers 431 to a header list past maxHeaderSize, and survives a cancelled stream', async () => {
    const log = [];
    const server = await startServer({ root, protocol: 'h2c', maxHeaderSize: 1024, onRequest: (e) => log.push(e) });
    try {
      expect((await request(server, '/', { headers: { 'x-big': 'a'.repeat(2000) } })).status).toBe(431);
      expect((await request(server, '/', { headers: { 'x-small': 'a' } })).status).toBe(200);
      log.length = 0;
      const session = http2.connect(server.url);
      const stream = session.request({ ':path': '/big.bin' });
      await within(5000, once(stream, 'data'));
      stream.close(http2.constants.NGHTTP2_CANCEL);
      await eventually(() => log.length === 1);
      expect([log[0].httpVersion, log[0].aborted]).toEqual(['2.0', true]);
      const again = await within(5000, new Promise((resolve, reject) => {
        const next = session.request({ ':path': '/img.png' });
        const chunks = [];
        next.on('data', (c) => chunks.push(c));
        next.on('end', () => resolve(Buffer.concat(chunks)));
        next.on('error', reject);
      }));
      expect(again.equals(IMAGE)).toBe(true);
      session.close();
    } finally {
      await server.close();
    }
  });

  it.skipIf(needed(existsSync('/proc/self/fd') ? null : '/proc/self/fd is missing', 'test/server.test.js: the open-files check'))('closes every file when clients cancel streams before or during the response', async () => {
    // Counted in /proc: an HTTP/2 response whose stream is already gone never ends a pipeline.
    const fdCount = async () => (await fs.readdir('/proc/self/fd')).length;
    const server = await startServer({ root, protocol: 'h2c' });
    try {
      const session = http2.connect(server.url);
      await within(5000, once(session, 'connect'));
      const before = await fdCount();
      const streams = Array.from({ length: 60 }, (_, i) => {
        const stream = session.request({ ':path': i % 2 ? '/big.bin' : '/style.css' });
        stream.on('error', () => {});
        setTimeout(() => stream.close(http2.constants.NGHTTP2_CANCEL), i % 6);
        return once(stream, 'close');
      });
      await within(5000, Promise.all(streams));
      // The handlers outlive the streams (a few file-system calls each): give them time to end.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await eventually(async () => (await fdCount()) <= before, 2000);
      session.close();
    } finally {
      await server.close();
    }
  });

  it('h2 closes a connection that never finishes its TLS handshake', async () => {
    const server = await startServer({ root, protocol: 'h2', headersTimeout: 300 });
    try {
      const client = rawClient(server.port);
      await client.closed(3000);
    } finally {
      await server.close();
    }
  });

  it('h2 also speaks HTTP/1.1 over TLS, and its certificate verifies for 127.0.0.1 and localhost', async () => {
    const log = [];
    const server = await startServer({ root, protocol: 'h2', onRequest: (e) => log.push(e) });
    try {
      const cert = new crypto.X509Certificate(server.certificate);
      expect(cert.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
      expect(cert.verify(cert.publicKey)).toBe(true);
      const viaHttps = await within(5000, new Promise((resolve, reject) => {
        https.get({ host: '127.0.0.1', port: server.port, path: '/img.png', ca: server.certificate, agent: false }, (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode, version: res.httpVersion, body: Buffer.concat(chunks) }));
        }).on('error', reject);
      }));
      expect([viaHttps.status, viaHttps.version, viaHttps.body.equals(IMAGE)]).toEqual([200, '1.1', true]);
      for (const host of ['127.0.0.1', 'localhost']) {
        // Verified (rejectUnauthorized stays true): the client trusts exactly this certificate.
        const session = http2.connect(`https://${host}:${server.port}`, { ca: server.certificate });
        const status = await within(5000, new Promise((resolve, reject) => {
          session.on('error', reject);
          const stream = session.request({ ':path': '/' });
          stream.on('response', (h) => resolve(h[':status']));
          stream.on('error', reject);
          stream.resume();
        }));
        session.close();
        expect([host, status]).toEqual([host, 200]);
      }
      await eventually(() => log.length === 3);
      expect(log.map((e) => e.httpVersion)).toEqual(['1.1', '2.0', '2.0']);
    } finally {
      await server.close();
    }
  });
});

describe('close()', () => {
  it.each(PROTOCOLS)('ends open %s connections and resolves promptly', async (protocol) => {
    const server = await startServer({ root, protocol });
    let ended;
    if (protocol === 'http1') {
      const client = rawClient(server.port);
      client.write('GET / HTTP/1.1\r\nHost: t\r\n\r\n');
      await client.responses(1);
      ended = client.closed(2000);
    } else {
      const session = http2.connect(server.url, { rejectUnauthorized: false });
      session.on('error', () => {});
      await within(5000, once(session, 'connect'));
      ended = within(2000, once(session, 'close'));
    }
    const started = Date.now();
    await within(2000, server.close());
    await ended;
    expect(Date.now() - started).toBeLessThan(1000);
    await server.close(); // twice is fine
  });

  it('refuses a root that is not a directory, and unknown protocols', async () => {
    await expect(startServer({ root: path.join(root, 'index.html') })).rejects.toThrow(/is not a directory/);
    await expect(startServer({ root: path.join(root, 'nope') })).rejects.toThrow(/ENOENT/);
    await expect(startServer({ root, protocol: /** @type {any} */ ('h3') })).rejects.toThrow(/unknown protocol 'h3'/);
  });
});

describe('Accept-Encoding and Range parsing', () => {
  const ALL = ['identity', 'br', 'zstd', 'gzip'];
  it.each([
    [undefined, ALL, 'identity'],
    ['', ALL, 'identity'],
    ['br;q=0.5', ALL, 'br'],
    ['br;q=0.5', ['identity'], 'identity'],
    ['*;q=0, identity', ALL, 'identity'],
    ['*;q=0.1, gzip;q=0', ['identity', 'gzip'], 'identity'],
    ['identity;q=0', ALL, null],
    ['gzip;q=0.001', ['identity', 'gzip'], 'gzip'],
    ['GZIP ; Q=0.8, br;q=0.7', ALL, 'gzip'],
    ['br;q=2, gzip', ALL, 'gzip'],
    ['zstd, br', ['identity', 'zstd', 'gzip'], 'zstd'],
  ])('Accept-Encoding %j of %j → %j', (header, available, expected) => {
    expect(chooseEncoding(header, available)).toBe(expected);
  });

  it('reads Range and If-Range', () => {
    const modified = new Date('2024-05-01T12:00:00.500Z');
    const range = (value, size = 10, extra = {}) => requestedRange({ range: value, ...extra }, size, '"t"', modified);
    expect(range('bytes=0-3')).toEqual({ start: 0, end: 3 });
    expect(range('bytes = 2 - 4')).toEqual({ start: 2, end: 4 });
    expect(range('bytes=-20')).toEqual({ start: 0, end: 9 });
    expect(range('bytes=10-')).toBe('unsatisfiable');
    expect(range('bytes=0-', 0)).toBe('unsatisfiable');
    expect(range('bytes=-')).toBeNull();
    expect(range('bytes=0-1, 3-4')).toBeNull();
    expect(range('bytes=0-0', 10, { 'if-range': '"t"' })).toEqual({ start: 0, end: 0 });
    expect(range('bytes=0-0', 10, { 'if-range': 'W/"t"' })).toBeNull();
    expect(range('bytes=0-0', 10, { 'if-range': LAST_MODIFIED })).toEqual({ start: 0, end: 0 });
    expect(range('bytes=0-0', 10, { 'if-range': 'Wed, 01 May 2024 11:00:00 GMT' })).toBeNull();
  });
});

describe('pagediet serve', { timeout: 600_000 }, () => {
  /** Starts the CLI; resolves with the child and its first stdout line. The limits guard a CLI that hangs: a start took over 10 s beside a loaded run. */
  async function serve(args) {
    const child = spawn(process.execPath, [BIN, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PAGEDIET_DEBUG: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    await within(120_000, new Promise((resolve) => {
      child.stdout.on('data', () => stdout.includes('\n') && resolve(undefined));
      child.on('exit', resolve);
    }));
    return { child, line: stdout, stderr: () => stderr, exited: () => within(120_000, exited) };
  }

  it('prints its line, answers requests, and exits cleanly on SIGTERM with a connection open', async () => {
    const { child, line, stderr, exited } = await serve([root, '--port', '0']);
    try {
      const match = /^pagediet: serving (.*) at http:\/\/127\.0\.0\.1:(\d+) \(Ctrl-C to stop\)\n$/.exec(line);
      expect(match?.[1]).toBe(root);
      const port = Number(match?.[2]);
      const res = await http1Request(port, '/index.html');
      expect([res.status, res.body.equals(PAGE), res.headers['cache-control']]).toEqual([200, true, PAGE_CACHE]);
      expect((await http1Request(port, '/img.png')).headers['cache-control']).toBe(SHORT_CACHE);
      const idle = rawClient(port);
      idle.write('GET / HTTP/1.1\r\nHost: t\r\n\r\n');
      await idle.responses(1);
      child.kill('SIGTERM');
      expect(await exited()).toEqual({ code: 0, signal: null });
      expect(stderr()).toBe('');
      await idle.closed();
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('serves HTTP/2 over TLS with --protocol h2 and stops on SIGINT', async () => {
    const { child, line, exited } = await serve([root, '--protocol', 'h2']);
    try {
      const url = /at (https:\/\/127\.0\.0\.1:\d+) /.exec(line)?.[1];
      expect(url).toBeDefined();
      const res = await h2Request(url, '/img.png', 'GET', {});
      expect([res.status, res.body.equals(IMAGE)]).toEqual([200, true]);
      child.kill('SIGINT');
      expect(await exited()).toEqual({ code: 0, signal: null });
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('sends no Cache-Control with --cache-headers none, as a stock server, and refuses another value in one line', async () => {
    const { child, line, exited } = await serve([root, '--cache-headers', 'none']);
    try {
      const port = Number(/:(\d+) \(Ctrl-C/.exec(line)?.[1]);
      const res = await http1Request(port, '/img.png');
      expect([res.status, res.headers['cache-control'], res.headers['last-modified']]).toEqual([200, undefined, LAST_MODIFIED]);
      child.kill('SIGTERM');
      expect(await exited()).toEqual({ code: 0, signal: null });
    } finally {
      child.kill('SIGKILL');
    }
    const bad = await serve([root, '--cache-headers', 'forever']);
    expect(await bad.exited()).toEqual({ code: 1, signal: null });
    expect(bad.stderr().split('\n')).toHaveLength(2);
    expect(bad.stderr()).toContain("'forever' is invalid");
  });

  it('reports a port in use or malformed in one line', async () => {
    const taken = await startServer({ root });
    try {
      const inUse = await serve([root, '--port', String(taken.port)]);
      expect([await inUse.exited(), inUse.stderr()]).toEqual([{ code: 1, signal: null }, `pagediet: cannot listen on 127.0.0.1 port ${taken.port}: it is in use\n`]);
    } finally {
      await taken.close();
    }
    const bad = await serve([root, '--port', '80x']);
    expect([await bad.exited(), bad.stderr()]).toEqual([{ code: 1, signal: null }, "pagediet: --port must be a number from 0 to 65535, not '80x'\n"]);
  });

  it('reports an input that is not a directory in one line', async () => {
    for (const [dir, message] of [
      [path.join(root, 'index.html'), `pagediet: ${path.join(root, 'index.html')} is not a directory\n`],
      [path.join(root, 'nope'), `pagediet: directory ${path.join(root, 'nope')} does not exist\n`],
    ]) {
      const { line, stderr, exited } = await serve([dir]);
      expect([await exited(), line, stderr()]).toEqual([{ code: 1, signal: null }, '', message]);
    }
  });
});

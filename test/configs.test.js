// The server configs, proven on the real servers: Debian's nginx (with the
// brotli static module), Apache, Caddy and h2o serve the output of builds of
// fixtures/microscape, fixtures/h2-sample and a site with a fingerprinted
// file and names with spaces and non-ASCII characters.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../src/pipeline.js';
import { CONFIG_FILES, SERVERS, readSiteFiles, serverConfig } from '../src/configs/index.js';
import { IMMUTABLE, REVALIDATE } from '../src/configs/shared.js';
import { VERSION } from '../src/summary.js';
import { startServer, unavailable } from './helpers/servers.js';
import { tempDir, writeTree } from './helpers/tmp.js';
import { needed } from './helpers/needed.js';

const ACCEPT_ENCODINGS = ['br', 'gzip', 'br, gzip', 'gzip;q=0, br', 'identity', null];
const JS = await fs.readFile('fixtures/h2-sample/js/10k-2.js');
const CSS = await fs.readFile('fixtures/h2-sample/css/style.css');

/**
 * What each URL is: its file in the served root, and the Cache-Control it must get
 * (h2o, which has no patterns, revalidates every file that is not fingerprinted).
 * @type {{ url: string, file: string, cache: 'immutable' | 'revalidate' | 'none' }[]}
 */
const URLS = [
  { url: '/microscape/', file: 'microscape/index.html', cache: 'revalidate' },
  { url: '/microscape/index.html', file: 'microscape/index.html', cache: 'revalidate' },
  { url: '/h2-sample/css/style.css', file: 'h2-sample/css/style.css', cache: 'none' },
  { url: '/h2-sample/js/10k-1.js', file: 'h2-sample/js/10k-1.js', cache: 'none' },
  { url: '/h2-sample/img/1k-01.png', file: 'h2-sample/img/1k-01.png', cache: 'none' },
  { url: '/extra/js/app.0123abcd.js', file: 'extra/js/app.0123abcd.js', cache: 'immutable' },
  { url: '/extra/na%C3%AFve%20caf%C3%A9/%C3%BCber%20stra%C3%9Fe.css', file: 'extra/naïve café/über straße.css', cache: 'none' },
];

/**
 * A raw HTTP request: the exact bytes of the body, no decoding.
 * @param {string} url
 * @param {{ method?: string, headers?: Record<string, string> }} [options]
 * @returns {Promise<{ status: number, headers: http.IncomingHttpHeaders, body: Buffer }>}
 */
function request(url, options = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
      /** @type {Buffer[]} */
      const chunks = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => resolve({ status: /** @type {number} */ (res.statusCode), headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * The coding a correct server picks: the sidecar of the first coding the
 * client accepts (q > 0), br before gzip; identity without a sidecar or an
 * Accept-Encoding.
 * @param {string | null} acceptEncoding
 * @param {Set<string>} sidecars the codings that have a sidecar
 */
function expectedCoding(acceptEncoding, sidecars) {
  if (!acceptEncoding) return undefined;
  const accepted = new Set(acceptEncoding.split(',').map((part) => {
    const [name, ...params] = part.trim().split(';').map((s) => s.trim());
    const q = params.find((p) => p.startsWith('q='));
    return q && Number(q.slice(2)) === 0 ? '' : name;
  }));
  return ['br', 'gzip'].find((c) => accepted.has(c) && sidecars.has(c));
}

/** @param {string} file */
const exists = (file) => fs.access(file).then(() => true, () => false);

/** @param {Buffer} body @param {string | undefined} coding */
function decode(body, coding) {
  if (coding === 'br') return zlib.brotliDecompressSync(body);
  if (coding === 'gzip') return zlib.gunzipSync(body);
  return body;
}

/** @type {string} */
let root;
/** @type {Record<string, string>} the configs the microscape build wrote */
let written;

beforeAll(async () => {
  root = await tempDir('pagediet-served-');
  const extra = await writeTree(await tempDir(), {
    'index.html': `<!doctype html><title>extra</title><link rel="stylesheet" href="naïve café/über straße.css"><script src="js/app.0123abcd.js"></script>${'<p>served by a real server</p>\n'.repeat(20)}`,
    'js/app.0123abcd.js': JS,
    'naïve café/über straße.css': CSS.subarray(0, 4096),
  });
  const cacheDir = await tempDir('pagediet-cache-');
  for (const [name, input] of [['microscape', 'fixtures/microscape'], ['h2-sample', 'fixtures/h2-sample'], ['extra', extra]]) {
    await build({ input, output: path.join(root, name), only: ['precompress'], cacheDir });
  }
  // As if a build were served at the root: its configs are in the site, and must not be served.
  await fs.cp(path.join(root, 'microscape', 'pagediet-configs'), path.join(root, 'pagediet-configs'), { recursive: true });
  written = Object.fromEntries(await Promise.all(Object.values(CONFIG_FILES).map(async (f) => [f, await fs.readFile(path.join(root, 'microscape', 'pagediet-configs', f), 'utf8')])));
}, 240_000);

describe('the configs a build writes', () => {
  it('writes one per server into pagediet-configs/, each starting with a comment naming pagediet and what it needs', () => {
    expect(Object.keys(written).sort()).toEqual(['_headers', 'caddy.conf', 'h2o.yaml', 'htaccess', 'nginx.conf']);
    for (const text of Object.values(written)) expect(text.startsWith(`# pagediet ${VERSION}: `)).toBe(true);
    expect(written['nginx.conf']).toContain('#     load_module modules/ngx_http_brotli_static_module.so;');
    expect(written['nginx.conf']).toContain('\ngzip_vary on;\n');
    expect(written.htaccess).toContain('RemoveType .gz .br .zst');
    expect(written.htaccess).toContain('RemoveLanguage .br');
    expect(written.htaccess).toContain('[E=no-gzip:1,E=no-brotli:1]');
    expect(written['caddy.conf']).toContain('\tprecompressed br gzip\n');
  });

  it('writes the same nginx, Apache and Caddy configs for every site (they use patterns, not file lists)', async () => {
    for (const name of ['h2-sample', 'extra']) {
      for (const f of ['nginx.conf', 'htaccess', 'caddy.conf']) expect(await fs.readFile(path.join(root, name, 'pagediet-configs', f), 'utf8')).toBe(written[f]);
    }
  });

  it('lists pages and fingerprinted files in _headers, percent-encoded', async () => {
    const headers = serverConfig('headers', await readSiteFiles(path.join(root, 'extra')));
    expect(headers.split('\n').filter((l) => l && !l.startsWith('#'))).toEqual([
      '/', `  Cache-Control: ${REVALIDATE}`,
      '/index.html', `  Cache-Control: ${REVALIDATE}`,
      '/js/app.0123abcd.js', `  Cache-Control: ${IMMUTABLE}`,
    ]);
  });

  it('answers `pagediet configs <dir> --server` on stdout or into --out, and refuses unknown servers', async () => {
    const run = promisify(execFile);
    const bin = path.resolve('bin/pagediet.js');
    const site = path.join(root, 'h2-sample');
    const { stdout } = await run(process.execPath, [bin, 'configs', site, '--server', 'caddy']);
    expect(stdout).toBe(written['caddy.conf']);
    const out = path.join(await tempDir(), 'nginx.conf');
    await run(process.execPath, [bin, 'configs', site, '--server', 'nginx', '--out', out]);
    expect(await fs.readFile(out, 'utf8')).toBe(written['nginx.conf']);
    const bad = await run(process.execPath, [bin, 'configs', site, '--server', 'iis']).catch((e) => e);
    expect([bad.code, bad.stderr.split('\n')[0]]).toEqual([1, `error: option '--server <name>' argument 'iis' is invalid. Allowed choices are ${SERVERS.join(', ')}.`]);
  });
});

describe.each(/** @type {const} */ (['nginx', 'apache', 'caddy', 'h2o']))('%s serving the build', (server) => {
  const reason = needed(unavailable(server), `test/configs.test.js: ${server}'s tests`);
  /** @type {import('./helpers/servers.js').RunningServer | undefined} */
  let running;

  beforeAll(async () => {
    if (reason) return;
    const snippet = server === 'h2o' ? serverConfig('h2o', await readSiteFiles(root)) : written[CONFIG_FILES[server]];
    running = await startServer(server, { root, snippet, work: await tempDir(`pagediet-${server}-`) });
  }, 60_000);
  afterAll(async () => {
    await running?.stop();
  });

  it.skipIf(reason)(`serves each coding by Accept-Encoding, with the identity response's type, Vary, ETag revalidation and HEAD${reason ? ` (skipped: ${reason})` : ''}`, async () => {
    const { origin } = /** @type {import('./helpers/servers.js').RunningServer} */ (running);
    /** @type {string[]} */
    const rows = [];
    for (const { url, file } of URLS) {
      const original = await fs.readFile(path.join(root, file));
      const sidecars = new Set();
      for (const [coding, ext] of [['br', '.br'], ['gzip', '.gz']]) if (await exists(path.join(root, file + ext))) sidecars.add(coding);
      const identity = await request(origin + url, { headers: { 'accept-encoding': 'identity' } });
      for (const ae of ACCEPT_ENCODINGS) {
        const headers = /** @type {Record<string, string>} */ (ae === null ? {} : { 'accept-encoding': ae });
        const res = await request(origin + url, { headers });
        const coding = expectedCoding(ae, sidecars);
        const where = `${server} ${url} Accept-Encoding: ${ae}`;
        expect(res.status, where).toBe(200);
        expect(res.headers['content-encoding'], where).toBe(coding);
        expect(res.headers['content-type'], where).toBe(identity.headers['content-type']);
        expect(res.headers['content-language'], where).toBe(identity.headers['content-language']);
        if (sidecars.size) expect(res.headers.vary ?? '', where).toMatch(/(^|,\s*)accept-encoding(\s*,|$)/i);
        expect(decode(res.body, coding).equals(original), where).toBe(true);
        // Revalidation with the validator just received.
        const etag = /** @type {string} */ (res.headers.etag);
        expect(etag, where).toBeTruthy();
        const again = await request(origin + url, { headers: { ...headers, 'if-none-match': etag } });
        expect([again.status, again.body.length], `${where} If-None-Match`).toEqual([304, 0]);
        const head = await request(origin + url, { method: 'HEAD', headers });
        expect([head.status, head.body.length, head.headers['content-encoding']], `${where} HEAD`).toEqual([200, 0, coding]);
        rows.push(`${url} ${ae ?? '(none)'} -> ${coding ?? 'identity'}`);
      }
    }
    expect(rows.length).toBe(URLS.length * ACCEPT_ENCODINGS.length);
  });

  it.skipIf(reason)('sends a year-long immutable Cache-Control for fingerprinted names only, and no-cache for pages', async () => {
    const { origin } = /** @type {import('./helpers/servers.js').RunningServer} */ (running);
    for (const { url, cache } of URLS) {
      const res = await request(origin + url, { headers: { 'accept-encoding': 'br, gzip' } });
      const expected = cache === 'immutable' ? IMMUTABLE : cache === 'revalidate' || server === 'h2o' ? REVALIDATE : undefined;
      expect(res.headers['cache-control'], `${server} ${url}`).toBe(expected);
    }
  });

  it.skipIf(reason)('does not serve the configs the build wrote into the site', async () => {
    const { origin } = /** @type {import('./helpers/servers.js').RunningServer} */ (running);
    expect(await exists(path.join(root, 'pagediet-configs', 'nginx.conf'))).toBe(true);
    const res = await request(`${origin}/pagediet-configs/nginx.conf`);
    expect(res.status).toBe(404);
  });
});

// The server configs, proven on the real servers: Debian's nginx (with and
// without the brotli static module), Apache, Caddy and h2o serve the output of
// builds of fixtures/microscape, fixtures/h2-sample and a site with
// fingerprinted files (hex, and Vite's base64url), an image without a
// fingerprint, and names with spaces and non-ASCII characters. The configs a
// build writes go beside its output, never into it.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import http2 from 'node:http2';
import path from 'node:path';
import zlib from 'node:zlib';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../src/build/pipeline.js';
import { CONFIG_FILES, SERVERS, readSiteFiles, serverConfig } from '../src/configs/index.js';
import { caddyFingerprintExpression } from '../src/configs/caddy.js';
import { FINGERPRINT_PATTERN, IMMUTABLE, REVALIDATE, SHORT, cachePolicy, fingerprintRules, isFingerprinted } from '../src/configs/shared.js';
import { MARKER } from '../src/build/output.js';
import { VERSION } from '../src/build/summary.js';
import { freePort, nginxMainConf, startServer, unavailable } from './helpers/servers.js';
import { tempDir, writeTree, readTree } from './helpers/tmp.js';
import { needed } from './helpers/needed.js';

const ACCEPT_ENCODINGS = ['br', 'gzip', 'br, gzip', 'gzip;q=0, br', 'identity', null];
const JS = await fs.readFile('fixtures/h2-sample/js/10k-2.js');
const CSS = await fs.readFile('fixtures/h2-sample/css/style.css');
const PNG = await fs.readFile('fixtures/h2-sample/img/1k-01.png');
const SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">${Array.from({ length: 20 }, (_, i) => `<circle cx="${i * 5}" cy="50" r="${i}" fill="#${(i * 123456).toString(16).padStart(6, '0').slice(0, 6)}"/>`).join('')}</svg>\n`;

/** The files of the small site with fingerprints (its pages are UTF-8). */
const EXTRA = {
  'index.html': `<!doctype html><meta charset="utf-8"><title>extra</title><link rel="stylesheet" href="naïve café/über straße.css"><link rel="stylesheet" href="assets/index-DsUq3xZ1.css"><script src="js/app.0123abcd.js"></script><script type="module" src="assets/index-CWg6gKPv.js"></script><img src="assets/logo-BQ2LkXbZ.svg"><img src="img/photo.png">${'<p>served by a real server, café</p>\n'.repeat(20)}`,
  'js/app.0123abcd.js': JS,
  'assets/index-CWg6gKPv.js': JS.subarray(0, 6000),
  'assets/index-DsUq3xZ1.css': CSS.subarray(0, 3000),
  'assets/logo-BQ2LkXbZ.svg': SVG,
  'img/photo.png': PNG,
  'naïve café/über straße.css': CSS.subarray(0, 4096),
};

/**
 * What each URL is: its file in the served root, the Cache-Control it must get
 * (h2o, which has no patterns, revalidates every file that is not fingerprinted),
 * and whether its Content-Type must say charset=utf-8 (text types of the UTF-8 sites).
 * @type {{ url: string, file: string, cache: 'immutable' | 'revalidate' | 'short', utf8?: boolean }[]}
 */
const URLS = [
  { url: '/microscape/', file: 'microscape/index.html', cache: 'revalidate' },
  { url: '/microscape/index.html', file: 'microscape/index.html', cache: 'revalidate' },
  { url: '/h2-sample/css/style.css', file: 'h2-sample/css/style.css', cache: 'short', utf8: true },
  { url: '/h2-sample/js/10k-1.js', file: 'h2-sample/js/10k-1.js', cache: 'short' },
  { url: '/h2-sample/img/1k-01.png', file: 'h2-sample/img/1k-01.png', cache: 'short' },
  { url: '/extra/', file: 'extra/index.html', cache: 'revalidate', utf8: true },
  { url: '/extra/index.html', file: 'extra/index.html', cache: 'revalidate', utf8: true },
  { url: '/extra/js/app.0123abcd.js', file: 'extra/js/app.0123abcd.js', cache: 'immutable' },
  { url: '/extra/assets/index-CWg6gKPv.js', file: 'extra/assets/index-CWg6gKPv.js', cache: 'immutable' },
  { url: '/extra/assets/index-DsUq3xZ1.css', file: 'extra/assets/index-DsUq3xZ1.css', cache: 'immutable', utf8: true },
  { url: '/extra/assets/logo-BQ2LkXbZ.svg', file: 'extra/assets/logo-BQ2LkXbZ.svg', cache: 'immutable', utf8: true },
  { url: '/extra/img/photo.png', file: 'extra/img/photo.png', cache: 'short' },
  { url: '/extra/na%C3%AFve%20caf%C3%A9/%C3%BCber%20stra%C3%9Fe.css', file: 'extra/naïve café/über straße.css', cache: 'short', utf8: true },
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
 * @param {Set<string>} sidecars the codings that have a sidecar (and that the server serves)
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

/** @type {string} the served root: the three builds side by side, and an older build's configs */
let root;
/** @type {string} where the builds were written, each with its <name>-configs/ beside it */
let built;
/** @type {Record<string, Record<string, string>>} the configs each build wrote, by site and file name */
let written;

beforeAll(async () => {
  root = await tempDir('pagediet-served-');
  built = await tempDir('pagediet-built-');
  const extra = await writeTree(await tempDir(), EXTRA);
  const cacheDir = await tempDir('pagediet-cache-');
  written = {};
  for (const [name, input] of [['microscape', 'fixtures/microscape'], ['h2-sample', 'fixtures/h2-sample'], ['extra', extra]]) {
    await build({ input, output: path.join(built, name), only: ['precompress'], cacheDir });
    await fs.cp(path.join(built, name), path.join(root, name), { recursive: true });
    const configs = path.join(built, `${name}-configs`);
    written[name] = Object.fromEntries(await Promise.all((await fs.readdir(configs)).map(async (f) => [f, await fs.readFile(path.join(configs, f), 'utf8')])));
  }
  // As if an older build were served at the root: its configs are in the site, and must not be served.
  await writeTree(root, { 'pagediet-configs/nginx.conf': written.microscape['nginx.conf'] });
}, 240_000);

describe('fingerprinted names', () => {
  const YES = [
    'assets/index-CWg6gKPv.js', // Vite (Rolldown): name-[hash], 8 base64url
    'assets/logo-BQ2LkXbZ.svg',
    'assets/index-R54MW1DP.js',
    'assets/m101-hrHV3tZj.js',
    'assets/vendor-a_9Xk-Q2.js', // base64url has _ and -
    'assets/chunk--Xk2q9Ab.js', // and may start with one
    'main.3f2a9c1b4d5e6f708192.js', // webpack [contenthash]: 20 hex
    'js/app.0123abcd.js', // webpack [contenthash:8], Parcel
    'app.1a2b3c4d.js',
    'out-5DNFXCZT.js', // esbuild: 8 of base32 (A-Z 2-7)
    'name-ABCD1234.js',
    'style-5d41402abc4b2a76.css', // gulp-rev and the like: hex after a hyphen
    'css/main.min.0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0.css', // Hugo: 64 hex
  ];
  const NO = [
    'jquery-3.7.1.min.js', 'bootstrap.min.css', 'logo-header.png', 'my-component.js', '2024-report.pdf',
    'docs-overview.js', 'page-Overview.js', 'doc-OVERVIEW.pdf', 'nav-MyButton.js', 'report-v2-final.pdf', 'annual-report24.pdf',
    'photo-20240315.jpg', 'x-deadbeef.js', 'gifs/button-products.gif', 'icon-globe-32.gif', 'banner-234-half.gif',
    'assets/index-CWg6gKPv.js.br', 'assets/index-CWg6gKPv.js.gz', 'index-CWg6gKP.js', 'index-CWg6gKPvX.js', 'index_CWg6gKPv.js',
    'app.0123abc.js', 'README', 'index.html',
  ];

  it('recognises the hashes of Vite, Rollup, webpack, Parcel and esbuild, and not words, versions or dates', () => {
    expect(YES.filter((n) => !isFingerprinted(n))).toEqual([]);
    expect(NO.filter((n) => isFingerprinted(n))).toEqual([]);
  });

  it('says the same in every server\'s form: one pattern with lookaheads (PCRE, JavaScript), or rules joined by && and || (RE2, Caddy)', () => {
    const re2 = (/** @type {string} */ name) => fingerprintRules().some((all) => all.every((re) => new RegExp(re).test(name)));
    for (const name of [...YES, ...NO]) expect([name, re2(name)]).toEqual([name, new RegExp(FINGERPRINT_PATTERN).test(name)]);
    // RE2 has no lookaround: the rules Caddy gets must not need it.
    for (const re of fingerprintRules().flat()) expect(re).not.toMatch(/\(\?[=!<]/);
    const expression = caddyFingerprintExpression();
    for (const re of fingerprintRules().flat()) expect(expression).toContain(`{path}.matches(${JSON.stringify(re)})`);
  });

  it('never caches a page for a year; other files without a fingerprint get the short policy', () => {
    expect(['x-Ab3dEf9H.html', 'index.html', 'js/app.0123abcd.js', 'img/photo.png', 'assets/index-CWg6gKPv.js.br'].map(cachePolicy)).toEqual(['revalidate', 'revalidate', 'immutable', 'short', 'short']);
  });
});

describe('where a build writes the configs', () => {
  const SITE = {
    'index.html': `<!doctype html><meta charset="utf-8"><title>t</title><script type="module" src="assets/index-CWg6gKPv.js"></script>${'<p>café</p>\n'.repeat(40)}`,
    'assets/index-CWg6gKPv.js': JS.subarray(0, 2000),
    'img/photo.png': PNG,
  };
  const NAMES = Object.values(CONFIG_FILES).sort();

  it('writes them beside the output, into <output>-configs/, never into the output; a second build replaces them', async () => {
    const input = await writeTree(await tempDir(), SITE);
    const base = await tempDir();
    const out = path.join(base, 'dist');
    const first = await build({ input, output: out, only: ['precompress'], cache: false });
    const site = await readTree(out);
    expect([...site.keys()].sort()).toEqual([MARKER, 'assets/index-CWg6gKPv.js', 'assets/index-CWg6gKPv.js.br', 'assets/index-CWg6gKPv.js.gz', 'img/photo.png', 'index.html', 'index.html.br', 'index.html.gz']);
    expect(JSON.parse(/** @type {Buffer} */ (site.get(MARKER)).toString()).files.some((/** @type {string} */ f) => f.includes('config'))).toBe(false);
    const configsDir = path.join(base, 'dist-configs');
    expect((await fs.readdir(configsDir)).sort()).toEqual(NAMES);
    // The summary counts them, by where they are.
    expect(first.artifacts).toEqual(NAMES.map((n) => path.join(configsDir, n)));
    expect(first.outputFiles.configs).toMatchObject({ files: NAMES.length, paths: NAMES.map((n) => path.join(configsDir, n)) });
    expect(await fs.readFile(path.join(configsDir, '_headers'), 'utf8')).not.toContain('/assets/new');

    // A file of the user's beside them stays; the next build of a changed site rewrites every config.
    await fs.writeFile(path.join(configsDir, 'notes.txt'), 'mine');
    await writeTree(input, { 'assets/new-Ab3dEf9H.js': JS.subarray(0, 1000) });
    const second = await build({ input, output: out, only: ['precompress'], cache: false });
    expect((await fs.readdir(configsDir)).sort()).toEqual([...NAMES, 'notes.txt'].sort());
    expect(await fs.readFile(path.join(configsDir, 'notes.txt'), 'utf8')).toBe('mine');
    expect(await fs.readFile(path.join(configsDir, 'h2o.yaml'), 'utf8')).toContain(`"/assets/new-Ab3dEf9H.js":`);
    expect(second.warnings.map((w) => w.code)).not.toContain('config-exists');
    for (const name of await fs.readdir(out, { recursive: true })) expect(NAMES.includes(path.basename(String(name))), String(name)).toBe(false);

    // A file of a config's name that is not pagediet's is never replaced: that config is not written, and a warning says so.
    await fs.writeFile(path.join(configsDir, 'caddy.conf'), 'my own Caddyfile\n');
    const third = await build({ input, output: out, only: ['precompress'], cache: false });
    expect(await fs.readFile(path.join(configsDir, 'caddy.conf'), 'utf8')).toBe('my own Caddyfile\n');
    expect(third.warnings.filter((w) => w.code === 'config-exists').map((w) => w.message)).toEqual([`${path.join(configsDir, 'caddy.conf')} exists and was not written by pagediet: kept, no caddy.conf written`]);
    expect(third.artifacts).toEqual(NAMES.filter((n) => n !== 'caddy.conf').map((n) => path.join(configsDir, n)));
  }, 60_000);

  it('writes them into the folder configs names, none with configs: false, and refuses a folder in the input', async () => {
    const input = await writeTree(await tempDir(), SITE);
    const base = await tempDir();
    const elsewhere = path.join(await tempDir(), 'server', 'configs');
    await build({ input, output: path.join(base, 'a'), only: ['precompress'], cache: false, configs: elsewhere });
    expect((await fs.readdir(elsewhere)).sort()).toEqual(NAMES);
    await build({ input, output: path.join(base, 'b'), only: ['precompress'], cache: false, configs: false });
    expect((await fs.readdir(base)).sort()).toEqual(['a', 'b']);
    await expect(build({ input, output: path.join(base, 'c'), only: ['precompress'], cache: false, configs: path.join(input, 'configs') }))
      .rejects.toThrow(`the server configs' folder ${path.join(input, 'configs')} is in the input`);
  }, 60_000);

  it('removes the configs an older build wrote into its output, folder and all', async () => {
    const input = await writeTree(await tempDir(), SITE);
    const out = path.join(await tempDir(), 'dist');
    await build({ input, output: out, only: ['precompress'], cache: false });
    // As an older build left its output: the configs inside, listed in its marker.
    const marker = JSON.parse(await fs.readFile(path.join(out, MARKER), 'utf8'));
    marker.files.push(...NAMES.map((n) => `pagediet-configs/${n}`));
    await fs.writeFile(path.join(out, MARKER), JSON.stringify(marker));
    await writeTree(out, Object.fromEntries(NAMES.map((n) => [`pagediet-configs/${n}`, '# pagediet 0.0.1: old\n'])));
    const again = await build({ input, output: out, only: ['precompress'], cache: false });
    expect(again.written.removed).toBe(NAMES.length);
    expect(await exists(path.join(out, 'pagediet-configs'))).toBe(false);
  }, 60_000);
});

describe('the configs a build writes', () => {
  it('writes one per server, and nginx\'s brotli part apart, each starting with a comment naming pagediet and what it needs', () => {
    for (const name of ['microscape', 'h2-sample', 'extra']) expect(Object.keys(written[name]).sort()).toEqual(['_headers', 'caddy.conf', 'h2o.yaml', 'htaccess', 'nginx-brotli.conf', 'nginx.conf']);
    const configs = written.extra;
    for (const text of Object.values(configs)) expect(text.startsWith(`# pagediet ${VERSION}: `)).toBe(true);
    // nginx.conf works on a stock nginx; the brotli module's directive is in its own file, which says it needs the module.
    expect(configs['nginx.conf']).not.toMatch(/^\s*brotli_static/m);
    expect(configs['nginx.conf']).toContain('\ngzip_static on;\n');
    expect(configs['nginx.conf']).toContain('\ngzip_vary on;\n');
    expect(configs['nginx-brotli.conf'].split('\n')[0]).toContain('NEEDS ngx_brotli');
    expect(configs['nginx-brotli.conf']).toContain('#     load_module modules/ngx_http_brotli_static_module.so;');
    expect(configs['nginx-brotli.conf']).toMatch(/\nbrotli_static on;\n$/);
    expect(configs.htaccess).toContain('RemoveType .gz .br .zst');
    expect(configs.htaccess).toContain('RemoveLanguage .br');
    expect(configs.htaccess).toContain('[E=no-gzip:1,E=no-brotli:1]');
    expect(configs['caddy.conf']).toContain('\tprecompressed br gzip\n');
  });

  it('adds charset=utf-8 to text types only when every page is UTF-8, and says so', () => {
    expect(written.extra['nginx.conf']).toContain('\ncharset utf-8;\n');
    expect(written.extra.htaccess).toContain('AddCharset utf-8 .html .htm .css .js .mjs .svg .json .txt .xml');
    expect(written.extra['caddy.conf']).toContain('Content-Type "text/css; charset=utf-8"');
    expect(written.extra['h2o.yaml']).toContain('"text/css; charset=utf-8": ".css"');
    // microscape's page is windows-1252: no charset anywhere, and the comment says why.
    for (const file of ['nginx.conf', 'htaccess', 'caddy.conf', 'h2o.yaml']) {
      const text = written.microscape[file];
      expect(text, file).toContain('# No charset is added to any type: pages of the site are windows-1252');
      expect(text.split('\n').filter((l) => !l.startsWith('#') && /charset/i.test(l)), file).toEqual([]);
    }
  });

  it('writes the same nginx, Apache and Caddy configs for sites of the same charset (they use patterns, not file lists)', () => {
    for (const f of ['nginx.conf', 'nginx-brotli.conf', 'htaccess', 'caddy.conf']) expect(written['h2-sample'][f], f).toBe(written.extra[f]);
  });

  it('lists pages and fingerprinted files in _headers, a folder of fingerprinted files as one rule, percent-encoded', async () => {
    const lines = (/** @type {string} */ text) => text.split('\n').filter((l) => l && !l.startsWith('#'));
    expect(lines(written.extra._headers)).toEqual([
      '/assets/*', `  Cache-Control: ${IMMUTABLE}`,
      '/', `  Cache-Control: ${REVALIDATE}`,
      '/index.html', `  Cache-Control: ${REVALIDATE}`,
      '/js/*', `  Cache-Control: ${IMMUTABLE}`,
    ]);
    // A fingerprinted file beside others is listed by itself.
    const headers = serverConfig('headers', { root: '/srv/site', files: ['café/a-CWg6gKPv.js', 'café/plain.js', 'docs/index.html', 'docs/x.0123abcd.css', 'docs/x.0123abcd.css.br'] });
    expect(lines(headers)).toEqual([
      '/caf%C3%A9/a-CWg6gKPv.js', `  Cache-Control: ${IMMUTABLE}`,
      '/docs/', `  Cache-Control: ${REVALIDATE}`,
      '/docs/index.html', `  Cache-Control: ${REVALIDATE}`,
      '/docs/x.0123abcd.css', `  Cache-Control: ${IMMUTABLE}`,
    ]);
  });

  it('answers `pagediet configs <dir> --server` on stdout or into --out, and refuses unknown servers', async () => {
    const run = promisify(execFile);
    const bin = path.resolve('bin/pagediet.js');
    const site = path.join(built, 'h2-sample');
    const { stdout } = await run(process.execPath, [bin, 'configs', site, '--server', 'caddy']);
    expect(stdout).toBe(written['h2-sample']['caddy.conf']);
    const out = path.join(await tempDir(), 'nginx.conf');
    await run(process.execPath, [bin, 'configs', site, '--server', 'nginx', '--out', out]);
    expect(await fs.readFile(out, 'utf8')).toBe(written['h2-sample']['nginx.conf']);
    expect((await run(process.execPath, [bin, 'configs', site, '--server', 'nginx-brotli'])).stdout).toBe(written['h2-sample']['nginx-brotli.conf']);
    expect((await run(process.execPath, [bin, 'configs', path.join(built, 'microscape'), '--server', 'h2o'])).stdout).toBe(written.microscape['h2o.yaml']);
    const bad = await run(process.execPath, [bin, 'configs', site, '--server', 'iis']).catch((e) => e);
    expect(bad.code).toBe(1);
    expect(bad.stderr.split('\n')[0]).toContain(`option '--server <name>' argument 'iis' is invalid. Allowed choices are ${SERVERS.join(', ')}.`);
  });
});

/**
 * Checks every URL with every Accept-Encoding: status, coding, type, Vary, bytes, 304 and HEAD.
 * @param {string} origin
 * @param {string} where the server, for messages
 * @param {Set<string>} served the codings the server sends sidecars for
 */
async function checkCodings(origin, where, served) {
  /** @type {string[]} */
  const rows = [];
  for (const { url, file } of URLS) {
    const original = await fs.readFile(path.join(root, file));
    const sidecars = new Set();
    for (const [coding, ext] of [['br', '.br'], ['gzip', '.gz']]) if (served.has(coding) && await exists(path.join(root, file + ext))) sidecars.add(coding);
    const identity = await request(origin + url, { headers: { 'accept-encoding': 'identity' } });
    for (const ae of ACCEPT_ENCODINGS) {
      const headers = /** @type {Record<string, string>} */ (ae === null ? {} : { 'accept-encoding': ae });
      const res = await request(origin + url, { headers });
      const coding = expectedCoding(ae, sidecars);
      const at = `${where} ${url} Accept-Encoding: ${ae}`;
      expect(res.status, at).toBe(200);
      expect(res.headers['content-encoding'], at).toBe(coding);
      expect(res.headers['content-type'], at).toBe(identity.headers['content-type']);
      expect(res.headers['content-language'], at).toBe(identity.headers['content-language']);
      if (sidecars.size) expect(res.headers.vary ?? '', at).toMatch(/(^|,\s*)accept-encoding(\s*,|$)/i);
      expect(decode(res.body, coding).equals(original), at).toBe(true);
      // Revalidation with the validator just received.
      const etag = /** @type {string} */ (res.headers.etag);
      expect(etag, at).toBeTruthy();
      const again = await request(origin + url, { headers: { ...headers, 'if-none-match': etag } });
      expect([again.status, again.body.length], `${at} If-None-Match`).toEqual([304, 0]);
      const head = await request(origin + url, { method: 'HEAD', headers });
      expect([head.status, head.body.length, head.headers['content-encoding']], `${at} HEAD`).toEqual([200, 0, coding]);
      rows.push(`${url} ${ae ?? '(none)'} -> ${coding ?? 'identity'}`);
    }
  }
  expect(rows.length).toBe(URLS.length * ACCEPT_ENCODINGS.length);
}

/**
 * Cache-Control and charset of every URL.
 * @param {string} origin
 * @param {string} where
 * @param {{ shortIs?: string }} [options] shortIs: what the server sends for the short policy (h2o: no-cache)
 */
async function checkHeaders(origin, where, { shortIs = SHORT } = {}) {
  for (const { url, cache, utf8 } of URLS) {
    const res = await request(origin + url, { headers: { 'accept-encoding': 'br, gzip' } });
    const expected = { immutable: IMMUTABLE, revalidate: REVALIDATE, short: shortIs }[cache];
    expect(res.headers['cache-control'], `${where} ${url}`).toBe(expected);
    if (utf8) expect(res.headers['content-type'], `${where} ${url}`).toMatch(/;\s*charset=utf-8$/i);
  }
}

describe.each(/** @type {const} */ (['nginx', 'apache', 'caddy', 'h2o']))('%s serving the build', (server) => {
  const reason = needed(unavailable(server), `test/configs.test.js: ${server}'s tests`);
  /** @type {import('./helpers/servers.js').RunningServer | undefined} */
  let running;

  beforeAll(async () => {
    if (reason) return;
    // The UTF-8 site's configs serve the whole root (nginx with its brotli part: the module is loaded).
    const snippet = server === 'h2o'
      ? serverConfig('h2o', { ...(await readSiteFiles(root)), pageCharsets: [] })
      : server === 'nginx' ? `${written.extra['nginx.conf']}\n${written.extra['nginx-brotli.conf']}` : written.extra[CONFIG_FILES[server]];
    running = await startServer(server, { root, snippet, work: await tempDir(`pagediet-${server}-`) });
  }, 60_000);
  afterAll(async () => {
    await running?.stop();
  });

  it.skipIf(reason)(`serves each coding by Accept-Encoding, with the identity response's type, Vary, ETag revalidation and HEAD${reason ? ` (skipped: ${reason})` : ''}`, async () => {
    await checkCodings(/** @type {import('./helpers/servers.js').RunningServer} */ (running).origin, server, new Set(['br', 'gzip']));
  });

  it.skipIf(reason)(`sends a year-long immutable Cache-Control for fingerprinted names (Vite's too), no-cache for pages, ${server === 'h2o' ? 'no-cache (h2o has no patterns)' : 'an hour'} for the rest, and charset=utf-8 on text types`, async () => {
    await checkHeaders(/** @type {import('./helpers/servers.js').RunningServer} */ (running).origin, server, server === 'h2o' ? { shortIs: REVALIDATE } : {});
  });

  it.skipIf(reason)('does not serve the configs an older build wrote into the site', async () => {
    const { origin } = /** @type {import('./helpers/servers.js').RunningServer} */ (running);
    expect(await exists(path.join(root, 'pagediet-configs', 'nginx.conf'))).toBe(true);
    const res = await request(`${origin}/pagediet-configs/nginx.conf`);
    expect(res.status).toBe(404);
  });
});

describe('Apache sending the pages\' preloads as 103 Early Hints', () => {
  const reason = needed(unavailable('apache'), 'test/configs.test.js: Apache\'s early hints');

  it.skipIf(reason)('sends each page\'s image and font preloads in a 103 before its response over HTTP/2, the same Link values as _headers', async () => {
    const site = await writeTree(await tempDir(), {
      'index.html': '<!doctype html><title>a</title><link rel="preload" as="image" href="img/hero.png" imagesrcset="img/hero.png 1x, img/hero@2x.png 2x" fetchpriority="high"><p>a',
      'docs/index.html': '<!doctype html><title>b</title><link rel="preload" as="font" href="../fonts/f.woff2" type="font/woff2" crossorigin><link rel="preload" as="image" href="/img/hero.png" media="(width < 600px)"><p>b',
      'docs/plain page.html': '<!doctype html><title>c</title><link rel="preload" as="image" href="../img/hero.png"><p>c',
      'other.html': '<!doctype html><title>d</title><p>d',
      'img/hero.png': PNG, 'img/hero@2x.png': PNG, 'fonts/f.woff2': 'wOF2',
    });
    const facts = await readSiteFiles(site);
    const htaccess = serverConfig('apache', facts);
    const headers = serverConfig('headers', facts);
    const running = await startServer('apache', { root: site, snippet: htaccess, work: await tempDir('pagediet-apache-hints-') });
    try {
      const h2 = running.h2Origin;
      if (!h2) throw new Error(`no h2c here: ${running.h2Missing}`);
      /** The Link values of the 103s a request gets before its response, and the response's status. @param {string} url */
      const hints = (url) => new Promise((resolve, reject) => {
        // As browsers connect: no server push (mod_http2 would push what the hints name to a client that allows it).
        const session = http2.connect(h2, { settings: { enablePush: false } });
        session.on('error', reject);
        /** @type {string[]} */
        const links = [];
        const stream = session.request({ ':path': url });
        stream.on('headers', (h) => {
          if (h[':status'] === 103) links.push(...String(h.link).split(/,\s*(?=<)/));
        });
        stream.on('response', (h) => {
          stream.resume();
          stream.on('end', () => {
            session.close();
            resolve({ status: h[':status'], links: [...new Set(links)] });
          });
        });
        stream.on('error', reject);
      });
      /** The Link values _headers gives a path. @param {string} url */
      const listed = (url) => {
        const lines = headers.split('\n');
        const at = lines.indexOf(url);
        const links = [];
        for (let i = at + 1; at >= 0 && i < lines.length && lines[i].startsWith('  '); i++) if (lines[i].startsWith('  Link: ')) links.push(lines[i].slice('  Link: '.length));
        return links;
      };
      expect(listed('/index.html')).toEqual(['</img/hero.png>; rel=preload; as=image; imagesrcset="/img/hero.png 1x, /img/hero@2x.png 2x"; fetchpriority="high"']);
      for (const url of ['/index.html', '/', '/docs/index.html', '/docs/', '/docs/plain%20page.html']) {
        const page = url.endsWith('/') ? `${url}index.html` : url;
        expect({ url, ...(await hints(url)) }).toEqual({ url, status: 200, links: listed(page) });
      }
      expect(listed('/docs/index.html')).toHaveLength(2);
      // A page without preloads gets no 103.
      expect(await hints('/other.html')).toEqual({ status: 200, links: [] });
    } catch (error) {
      console.error(`Apache's log:\n${await running.log()}`);
      throw error;
    } finally {
      await running.stop();
    }
  }, 60_000);
});

describe('nginx without the brotli module', () => {
  const reason = needed(unavailable('nginx'), 'test/configs.test.js: nginx without brotli');
  /** @type {string} */
  let work;
  /** @type {string} */
  let origin;
  /** @type {import('node:child_process').ChildProcess | undefined} */
  let child;

  /** An nginx.conf as Debian's stock nginx would run it, no load_module. */
  const nginxConf = (/** @type {number} */ port, /** @type {string[]} */ includes) => nginxMainConf({ work, root, port, includes });

  beforeAll(async () => {
    if (reason) return;
    work = await tempDir('pagediet-nginx-plain-');
    for (const f of ['nginx.conf', 'nginx-brotli.conf']) await fs.writeFile(path.join(work, f), written.extra[f]);
  });
  afterAll(async () => {
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child?.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  });

  it.skipIf(reason)('passes nginx -t with nginx.conf alone; the brotli part is an unknown directive there, as its comment says', async () => {
    const port = await freePort();
    await fs.writeFile(path.join(work, 'plain.conf'), nginxConf(port, [path.join(work, 'nginx.conf')]));
    const ok = await promisify(execFile)('nginx', ['-t', '-p', work, '-c', path.join(work, 'plain.conf')]);
    expect(ok.stderr).toContain('test is successful');
    await fs.writeFile(path.join(work, 'with-brotli.conf'), nginxConf(port, [path.join(work, 'nginx.conf'), path.join(work, 'nginx-brotli.conf')]));
    const failed = await promisify(execFile)('nginx', ['-t', '-p', work, '-c', path.join(work, 'with-brotli.conf')]).catch((e) => e);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('unknown directive "brotli_static"');
  });

  it.skipIf(reason)('serves the .gz sidecars (and never the .br ones) with the same Vary, Cache-Control and charset', async () => {
    const port = await freePort();
    await fs.writeFile(path.join(work, 'serve.conf'), nginxConf(port, [path.join(work, 'nginx.conf')]));
    child = spawn('nginx', ['-p', work, '-c', path.join(work, 'serve.conf'), '-g', 'daemon off;'], { stdio: 'ignore' });
    origin = `http://127.0.0.1:${port}`;
    for (let tries = 0; ; tries++) {
      if (await request(`${origin}/`).then(() => true, () => false)) break;
      if (tries > 150) throw new Error(`nginx did not start: ${await fs.readFile(path.join(work, 'error.log'), 'utf8').catch(() => '')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await checkCodings(origin, 'nginx without brotli', new Set(['gzip']));
    await checkHeaders(origin, 'nginx without brotli');
    expect((await request(`${origin}/pagediet-configs/nginx.conf`)).status).toBe(404);
  }, 60_000);
});

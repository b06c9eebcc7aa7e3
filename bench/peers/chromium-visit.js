// What a visitor's browser fetches from a built site, and jampack (a peer of
// today's sites) run on a copy: shared by bench/modern.js and bench/peers.js.
// Every page is visited once per viewport in Chromium (device pixel ratio 1,
// an empty cache each page, lazy images loading as Chromium loads them),
// served as an ordinary server serves files: text gzipped on the fly, or a
// build's precompressed .br sidecar where there is one. Bytes are bodies and
// headers as sent, summed over the pages, in all and by kind of file.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { launchBrowser } from '../../src/browser/launch.js';
import { mimeType } from '../../src/site/mime.js';

export const JAMPACK_VERSION = '0.34.1';
/** Types an ordinary server compresses. */
const TEXT = /^(text\/|application\/(javascript|json|xml|manifest\+json)|image\/svg\+xml)/;
/** The kinds of file the by-kind figures tell apart, by URL path. */
const KINDS = /** @type {const} */ ([['svg', /\.svg$/i], ['scripts', /\.m?js$/i], ['fonts', /\.(woff2?|ttf|otf)$/i], ['pages', /(\.html?|\/)$/i], ['styles', /\.css$/i]]);

/**
 * @typedef {{ bytes: number, requests: number }} Fetched
 * @typedef {{ bytes: number, requests: number, images: number, byKind: Record<string, Fetched> }} VisitFigures
 */

/** A favicon's path, under its own name or a content-hashed one. */
const FAVICON = /\/favicon[^/]*\.(?:ico|png|svg)$/i;

/**
 * Every file under a folder, as paths.
 * @param {string} dir
 * @returns {string[]}
 */
export const walk = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));

/**
 * A site's pages (its .html and .htm files), as sorted site paths.
 * @param {string} root
 */
export const sitePages = (root) => walk(root).filter((f) => /\.html?$/i.test(f)).map((f) => path.relative(root, f).split(path.sep).join('/')).sort();

/**
 * Serves a built site as an ordinary server serves files: text gzipped on
 * the fly, or from the build's precompressed .br sidecar where there is one;
 * a folder's index.html; 404 outside the site.
 * @param {string} root the site's folder
 * @returns {Promise<{ server: http.Server, base: string }>} base: the site's URL, ending in /
 */
export async function serveSite(root) {
  const server = http.createServer((req, res) => {
    const file = path.join(root, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    const target = fs.existsSync(file) && fs.statSync(file).isDirectory() ? path.join(file, 'index.html') : file;
    if (!target.startsWith(root) || !fs.existsSync(target)) {
      res.writeHead(404).end();
      return;
    }
    const type = mimeType(target);
    const accepts = String(req.headers['accept-encoding'] ?? '');
    if (TEXT.test(type) && accepts.includes('br') && fs.existsSync(`${target}.br`)) {
      res.writeHead(200, { 'content-type': type, 'content-encoding': 'br', vary: 'Accept-Encoding' }).end(fs.readFileSync(`${target}.br`));
    } else if (TEXT.test(type) && accepts.includes('gzip')) {
      res.writeHead(200, { 'content-type': type, 'content-encoding': 'gzip', vary: 'Accept-Encoding' }).end(zlib.gzipSync(fs.readFileSync(target)));
    } else {
      res.writeHead(200, { 'content-type': type });
      fs.createReadStream(target).pipe(res);
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(null)));
  return { server, base: `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/` };
}

/**
 * Every page visited in Chromium, once per viewport.
 * @param {string} root the site's folder
 * @param {string[]} pages site paths
 * @param {{ width: number, height: number }[]} viewports
 * @returns {Promise<Record<string, VisitFigures>>} by viewport, e.g. '1280px'
 */
export async function visit(root, pages, viewports) {
  const { server, base } = await serveSite(root);
  const { browser } = await launchBrowser();
  /** @type {Record<string, VisitFigures>} */
  const figures = {};
  try {
    for (const viewport of viewports) {
      /** @type {VisitFigures} */
      const sum = { bytes: 0, requests: 0, images: 0, byKind: Object.fromEntries(KINDS.map(([kind]) => [kind, { bytes: 0, requests: 0 }])) };
      for (const page of pages) {
        const context = await browser.newContext({ viewport });
        const tab = await context.newPage();
        /** @type {import('playwright-core').Request[]} */
        const finished = [];
        tab.on('requestfinished', (request) => { finished.push(request); });
        await tab.goto(base + page, { waitUntil: 'networkidle' });
        for (const request of finished) {
          // A favicon is fetched or not by Chromium's timing (after load, before network idle or after it), not by
          // the page: counted on neither side.
          if (FAVICON.test(new URL(request.url()).pathname)) continue;
          const sizes = await request.sizes();
          const bytes = sizes.responseBodySize + sizes.responseHeadersSize;
          sum.bytes += bytes;
          sum.requests++;
          if (request.resourceType() === 'image') sum.images++;
          const kind = KINDS.find(([, test]) => test.test(new URL(request.url()).pathname));
          if (kind) {
            sum.byKind[kind[0]].bytes += bytes;
            sum.byKind[kind[0]].requests++;
          }
        }
        await context.close();
      }
      figures[`${viewport.width}px`] = sum;
    }
  } finally {
    await browser.close();
    server.close();
  }
  return figures;
}

const JAMPACK_PREFIX = path.join(os.tmpdir(), 'pagediet-bench-jampack');

/**
 * jampack's command, installed once from the registry into
 * os.tmpdir()/pagediet-bench-jampack (it is no dependency of pagediet).
 */
export function installJampack() {
  const bin = path.join(JAMPACK_PREFIX, 'node_modules/.bin/jampack');
  if (!fs.existsSync(bin)) {
    console.log(`installing @divriots/jampack@${JAMPACK_VERSION} into ${JAMPACK_PREFIX}`);
    fs.mkdirSync(JAMPACK_PREFIX, { recursive: true });
    execFileSync('npm', ['install', '--prefix', JAMPACK_PREFIX, '--no-audit', '--no-fund', `@divriots/jampack@${JAMPACK_VERSION}`], { stdio: 'ignore' });
  }
  return bin;
}

/**
 * Runs jampack with its defaults on a folder, in place, cold: the cache it
 * keeps in its working directory (.jampack/, its image results by content)
 * is removed first, as pagediet is timed with an empty cache.
 * @param {string} dir
 */
export function runJampack(dir) {
  const bin = installJampack();
  fs.rmSync(path.join(JAMPACK_PREFIX, '.jampack'), { recursive: true, force: true });
  execFileSync(bin, [dir], { stdio: 'ignore', cwd: JAMPACK_PREFIX });
}

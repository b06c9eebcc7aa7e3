// The peer chain: what a user who does not take pagediet runs on a static
// site, in the order a build runs it.
//   1. Images as eleventy-img does them (sharp with its defaults): every GIF
//      becomes a PNG and a WebP and the smaller of the two is kept; an
//      animated GIF becomes an animated WebP (sharp writes no APNG). The GIFs
//      stay in place, as eleventy-img leaves its inputs. PNG and JPEG files
//      are left alone. With --webp-lossless, WebP is lossless
//      (sharpWebpOptions { lossless: true }): the variant a user who wants
//      pixels kept would configure; sharp's default WebP is lossy, quality 80.
//   2. The references rewritten by hand, as eleventy-img users do: a string
//      replacement of the src (lowsrc, background, poster) values and CSS
//      url()s that name a converted GIF, resolved against the file's directory.
//   3. html-minifier-terser on every page: tag and attribute names lower-cased
//      (its default, caseSensitive false), collapseWhitespace, removeComments,
//      minifyCSS, minifyJS.
//   4. gzipper with its defaults for text files: one run for .gz (zlib level 6),
//      one with --brotli (quality 11).
// It has no cache: every run does all the work again.
//   node bench/peers/chain.js <input> <output> [--webp-lossless]   (prints a JSON line of counts)
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { minify } from 'html-minifier-terser';

const run = promisify(execFile);
const GZIPPER = fileURLToPath(new URL('../../node_modules/gzipper/bin/index.js', import.meta.url));
/** Text types gzipper is told to compress (its default would compress images too). */
export const TEXT_EXTENSIONS = ['html', 'htm', 'css', 'js', 'mjs', 'json', 'svg', 'txt', 'xml'];
/** eleventy-img's default concurrency. */
const CONCURRENCY = 10;

export const MINIFY_OPTIONS = { collapseWhitespace: true, removeComments: true, minifyCSS: true, minifyJS: true };

/** @param {string} dir @returns {Promise<string[]>} paths relative to dir, '/'-separated, sorted */
export async function listFiles(dir) {
  const out = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push(path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
  }
  return out.sort();
}

/**
 * Runs a task over items, `limit` at a time.
 * @template T
 * @param {T[]} items
 * @param {number} limit
 * @param {(item: T) => Promise<void>} task
 */
async function eachLimited(items, limit, task) {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await task(items[next++]);
  }));
}

/**
 * Step 1: each GIF to the smaller of sharp's PNG and WebP (animated: WebP).
 * @param {string} root
 * @param {string[]} files
 * @param {{ webpLossless?: boolean }} [options]
 * @returns {Promise<{ converted: Map<string, string>, png: number, webp: number, failed: string[] }>} GIF path → new path
 */
export async function convertGifs(root, files, options = {}) {
  /** @type {Map<string, string>} */
  const converted = new Map();
  /** @type {string[]} */
  const failed = [];
  let png = 0;
  let webp = 0;
  const gifs = files.filter((f) => /\.gif$/i.test(f));
  await eachLimited(gifs, CONCURRENCY, async (gif) => {
    const abs = path.join(root, gif);
    try {
      const { pages = 1 } = await sharp(abs, { animated: true }).metadata();
      /** @type {{ ext: string, bytes: Buffer }[]} */
      const candidates = [{ ext: 'webp', bytes: await sharp(abs, { animated: true }).webp({ lossless: Boolean(options.webpLossless) }).toBuffer() }];
      if (pages === 1) candidates.push({ ext: 'png', bytes: await sharp(abs).png().toBuffer() });
      const best = candidates.reduce((a, b) => (b.bytes.length < a.bytes.length ? b : a));
      const target = gif.replace(/\.gif$/i, `.${best.ext}`);
      await fs.writeFile(path.join(root, target), best.bytes);
      converted.set(gif, target);
      if (best.ext === 'png') png++;
      else webp++;
    } catch (error) {
      failed.push(`${gif}: ${/** @type {Error} */ (error).message}`);
    }
  });
  return { converted, png, webp, failed };
}

/** Attribute values and CSS url()s that load an image. */
const IMAGE_URL = /(\b(?:src|lowsrc|background|poster)\s*=\s*)("([^"]*)"|'([^']*)'|([^\s"'=<>`]+))|(url\(\s*)(["']?)([^"')\s]+)\7(\s*\))/gi;

/**
 * Step 2: points the references of HTML and CSS files at the converted images.
 * @param {string} root
 * @param {string[]} files
 * @param {Map<string, string>} converted
 * @returns {Promise<number>} references rewritten
 */
export async function rewriteReferences(root, files, converted) {
  let count = 0;
  for (const file of files.filter((f) => /\.(?:html?|css)$/i.test(f))) {
    const abs = path.join(root, file);
    const text = await fs.readFile(abs, 'latin1'); // one character per byte: every byte written back as it was
    const dir = path.posix.dirname(file);
    /** @param {string} url */
    const rewrite = (url) => {
      const cut = url.search(/[?#]/);
      const bare = cut < 0 ? url : url.slice(0, cut);
      if (/^[a-z][a-z0-9+.-]*:|^\/\//i.test(bare) || !/\.gif$/i.test(bare)) return url;
      let target;
      try {
        target = path.posix.normalize(bare.startsWith('/') ? decodeURIComponent(bare.slice(1)) : path.posix.join(dir, decodeURIComponent(bare)));
      } catch {
        return url;
      }
      const to = converted.get(target);
      if (!to) return url;
      count++;
      return `${bare.slice(0, -4)}${to.slice(to.lastIndexOf('.'))}${cut < 0 ? '' : url.slice(cut)}`;
    };
    const out = text.replace(IMAGE_URL, (whole, attr, value, dq, sq, bare, open, quote, cssUrl, close) => {
      if (open) return `${open}${quote}${rewrite(cssUrl)}${quote}${close}`;
      const url = dq ?? sq ?? bare;
      const q = dq !== undefined ? '"' : sq !== undefined ? "'" : '';
      return `${attr}${q}${rewrite(url)}${q}`;
    });
    if (out !== text) await fs.writeFile(abs, out, 'latin1');
  }
  return count;
}

/**
 * Step 3: html-minifier-terser on every page.
 * @param {string} root
 * @param {string[]} files
 */
export async function minifyPages(root, files) {
  let pages = 0;
  /** @type {string[]} */
  const failed = [];
  for (const file of files.filter((f) => /\.html?$/i.test(f))) {
    const abs = path.join(root, file);
    try {
      await fs.writeFile(abs, await minify(await fs.readFile(abs, 'latin1'), MINIFY_OPTIONS), 'latin1');
      pages++;
    } catch (error) {
      failed.push(`${file}: ${/** @type {Error} */ (error).message.split('\n')[0]}`);
    }
  }
  return { pages, failed };
}

/**
 * Step 4: gzipper, .gz then .br, beside the files.
 * @param {string} root
 */
export async function precompress(root) {
  const include = TEXT_EXTENSIONS.join(',');
  await run(process.execPath, [GZIPPER, 'compress', root, '--include', include, '--no-color'], { maxBuffer: 1 << 26 });
  await run(process.execPath, [GZIPPER, 'compress', root, '--brotli', '--include', include, '--no-color'], { maxBuffer: 1 << 26 });
}

/**
 * The whole chain on a copy of the input.
 * @param {string} input
 * @param {string} output must not exist
 * @param {{ webpLossless?: boolean }} [options]
 */
export async function runChain(input, output, options = {}) {
  await fs.cp(input, output, { recursive: true });
  const files = await listFiles(output);
  const images = await convertGifs(output, files, options);
  const references = await rewriteReferences(output, files, images.converted);
  const minified = await minifyPages(output, files);
  await precompress(output);
  return {
    gifsConverted: images.converted.size, png: images.png, webp: images.webp, gifsFailed: images.failed,
    referencesRewritten: references, pagesMinified: minified.pages, minifyFailed: minified.failed,
  };
}

const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const [input, output, flag] = process.argv.slice(2);
  if (!input || !output) {
    console.error('usage: node bench/peers/chain.js <input> <output> [--webp-lossless]');
    process.exit(1);
  }
  console.log(JSON.stringify(await runChain(path.resolve(input), path.resolve(output), { webpLossless: flag === '--webp-lossless' })));
}

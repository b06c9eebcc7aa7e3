// A 1990s-style site of any size for benchmarks, made from fixtures/microscape:
// every page is microscape's home page with its own title, its own links to
// its neighbours and its own set of images; every image is one of microscape's
// GIFs (static and animated) with a GIF comment naming its variant, so that
// each file has its own bytes (and its own cache key) and the same pixels.
//   node bench/generate-site.js <dir> [pages] [images]
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const MICROSCAPE = fileURLToPath(new URL('../fixtures/microscape/', import.meta.url));

/** @param {number} n @param {number} width */
const pad = (n, width) => String(n).padStart(width, '0');

/**
 * The GIF with a comment extension inserted before its trailer (0x3b).
 * @param {Buffer} gif
 * @param {string} comment
 */
export function withComment(gif, comment) {
  if (gif[gif.length - 1] !== 0x3b) throw new Error('GIF does not end with its trailer');
  const text = Buffer.from(comment, 'latin1');
  if (text.length > 255) throw new Error('comment too long for one sub-block');
  return Buffer.concat([gif.subarray(0, -1), Buffer.from([0x21, 0xfe, text.length]), text, Buffer.from([0, 0x3b])]);
}

/**
 * Writes the site; returns what it wrote.
 * @param {string} dir created if missing; must be empty
 * @param {{ pages: number, images: number }} size
 */
export async function generateSite(dir, { pages, images }) {
  const html = await fs.readFile(path.join(MICROSCAPE, 'index.html'), 'latin1');
  const sources = [...new Set([...html.matchAll(/(?:SRC|BACKGROUND)="?(images\/[^"\s>]+\.gif)/gi)].map((m) => m[1]))].sort();
  const gifs = await Promise.all(sources.map((s) => fs.readFile(path.join(MICROSCAPE, s))));
  const width = String(Math.max(pages, images)).length;
  await fs.mkdir(path.join(dir, 'img'), { recursive: true });
  // The pages' other references (extensionless ones, backgrounds in CSS) keep microscape's own images.
  await fs.cp(path.join(MICROSCAPE, 'images'), path.join(dir, 'images'), { recursive: true });

  // Image k is variant floor(k / sources) of source k mod sources.
  /** @param {number} k */
  const imageName = (k) => `img/${path.basename(sources[k % sources.length], '.gif')}-${pad(Math.floor(k / sources.length), width)}.gif`;
  let imageBytes = 0;
  for (let k = 0; k < images; k++) {
    const bytes = withComment(gifs[k % sources.length], `pagediet bench image ${k}`);
    imageBytes += bytes.length;
    await fs.writeFile(path.join(dir, imageName(k)), bytes);
  }

  // Page p uses, for each source image, the variant that p selects, cycling
  // through the images so that every image is used by some page.
  const variants = Math.max(1, Math.ceil(images / sources.length));
  let pageBytes = 0;
  for (let p = 0; p < pages; p++) {
    const name = p === 0 ? 'index.html' : `page-${pad(p, width)}.html`;
    const body = html
      .replace(/<TITLE>[^<]*<\/TITLE>/i, `<TITLE>Microscape - page ${p}</TITLE>`)
      .replace(/(SRC|BACKGROUND)=("?)(images\/[^"\s>]+\.gif)/gi, (_, attr, quote, src) => {
        const s = sources.indexOf(src);
        let k = ((p % variants) * sources.length) + s;
        if (k >= images) k = s % images;
        return `${attr}=${quote}${imageName(k)}`;
      })
      .replace(/<\/BODY>/i, `<P><A HREF="page-${pad((p + 1) % pages || 1, width)}.html">next page</A></P>\n</BODY>`);
    pageBytes += Buffer.byteLength(body, 'latin1');
    await fs.writeFile(path.join(dir, name), body, 'latin1');
  }
  return { pages, images, pageBytes, imageBytes };
}

const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const [dir, pages = '300', images = '300'] = process.argv.slice(2);
  if (!dir) {
    console.error('usage: node bench/generate-site.js <dir> [pages] [images]');
    process.exit(1);
  }
  console.log(JSON.stringify(await generateSite(path.resolve(dir), { pages: Number(pages), images: Number(images) })));
}

// Debian's command-line encoders as limit references, file by file, two
// processes at a time (this machine has two cores), on the images pagediet
// converted or kept (listed by the caller) and on pagediet's final text files:
//   still images (static GIFs, PNGs): optipng -o5 then zopflipng --iterations=15
//                  (lossless PNG), pngquant --quality=65-80 --speed 1 on that PNG (lossy)
//   GIFs, still and animated: gifsicle -O3 --no-comments (GIF),
//                  gif2webp -m 6 -q 100 (lossless WebP, most effort)
//   text files of pagediet's output: zopfli --i15 (gzip) and brotli -q 11
// A tool that is missing gives null for its figures; nothing is made up.
//   node bench/peers/limits.js <input> <pagediet output> <work dir> <images.json>   (prints JSON)
// images.json: an array of the input's image paths to measure.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { has, twoAtATime } from '../tools.js';
import { readGifStructure } from '../../src/images/gif/structure.js';
import { isCompressible } from '../../src/compress/encodings.js';
import { MARKER } from '../../src/build/output.js';
import { listFiles } from './chain.js';

const run = promisify(execFile);

/** Each limit tool and the Debian package that holds it. */
export const DEBIAN_TOOLS = /** @type {const} */ ({
  optipng: 'optipng', zopflipng: 'zopfli', gifsicle: 'gifsicle', gif2webp: 'webp', pngquant: 'pngquant', zopfli: 'zopfli', brotli: 'brotli',
});

/**
 * Installs the missing limit tools (and GNU time) with apt-get when running
 * as root: one apt-get update, then one install per package, so that a
 * package that cannot be installed leaves only its own tools missing.
 * @returns {Record<string, boolean>} tool → present
 */
export function ensureDebianTools() {
  const wanted = { ...DEBIAN_TOOLS, time: 'time' };
  const missing = Object.entries(wanted).filter(([tool]) => !(tool === 'time' ? has('/usr/bin/time') : has(tool)));
  if (missing.length && process.getuid?.() === 0) {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    console.error(`installing ${missing.map(([t]) => t).join(', ')} (apt-get)`);
    try {
      execFileSync('apt-get', ['update'], { stdio: 'ignore', env });
    } catch {
      console.error('apt-get update failed: installing from the lists at hand');
    }
    for (const pkg of new Set(missing.map(([, p]) => p))) {
      try {
        execFileSync('apt-get', ['install', '-y', '--no-install-recommends', pkg], { stdio: 'ignore', env });
      } catch {
        console.error(`apt-get could not install ${pkg}`);
      }
    }
  } else if (missing.length) {
    console.error(`missing ${missing.map(([t]) => t).join(', ')}, and not root: they are reported as missing`);
  }
  return Object.fromEntries(Object.keys(wanted).map((tool) => [tool, tool === 'time' ? has('/usr/bin/time') : has(tool)]));
}

/**
 * Size of a file a command writes, or null when the command fails (pngquant
 * exits 99 when the quality floor cannot be met) or the tool is missing.
 * @param {boolean} present
 * @param {string} command
 * @param {string[]} args
 * @param {string} out
 */
async function sizeFrom(present, command, args, out) {
  if (!present) return null;
  try {
    await run(command, args, { maxBuffer: 1 << 26 });
    return (await fs.stat(out)).size;
  } catch {
    return null;
  }
}

/**
 * @typedef {object} ImageLimits
 * @property {number} bytes of the input image
 * @property {'gif' | 'png'} type
 * @property {number} frames 1 for a PNG
 * @property {number | null} optipng optipng -o5 (still images only)
 * @property {number | null} zopflipng optipng -o5 then zopflipng (still images only)
 * @property {number | null} pngquant lossy, on the zopflipng PNG (still images only; null when under its floor)
 * @property {number | null} gifsicle (GIFs only)
 * @property {number | null} gif2webp (GIFs only)
 *
 * @typedef {object} TextLimits
 * @property {number} bytes
 * @property {number | null} zopfli
 * @property {number | null} brotli
 */

/**
 * @param {string} input
 * @param {string} pagedietOutput
 * @param {string} work
 * @param {string[]} images input paths of the images to measure
 */
export async function limits(input, pagedietOutput, work, images) {
  const tools = Object.fromEntries(Object.keys(DEBIAN_TOOLS).map((t) => [t, has(t)]));
  await fs.mkdir(work, { recursive: true });
  /** @type {{ file: string, bytes: Buffer, type: 'gif' | 'png', frames: number }[]} */
  const found = [];
  for (const file of images) {
    const bytes = await fs.readFile(path.join(input, file));
    if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
      found.push({ file, bytes, type: 'png', frames: 1 });
      continue;
    }
    if (!bytes.subarray(0, 4).equals(Buffer.from('GIF8'))) continue;
    try {
      found.push({ file, bytes, type: 'gif', frames: readGifStructure(bytes).frames.length });
    } catch {
      // unreadable: no tool gets it, as pagediet leaves it alone
    }
  }
  const imageResults = await twoAtATime(found.map(({ file, bytes, type, frames }, i) => async () => {
    const src = path.join(input, file);
    const base = path.join(work, String(i));
    const still = frames === 1;
    const isGif = type === 'gif';
    const optipng = still ? await sizeFrom(tools.optipng, 'optipng', ['-o5', '-quiet', '-out', `${base}.o.png`, src], `${base}.o.png`) : null;
    let zopflipng = null;
    if (optipng !== null) {
      const z = await sizeFrom(tools.zopflipng, 'zopflipng', ['-y', '--iterations=15', `${base}.o.png`, `${base}.z.png`], `${base}.z.png`);
      zopflipng = z === null ? null : Math.min(z, optipng);
    }
    const png = zopflipng === null ? null : (zopflipng === optipng ? `${base}.o.png` : `${base}.z.png`);
    const pngquant = png ? await sizeFrom(tools.pngquant, 'pngquant', ['--quality=65-80', '--speed', '1', '--force', '--output', `${base}.q.png`, png], `${base}.q.png`) : null;
    const gifsicle = isGif ? await sizeFrom(tools.gifsicle, 'gifsicle', ['-O3', '--no-comments', src, '-o', `${base}.gif`], `${base}.gif`) : null;
    const gif2webp = isGif ? await sizeFrom(tools.gif2webp, 'gif2webp', ['-quiet', '-m', '6', '-q', '100', src, '-o', `${base}.webp`], `${base}.webp`) : null;
    return [file, { bytes: bytes.length, type, frames, optipng, zopflipng, pngquant, gifsicle, gif2webp }];
  }));

  const texts = (await listFiles(pagedietOutput)).filter((f) => isCompressible(f) && f !== MARKER && !f.startsWith('pagediet-configs/'));
  const textResults = await twoAtATime(texts.map((file) => async () => {
    const src = path.join(pagedietOutput, file);
    const bytes = (await fs.stat(src)).size;
    /** @param {boolean} present @param {string} command @param {string[]} args */
    const piped = async (present, command, args) => {
      if (!present) return null;
      try {
        return (await run(command, [...args, src], { encoding: 'buffer', maxBuffer: 1 << 28 })).stdout.length;
      } catch {
        return null;
      }
    };
    return [file, { bytes, zopfli: await piped(tools.zopfli, 'zopfli', ['-c', '--i15']), brotli: await piped(tools.brotli, 'brotli', ['-c', '-q', '11']) }];
  }));
  await fs.rm(work, { recursive: true, force: true });
  return {
    tools,
    images: /** @type {Record<string, ImageLimits>} */ (Object.fromEntries(imageResults)),
    text: /** @type {Record<string, TextLimits>} */ (Object.fromEntries(textResults)),
  };
}

const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const [input, output, work, list] = process.argv.slice(2);
  if (!input || !output || !work || !list) {
    console.error('usage: node bench/peers/limits.js <input> <pagediet output> <work dir> <images.json>');
    process.exit(1);
  }
  const images = JSON.parse(await fs.readFile(list, 'utf8'));
  console.log(JSON.stringify(await limits(path.resolve(input), path.resolve(output), path.resolve(work), images)));
}

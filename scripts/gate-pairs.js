// Shows what the photo gate (SSIMULACRA 2 >= 85, docs/photos.md) lets through:
// for two fixture photographs and two encoders (mozjpeg and AVIF, as
// src/images/jobs/photo.js calls them), finds the lowest quality that scores
// at or above 85 (just above the gate), the quality one step lower (just
// below) and the lowest quality that scores 70 or more (well below), writes
// 1:1 crops of the original and of each encoding as lossless PNGs into
// docs/images/gate/, prints the table, and writes the section "The gate,
// seen" into docs/images.md (replacing it when present). Deterministic: the
// same sharp build gives the same files. Takes a few minutes (AVIF on 2400 px
// photographs). Run: node scripts/gate-pairs.js
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { ssimulacra2Scorer } from '../src/images/ssimulacra2-fast.js';
import { encodePng } from '../src/images/png/encode.js';
import { AVIF_SEARCH_EFFORT, ENCODE, FIRST_GUESS, QUALITY_RANGE } from '../src/images/jobs/photo.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PHOTOS = path.join(ROOT, 'fixtures/modern/img/photos');
const OUT = path.join(ROOT, 'docs/images/gate');
const DOC = path.join(ROOT, 'docs/images.md');
const GATE = 85;
const WELL_BELOW = 70;
const HEADING = '## The gate, seen';
/** The section goes before this heading, right after the image policy. */
const NEXT_HEADING = '## How a GIF is read';

/**
 * The photographs and the crop of each: a detailed region, chosen by eye,
 * the same for the original and every encoding.
 * @type {{ name: string, picture: string, crop: { left: number, top: number, width: number, height: number } }[]}
 */
const SUBJECTS = [
  { name: 'coffee', picture: 'the spoon on the saucer, with film grain', crop: { left: 1300, top: 1000, width: 320, height: 200 } },
  { name: 'deep-field', picture: 'galaxies on a dark sky', crop: { left: 1580, top: 680, width: 320, height: 200 } },
];

/** @typedef {'jpeg' | 'avif'} Encoder */
/** Encoders, quality ranges and first guesses as the photos pass has them (src/images/jobs/photo.js). @type {Record<Encoder, { label: string, range: [number, number], guess: number, encode: (image: import('sharp').Sharp, quality: number, effort: number) => import('sharp').Sharp }>} */
const ENCODERS = {
  jpeg: { label: 'JPEG (mozjpeg)', range: QUALITY_RANGE.jpeg, guess: FIRST_GUESS.jpeg, encode: ENCODE.jpeg },
  avif: { label: 'AVIF (effort 3)', range: QUALITY_RANGE.avif, guess: FIRST_GUESS.avif, encode: ENCODE.avif },
};

/** @typedef {import('../src/images/ssimulacra2.js').Ssimulacra2Image} Pixels */
/** @typedef {{ quality: number, bytes: number, score: number, pixels: Pixels }} Measured */

/**
 * The pixels a browser shows, as photo.js's shown() decodes them (these
 * photographs are opaque RGB).
 * @param {Buffer} bytes
 * @returns {Promise<Pixels>}
 */
async function shown(bytes) {
  const { data, info } = await sharp(bytes).autoOrient().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`expected an opaque RGB photograph, got ${info.channels} channels`);
  return { data, width: info.width, height: info.height, channels: 3 };
}

/**
 * The lowest quality whose score reaches TARGET, found on the measurements
 * of MEASURE (cached by the caller): from the guess, widened in steps of 8
 * until a failing and a passing quality bracket the target, then narrowed by
 * interpolating the target between their scores and probing the neighbour,
 * down to adjacent qualities. Both ends are measured: the quality returned
 * passes and the one below it fails (unless it is the lowest of the range).
 * @param {number} target
 * @param {(quality: number) => Promise<Measured>} measure
 * @param {[number, number]} range
 * @param {number} guess
 * @param {Map<number, Measured>} known the measurements so far, which MEASURE adds to
 * @returns {Promise<number>}
 */
async function lowestReaching(target, measure, [min, max], guess, known) {
  /** The lowest passing quality measured, and the highest failing one below it. */
  const bracket = () => {
    const all = [...known.values()];
    const pass = all.filter((m) => m.score >= target).reduce((/** @type {Measured | null} */ low, m) => (!low || m.quality < low.quality ? m : low), null);
    const fail = all.filter((m) => m.score < target && (!pass || m.quality < pass.quality)).reduce((/** @type {Measured | null} */ high, m) => (!high || m.quality > high.quality ? m : high), null);
    return { fail, pass };
  };
  if (known.size === 0) await measure(guess);
  for (let { fail, pass } = bracket(); !pass; { fail, pass } = bracket()) {
    const from = /** @type {Measured} */ (fail).quality;
    if (from >= max) throw new Error(`no quality up to ${max} reaches ${target}`);
    await measure(Math.min(max, from + 8));
  }
  for (let { fail, pass } = bracket(); !fail; { fail, pass } = bracket()) {
    const from = /** @type {Measured} */ (pass).quality;
    if (from <= min) return min;
    await measure(Math.max(min, from - 8));
  }
  for (;;) {
    const { fail: lo, pass: hi } = /** @type {{ fail: Measured, pass: Measured }} */ (bracket());
    if (hi.quality - lo.quality <= 1) return hi.quality;
    const estimate = hi.score > lo.score ? lo.quality + ((target - lo.score) / (hi.score - lo.score)) * (hi.quality - lo.quality) : (lo.quality + hi.quality) / 2;
    const q = Math.min(hi.quality - 1, Math.max(lo.quality + 1, Math.round(estimate)));
    const m = await measure(q);
    // The neighbour on the other side closes the bracket when the estimate was right.
    const neighbour = m.score >= target ? q - 1 : q + 1;
    const now = /** @type {{ fail: Measured, pass: Measured }} */ (bracket());
    if (neighbour > now.fail.quality && neighbour < now.pass.quality) await measure(neighbour);
  }
}

/**
 * A region of an RGB image as RGBA, for the PNG encoder.
 * @param {Pixels} image
 * @param {{ left: number, top: number, width: number, height: number }} crop
 */
function cropRgba(image, { left, top, width, height }) {
  const out = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = ((top + y) * image.width + left + x) * 3;
      const o = (y * width + x) * 4;
      out[o] = image.data[i];
      out[o + 1] = image.data[i + 1];
      out[o + 2] = image.data[i + 2];
      out[o + 3] = 255;
    }
  }
  return { data: out, width, height };
}

/**
 * Writes the crop as a PNG with pagediet's lossless encoder and checks that
 * sharp decodes it to the same pixels.
 * @param {Pixels} image
 * @param {{ left: number, top: number, width: number, height: number }} crop
 * @param {string} file
 * @returns {Promise<number>} the PNG's size
 */
async function writeCrop(image, crop, file) {
  const rgba = cropRgba(image, crop);
  const { png } = await encodePng(rgba);
  const back = await sharp(png).ensureAlpha().raw().toBuffer();
  if (!back.equals(Buffer.from(rgba.data.buffer, rgba.data.byteOffset, rgba.data.length))) throw new Error(`${file}: the PNG does not decode to the crop`);
  await writeFile(path.join(OUT, file), png);
  return png.length;
}

/** @param {number} n */
const thousands = (n) => n.toLocaleString('en-US');
/** @param {number} score */
const fixed = (score) => score.toFixed(2);

/**
 * @typedef {object} Row
 * @property {string} photo
 * @property {string} encoder
 * @property {string} quality
 * @property {number} bytes
 * @property {string} score
 * @property {string} side
 * @property {string} file
 */

await mkdir(OUT, { recursive: true });
for (const file of await readdir(OUT)) if (file.endsWith('.png')) await rm(path.join(OUT, file));

/** @type {Row[]} */
const rows = [];
let pngBytes = 0;
for (const { name, crop } of SUBJECTS) {
  const bytes = await readFile(path.join(PHOTOS, `${name}.jpg`));
  const original = await shown(bytes);
  const scorer = ssimulacra2Scorer(original);
  const meta = await sharp(bytes).metadata();
  const originalFile = `${name}-original.png`;
  pngBytes += await writeCrop(original, crop, originalFile);
  rows.push({ photo: `${name}.jpg, ${original.width}×${original.height}`, encoder: `original (JPEG, ${meta.chromaSubsampling})`, quality: '', bytes: bytes.length, score: '100', side: '', file: originalFile });
  for (const encoder of /** @type {Encoder[]} */ (['jpeg', 'avif'])) {
    const { label, range, guess, encode } = ENCODERS[encoder];
    /** @type {Map<number, Measured>} */
    const measured = new Map();
    /** @param {number} quality */
    const measure = async (quality) => {
      const cached = measured.get(quality);
      if (cached) return cached;
      const encoded = await encode(sharp(bytes).autoOrient(), quality, AVIF_SEARCH_EFFORT).toBuffer();
      const pixels = await shown(encoded);
      const m = { quality, bytes: encoded.length, score: scorer.score(pixels), pixels };
      measured.set(quality, m);
      console.error(`${name} ${encoder} q${quality}: ${thousands(m.bytes)} B, ${fixed(m.score)}`);
      return m;
    };
    const above = await lowestReaching(GATE, measure, range, guess, measured);
    const below = above - 1;
    const well = await lowestReaching(WELL_BELOW, measure, range, guess, measured);
    /** @type {[string, number][]} */
    const picks = [['just above', above], ['just below', below], ['well below', well]];
    for (const [side, quality] of picks) {
      const m = await measure(quality);
      if (side === 'just below' && (m.score >= GATE || m.score <= 80)) console.error(`note: ${name} ${encoder} q${quality} scores ${fixed(m.score)}, not between 80 and ${GATE}`);
      const file = `${name}-${encoder}-q${quality}-${fixed(m.score)}.png`;
      pngBytes += await writeCrop(m.pixels, crop, file);
      rows.push({ photo: name + '.jpg', encoder: label, quality: String(quality), bytes: m.bytes, score: fixed(m.score), side, file });
    }
    measured.clear();
  }
}

const header = '| photo | encoder | quality | bytes (full size) | SSIMULACRA 2 | gate | crop (1:1) |\n| --- | --- | ---: | ---: | ---: | --- | --- |';
/** @param {(row: Row) => string} cell */
const table = (cell) => [header, ...rows.map((r) => `| ${r.photo} | ${r.encoder} | ${r.quality} | ${thousands(r.bytes)} | ${r.score} | ${r.side} | ${cell(r)} |`)].join('\n');
console.log(table((r) => r.file));
console.log(`\n${rows.length} PNGs in docs/images/gate/, ${thousands(pngBytes)} B`);

/**
 * A paragraph wrapped at 76 columns, as the docs are.
 * @param {string} text
 */
function wrap(text) {
  const lines = [''];
  for (const word of text.split(/\s+/)) {
    const last = lines.length - 1;
    if (lines[last] && lines[last].length + 1 + word.length > 76) lines.push(word);
    else lines[last] = lines[last] ? `${lines[last]} ${word}` : word;
  }
  return lines.join('\n');
}

/** How much larger one side's encoding is than another's, over every photo and encoder: "a to b". @param {string} larger @param {string} smaller @param {(ratio: number) => string} format */
function growth(larger, smaller, format) {
  const ratios = [];
  for (let i = 0; i < rows.length; i++) {
    if (rows[i].side !== larger) continue;
    const other = rows.find((r) => r.side === smaller && r.photo === rows[i].photo && r.encoder === rows[i].encoder);
    if (other) ratios.push(rows[i].bytes / other.bytes);
  }
  return `${format(Math.min(...ratios))} to ${format(Math.max(...ratios))}`;
}

const { versions } = sharp;
const { width, height } = SUBJECTS[0].crop;
const section = [
  HEADING,
  wrap(`What the photo gate lets through, on two of the fixture's photographs
    (\`fixtures/modern/img/photos/\`, public domain, upscaled from scikit-image's
    copies and given film grain:
    [fixtures/sources/photos/README.md](../fixtures/sources/photos/README.md)).
    Each is re-encoded at full size as the \`photos\` pass writes it (mozjpeg;
    AVIF at effort 3, as the search encodes it) and scored against the original's pixels. For each
    encoder:`),
  `- **just above**: the lowest quality that scores ${GATE} or more, what the
  pass looks for;
- **just below**: one quality step lower, which fails the gate;
- **well below**: the lowest quality that scores ${WELL_BELOW} or more.`,
  wrap(`On SSIMULACRA 2's scale ([photos.md](photos.md)), 90 and more is
    indistinguishable from the original in a flicker test at 1:1; 85 is
    indistinguishable in a flip test at 1:1, the default gate; 70 is high
    quality, its differences hard to notice without the original and visible
    on a close look beside it.`),
  wrap(`The crops are the same ${width}×${height} px region of the original and
    of each encoding (${SUBJECTS.map((s) => `${s.name}: ${s.picture}, from x ${s.crop.left}, y ${s.crop.top}`).join('; ')}),
    stored as lossless PNG of the decoded pixels: they show exactly what the
    encoding shows, at 1:1. Bytes are those of the full-size encoding (of the
    original: its file). Just above the gate is
    ${growth('just above', 'just below', (r) => `${((r - 1) * 100).toFixed(1)}%`)} larger than just below, and
    ${growth('just above', 'well below', (r) => `${r.toFixed(1)}`)} times the size of well below.`),
  table((r) => `![${r.photo.replace(/,.*/, '')}, ${r.quality ? `${r.encoder} quality ${r.quality}, score ${r.score}` : 'original'}](images/gate/${r.file})`),
  wrap(`Made by \`node scripts/gate-pairs.js\`, with sharp
    ${versions.sharp} (libvips ${versions.vips}, mozjpeg ${versions.mozjpeg}, aom
    ${versions.aom}).`),
].join('\n\n') + '\n';

const doc = await readFile(DOC, 'utf8');
const start = doc.indexOf(`\n${HEADING}\n`);
let updated;
if (start >= 0) {
  const end = doc.indexOf('\n## ', start + 1 + HEADING.length);
  updated = doc.slice(0, start + 1) + section + (end >= 0 ? doc.slice(end) : '');
} else {
  const next = doc.indexOf(`\n${NEXT_HEADING}\n`);
  if (next < 0) throw new Error(`${DOC}: no "${NEXT_HEADING}" heading to put the section before`);
  updated = `${doc.slice(0, next + 1)}${section}\n${doc.slice(next + 1)}`;
}
await writeFile(DOC, updated);
console.log(`\n${path.relative(ROOT, DOC)}: section "${HEADING.slice(3)}" written`);

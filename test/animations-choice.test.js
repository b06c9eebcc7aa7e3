import fs from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { GifWriter } from 'omggif';
import { describe, expect, it } from 'vitest';
import { build } from '../src/build/pipeline.js';
import { decodeApng } from '../src/images/apng-frames.js';
import { tempDir, writeTree } from './helpers/tmp.js';

/**
 * A GIF made with omggif: full-canvas frames of palette indices, 10/100 s each.
 * @param {number} width @param {number} height @param {number[][]} frames @param {number[]} palette
 * @param {number} [loop] repetitions after the first play (0: for ever)
 */
function gif(width, height, frames, palette, loop = 0) {
  const buffer = Buffer.alloc(1 << 20);
  const writer = new GifWriter(buffer, width, height, { palette, loop });
  for (const pixels of frames) writer.addFrame(0, 0, width, height, pixels, { delay: 10, disposal: 0 });
  return Buffer.from(buffer.subarray(0, writer.end()));
}

/** @param {number} seed a small deterministic generator, so that images are the same on every run */
function random(seed) {
  let state = seed >>> 0;
  return () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

const W = 48, H = 48;
/** 256 colours: index i and i + 128 are the same ramp colour, i + 128 one level redder. */
const RAMP = Array.from({ length: 256 }, (_, i) => {
  const v = (i & 127) * 2;
  return ((v + (i >> 7)) << 16) | (v << 8) | (255 - v);
});
const pixels = (/** @type {(x: number, y: number) => number} */ index, width = W, height = H) => Array.from({ length: width * height }, (_, p) => index(p % width, Math.floor(p / width)));
/** A diagonal ramp moved k steps: what lossless WebP's predictors store in far fewer bytes than PNG's filters. */
const diagonal = (/** @type {number} */ k) => pixels((x, y) => (x + y + k * 5) & 127);
/** Smooth waves: here APNG is the smaller. */
const waves = (/** @type {number} */ k) => pixels((x, y) => Math.floor(64 + 60 * Math.sin((x + k * 3) / 6) * Math.cos(y / 7)) & 127);

/**
 * Every frame of an image as sharp decodes it, with its delays (ms) and loop count.
 * @param {Buffer} bytes
 */
async function framesOf(bytes) {
  const meta = await sharp(bytes, { animated: true }).metadata();
  const data = await sharp(bytes, { animated: true }).ensureAlpha().raw().toBuffer();
  const pages = meta.pages ?? 1;
  const size = data.length / pages;
  return { loop: meta.loop, delays: meta.delay, frames: Array.from({ length: pages }, (_, i) => data.subarray(i * size, (i + 1) * size)) };
}

/**
 * The frames shown at each 10 ms of an animation, for comparing animations that store repeats differently.
 * @param {{ delays?: number[], frames: Buffer[] }} animation
 */
function timeline({ delays = [], frames }) {
  return frames.flatMap((frame, i) => Array.from({ length: delays[i] / 10 }, () => frame));
}

/** @param {{ decisions: import('../src/build/pass.js').Decision[] }} pass @param {string} file */
const decisionOf = (pass, file) => /** @type {import('../src/build/pass.js').Decision} */ (pass.decisions.find((d) => d.file === file));

describe('animations: the smaller proven candidate wins, and a candidate ruled out says why', () => {
  it('writes the WebP when it is smaller, also when libwebp stores repeated frames as one longer frame', async () => {
    const base = [0, 1, 2, 3, 4, 5].map(diagonal);
    // Frames 1, 4 and 5 repeat the one before: libwebp stores 6 frames for the 9, and the WebP was ruled out for that.
    const repeated = gif(W, H, [0, 1, 1, 2, 3, 3, 3, 4, 5].map((i) => base[i]), RAMP);
    const larger = gif(W, H, [0, 1, 2, 3, 4, 5].map(waves), RAMP);
    const tiny = [0, 1].map((k) => pixels((x, y) => (x * 3 + y + k * 9) & 127, 16, 16));
    const forever = gif(16, 16, tiny, RAMP, 65535); // plays 65,536 times: more than a WebP can say
    const input = await writeTree(await tempDir(), { 'index.html': '<img src="a.gif"><img src="b.gif"><img src="c.gif">', 'a.gif': repeated, 'b.gif': larger, 'c.gif': forever });
    const out = path.join(await tempDir(), 'out');
    /** @type {import('../src/build/progress.js').ProgressEvent[]} */
    const events = [];
    const summary = await build({ input, output: out, only: ['animations'], animations: 'auto', cache: false, onProgress: (event) => events.push(event) });
    const pass = summary.passes[0];

    // a.gif: lossless WebP 408 B against APNG 1,161 B; both smaller than the GIF.
    expect(repeated.length).toBe(7695);
    expect(decisionOf(pass, 'a.gif')).toEqual({
      file: 'a.gif', action: 'changed',
      reason: '→ a.webp: lossless WebP, 9 frames (6 stored: repeated frames shown longer), 7695 → 408 B (apng 1161 B, webp 408 B)',
    });
    const webp = await fs.readFile(path.join(out, 'a.webp'));
    expect(webp.length).toBe(408);
    const shown = await framesOf(webp);
    const source = await framesOf(repeated);
    expect([shown.loop, shown.delays]).toEqual([0, [100, 200, 100, 300, 100, 100]]);
    expect([source.loop, source.delays]).toEqual([0, Array(9).fill(100)]);
    const [webpTimeline, gifTimeline] = [timeline(shown), timeline(source)];
    expect(webpTimeline).toHaveLength(9 * 10);
    webpTimeline.forEach((frame, t) => expect(frame.equals(gifTimeline[t]), `${t * 10} ms`).toBe(true));

    // b.gif: APNG 4,886 B against WebP 6,808 B.
    expect(larger.length).toBe(12044);
    expect(decisionOf(pass, 'b.gif')).toEqual({ file: 'b.gif', action: 'changed', reason: '→ b.png: APNG, 6 frames, 12044 → 4886 B (apng 4886 B, webp 6808 B)' });
    const apng = decodeApng(await fs.readFile(path.join(out, 'b.png')));
    const wavesSource = await framesOf(larger);
    expect(apng.frames.map((f) => f.data)).toEqual(wavesSource.frames);

    // c.gif: a WebP cannot be written, and the reason says so.
    expect(decisionOf(pass, 'c.gif')).toEqual({
      file: 'c.gif', action: 'changed',
      reason: '→ c.png: APNG, 2 frames, 1189 → 229 B (apng 229 B); WebP not tried: plays 65536 times, more than WebP can say (65535)',
    });
    expect(decodeApng(await fs.readFile(path.join(out, 'c.png'))).loop).toBe(65536);

    expect(await fs.readFile(path.join(out, 'index.html'), 'utf8')).toBe('<img src="a.webp"><img src="b.png"><img src="c.png">');
    // The pass counts the GIFs as they finish.
    expect(events.filter((e) => e.phase === 'animations' && e.total !== undefined).map(({ message, done, total }) => [message, done, total])).toEqual([
      ['a.gif', 1, 3], ['b.gif', 2, 3], ['c.gif', 3, 3],
    ]);
  }, 60_000);

  it('keeps the larger APNG when the smaller lossy WebP shows two different frames as one, and says so', async () => {
    const W2 = 64, H2 = 64;
    const noisy = (/** @type {number} */ k) => {
      const next = random(k + 1);
      return pixels((x, y) => (x + y + k * 5 + Math.floor(next() * 6)) & 127, W2, H2);
    };
    // Frame 2 is frame 1 with an 8x8 corner one level redder: libwebp's lossy encoder takes it for a repeat.
    const corner = (/** @type {number[]} */ frame) => frame.map((v, p) => (p % W2 < 8 && p < 8 * W2 ? v + 128 : v));
    const source = gif(W2, H2, [noisy(0), noisy(1), corner(noisy(1)), noisy(2), noisy(3)], RAMP);
    const input = await writeTree(await tempDir(), { 'index.html': '<img src="n.gif">', 'n.gif': source });
    const out = path.join(await tempDir(), 'out');
    const summary = await build({ input, output: out, only: ['animations'], animations: 'auto', lossy: true, quality: [65, 80], cache: false });
    expect(source.length).toBe(17809);
    expect(summary.passes[0].decisions).toEqual([{
      file: 'n.gif', action: 'changed',
      reason: '→ n.png: APNG, 5 frames, 17809 → 8075 B (apng 8075 B, webp 1816 B); WebP ruled out: shows frames 1-2 as one, though frame 2 differs from frame 1',
    }]);
    const decoded = decodeApng(await fs.readFile(path.join(out, 'n.png')));
    expect(decoded.frames.map((f) => f.data)).toEqual((await framesOf(source)).frames);
  }, 60_000);
});

/**
 * Long animations without holding them several times: the GIF's frames in one
 * buffer (for the WebP, one that is given back at once), the proofs reading
 * the APNG a frame at a time and the WebP a few pages at a time beside the GIF
 * composited again, and still rejecting a candidate that shows other frames;
 * and the budget per image, counted in estimated work so that its decisions
 * are the same on every run.
 */
import sharp from 'sharp';
import { GifWriter } from 'omggif';
import { describe, expect, it, vi } from 'vitest';
import { decodeGif, readGif } from '../src/images/gif/decode.js';
import { encodeApng } from '../src/images/apng.js';
import { decodeApng, readApng } from '../src/images/apng-frames.js';
import { PNG_SIGNATURE, chunk, readChunks } from '../src/images/png-chunks.js';
import { animation } from '../src/images/jobs/animation.js';

/** What the tests change in what the job writes (the APNG) or reads again (the GIF's frames); undefined: nothing. */
const tamper = vi.hoisted(() => ({
  apng: /** @type {((animation: import('../src/images/apng.js').Animation) => import('../src/images/apng.js').Animation) | undefined} */ (undefined),
  png: /** @type {((png: Buffer) => Buffer) | undefined} */ (undefined),
  gifFrame: /** @type {number | undefined} */ (undefined),
}));
vi.mock('../src/images/apng.js', async (importOriginal) => {
  const real = /** @type {typeof import('../src/images/apng.js')} */ (await importOriginal());
  /** @type {typeof real.encodeApng} */
  const encodeApng = async (animation, options) => {
    const png = await real.encodeApng(tamper.apng ? tamper.apng(animation) : animation, options);
    return tamper.png ? tamper.png(png) : png;
  };
  return { ...real, encodeApng };
});
vi.mock('../src/images/gif/decode.js', async (importOriginal) => {
  const real = /** @type {typeof import('../src/images/gif/decode.js')} */ (await importOriginal());
  /** @type {typeof real.readGif} */
  const readGif = (buffer, options) => {
    const reader = real.readGif(buffer, options);
    const changed = tamper.gifFrame;
    if (changed === undefined) return reader;
    return {
      ...reader,
      frames: function* frames() {
        let i = 0;
        for (const frame of reader.frames()) {
          if (i++ !== changed) yield frame;
          else yield { ...frame, data: Buffer.from(frame.data).fill(0x7f, 0, 4) }; // the first pixel half grey, half transparent
        }
      },
    };
  };
  return { ...real, readGif };
});

/** 128 colours of a ramp, opaque. */
const RAMP = Array.from({ length: 128 }, (_, i) => ((i * 2) << 16) | ((255 - i * 2) << 8) | 90);

/**
 * A GIF of full-canvas frames of palette indices, 10/100 s each, looping for ever.
 * @param {number} width @param {number} height @param {number} count
 * @param {(x: number, y: number, k: number) => number} index frame k's palette index at x, y
 */
function gif(width, height, count, index) {
  const buffer = Buffer.alloc(width * height * count + (1 << 16));
  const writer = new GifWriter(buffer, width, height, { palette: RAMP, loop: 0 });
  for (let k = 0; k < count; k++) {
    const pixels = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) pixels[y * width + x] = index(x, y, k);
    writer.addFrame(0, 0, width, height, pixels, { delay: 10, disposal: 0 });
  }
  return Buffer.from(buffer.subarray(0, writer.end()));
}

/** A diagonal ramp that moves a step a frame: every pixel changes every frame. */
const moving = (/** @type {number} */ x, /** @type {number} */ y, /** @type {number} */ k) => (x + y + k) & 127;
/** A 12x12 square crossing a plain canvas, two pixels a frame: little changes. */
const sprite = (/** @type {number} */ x, /** @type {number} */ y, /** @type {number} */ k) => (x >= 4 + 2 * k && x < 16 + 2 * k && y >= 20 && y < 32 ? 100 : 3);

const OPTIONS = { format: /** @type {'auto' | 'apng' | 'webp'} */ ('auto'), lossy: false, quality: /** @type {[number, number]} */ ([65, 80]), zopfliIterations: 0, maxPixels: 100_000_000 };

/** @param {Buffer} bytes @param {Partial<import('../src/images/jobs/animation.js').AnimationOptions>} [options] */
async function run(bytes, options = {}) {
  return /** @type {import('../src/images/jobs/animation.js').ConvertedAnimation | import('../src/images/jobs/results.js').Kept} */ (
    await animation({ bytes, options: { ...OPTIONS, ...options } })
  );
}

/**
 * An APNG with each chunk's data changed by `change` (CRCs recomputed).
 * @param {Buffer} png @param {(type: string, data: Buffer, index: number) => Buffer} change
 */
function rewrite(png, change) {
  return Buffer.concat([PNG_SIGNATURE, ...readChunks(png).map(({ type, data }, i) => chunk(type, change(type, data, i)))]);
}

describe('frames held once', () => {
  it('decodes the frames into one buffer, which release() gives back when decoded releasable, and readGif composites the same frames one at a time', () => {
    const bytes = gif(40, 30, 6, moving);
    const decoded = decodeGif(bytes);
    expect(decoded.pixels.length).toBe(40 * 30 * 4 * 6);
    const reader = readGif(bytes);
    expect(reader.delaysCs).toEqual(decoded.frames.map((frame) => frame.delayCs));
    let i = 0;
    for (const frame of reader.frames()) {
      expect(frame.data.equals(decoded.frames[i].data), `frame ${i}`).toBe(true);
      expect(frame.data.equals(decoded.pixels.subarray(i * 4800, (i + 1) * 4800))).toBe(true);
      expect(frame.delayCs).toBe(decoded.frames[i++].delayCs);
    }
    expect(i).toBe(6);
    // Plain memory stays until it is collected; releasable memory goes at once, and every view of it is empty.
    decoded.release();
    expect(decoded.pixels.length).toBe(40 * 30 * 4 * 6);
    const releasable = decodeGif(bytes, { releasable: true });
    expect(releasable.pixels.equals(decoded.pixels)).toBe(true);
    releasable.release();
    expect(releasable.pixels.length).toBe(0);
    expect(releasable.frames.every((frame) => frame.data.length === 0)).toBe(true);
  });

  it('reads an APNG back a frame at a time as decodeApng does', async () => {
    const bytes = gif(40, 30, 6, sprite);
    const decoded = decodeGif(bytes);
    const png = await encodeApng({ width: 40, height: 30, loop: 0, frames: decoded.frames.map((f) => ({ data: f.data, delayCs: f.delayCs })) });
    const whole = decodeApng(png);
    const reader = readApng(png);
    expect([reader.width, reader.height, reader.loop, reader.count]).toEqual([40, 30, 0, 6]);
    const frames = [...reader.frames()].map((frame) => frame.data);
    // One canvas, drawn on frame after frame: what was yielded last is what every yield pointed at.
    expect(new Set(frames).size).toBe(1);
    let i = 0;
    for (const frame of readApng(png).frames()) {
      expect(frame.data.equals(whole.frames[i].data)).toBe(true);
      expect(frame.data.equals(decoded.frames[i++].data)).toBe(true);
    }
  });
});

describe('the proofs, frame by frame', () => {
  const bytes = gif(80, 40, 30, sprite);

  it('rejects an APNG whose last frame shows another pixel, or whose last frame cannot be decoded', async () => {
    expect((await run(bytes, { format: 'apng' })).status).toBe('converted');
    try {
      tamper.apng = (written) => ({ ...written, frames: written.frames.map((f, i) => (i === 29 ? { ...f, data: Buffer.from(f.data).fill(9, 0, 3) } : f)) });
      expect(await run(bytes, { format: 'apng' })).toMatchObject({ status: 'kept', reason: 'APNG frame 29 differs' });
      tamper.apng = undefined;
      // Valid chunks, but the last frame's deflate stream is not one: only decoding that frame finds it.
      tamper.png = (png) => {
        const chunks = readChunks(png);
        const lastData = chunks.findLastIndex((c) => c.type === 'fdAT');
        return rewrite(png, (type, data, i) => (i === lastData ? Buffer.concat([data.subarray(0, 4), data.subarray(4).map((v) => v ^ 0x55)]) : data));
      };
      const result = await run(bytes, { format: 'apng' });
      expect(result.status).toBe('kept');
      expect(/** @type {{ reason: string }} */ (result).reason).toMatch(/^APNG cannot be read back \(Corrupt PNG image data: /);
    } finally {
      tamper.apng = undefined;
      tamper.png = undefined;
    }
  });

  it('proves a WebP of more pages than it decodes at once, repeated frames stored as one, and rejects one that differs in a late page', async () => {
    // 1 MiB frames: the proof decodes 16 pages at a time. Frames 30 to 34 are one picture, stored as one WebP
    // frame, so that from page 31 on a page is a GIF frame 4 further on; frame 40 is page 36, in the third 16.
    const step = (/** @type {number} */ k) => (k < 30 ? k : k <= 34 ? 30 : k - 4);
    const long = gif(512, 512, 48, (x, y, k) => sprite(x, y, step(k)));
    const webp = await run(long, { format: 'webp' });
    expect(webp).toMatchObject({ status: 'converted', format: 'webp', detail: 'lossless WebP, 48 frames (44 stored: repeated frames shown longer)' });
    const converted = /** @type {import('../src/images/jobs/animation.js').ConvertedAnimation} */ (webp);
    const meta = await sharp(converted.bytes, { animated: true }).metadata();
    expect([meta.pages, meta.delay?.[30]]).toEqual([44, 500]);
    try {
      tamper.gifFrame = 40;
      expect(await run(long, { format: 'webp' })).toMatchObject({ status: 'kept', reason: 'WebP frame 40 differs' });
      tamper.gifFrame = 32;
      expect(await run(long, { format: 'webp' })).toMatchObject({ status: 'kept', reason: 'WebP shows frames 30-34 as one, though frame 32 differs from frame 31' });
    } finally {
      tamper.gifFrame = undefined;
    }
  }, 60_000);
});

describe('the budget per image', () => {
  it('leaves out the dearer candidate when both would go over the budget, and says so', async () => {
    // Every pixel changes: lossless WebP is estimated at about half the APNG's work.
    const changing = gif(160, 160, 24, moving);
    const over = await run(changing, { imageTimeBudget: 1 });
    expect(over).toMatchObject({ status: 'converted', format: 'webp', ruledOut: ['APNG not tried: estimated at 0.9 s, which with WebP\'s 0.5 s goes over the 1 s budget per image'] });
    expect(Object.keys(over.candidates ?? {})).toEqual(['webp']);
    // Within the budget (the two estimates 1.4 s), both; the WebP written is the same.
    const both = await run(changing, { imageTimeBudget: 2 });
    expect(Object.keys(both.candidates ?? {})).toEqual(['apng', 'webp']);
    expect(both).not.toHaveProperty('ruledOut');
    expect(/** @type {{ bytes: Buffer }} */ (over).bytes.equals(/** @type {{ bytes: Buffer }} */ (both).bytes)).toBe(true);
  }, 60_000);

  it('estimates lossy WebP dearer than APNG where little changes, and names it when it is left out', async () => {
    const still = gif(200, 200, 60, sprite);
    const over = await run(still, { lossy: true, imageTimeBudget: 1 });
    expect(over).toMatchObject({ status: 'converted', format: 'apng', ruledOut: ['WebP not tried: estimated at 1.1 s, which with APNG\'s 0.4 s goes over the 1 s budget per image'] });
    expect(Object.keys(over.candidates ?? {})).toEqual(['apng']);
    // No budget (0): both, however long.
    expect(Object.keys((await run(still, { lossy: true, imageTimeBudget: 0 })).candidates ?? {})).toEqual(['apng', 'webp']);
  }, 60_000);

  it('names the candidate left out in the reason when the one tried is not proven', async () => {
    try {
      tamper.gifFrame = 5;
      expect(await run(gif(160, 160, 24, moving), { imageTimeBudget: 1 })).toMatchObject({
        status: 'kept', reason: 'APNG not tried: estimated at 0.9 s, which with WebP\'s 0.5 s goes over the 1 s budget per image; WebP frame 5 differs',
      });
    } finally {
      tamper.gifFrame = undefined;
    }
  }, 60_000);
});

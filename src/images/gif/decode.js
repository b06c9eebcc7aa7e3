/**
 * Decodes a GIF to full-canvas RGBA frames composited as browsers show them,
 * all at once (decodeGif) or a frame at a time (readGif), within a pixel limit
 * checked before anything is allocated.
 */
import { walk } from './structure.js';
import { decodeLzw } from './lzw.js';
import { blit, clearRect, restoreRect, rgbaTable } from './composite.js';

/** @typedef {import('./structure.js').GifStructure} GifStructure */

// The LZW decoder and the compositing are our own, not omggif's GifReader:
// omggif throws on plain-text and unknown extensions, writes frames that
// reach outside the logical screen into the next row (or past the buffer)
// instead of clipping them, de-interlaces frames of fewer than 5 rows into
// the wrong rows, and on corrupt or short LZW data only logs to the console
// and leaves palette index 0 where pixels are missing. The browser rules
// here and in structure.js, lzw.js and composite.js were checked against
// Chromium 156 (WebCodecs ImageDecoder) and Firefox's nsGIFDecoder2; where
// the two differ we follow Chromium and warn.

/** Default for decodeGif's maxPixels: 10,000 x 10,000. */
export const DEFAULT_MAX_PIXELS = 100_000_000;

/**
 * @typedef {object} DecodedGifFrame
 * @property {Buffer} data full-canvas RGBA, width * height * 4 bytes
 * @property {number} delayCs delay a browser waits, in hundredths of a second
 * @property {number} rawDelayCs delay as written in the file
 */

/**
 * @typedef {object} DecodedGif
 * @property {number} width canvas size (the logical screen, enlarged to hold frame 0 as Chromium does)
 * @property {number} height
 * @property {number | null} loop
 * @property {DecodedGifFrame[]} frames
 * @property {Buffer} pixels every frame's RGBA, one after another: each frame's data is a view of it,
 *   so that the frames are held once and an encoder that takes them stacked (sharp) needs no copy
 * @property {() => void} release decoded `releasable`: gives the frames' memory back at once, not at the next
 *   garbage collection, and pixels and every frame's data are empty after; otherwise does nothing
 * @property {number} trailingBytes
 * @property {boolean} truncated
 * @property {string[]} warnings
 */

/**
 * @typedef {object} GifReader a GIF checked and ready to composite, one frame at a time
 * @property {number} width canvas size, as decodeGif's
 * @property {number} height
 * @property {number | null} loop
 * @property {number[]} delaysCs each frame's delay as a browser waits it, in hundredths of a second
 * @property {() => Generator<DecodedGifFrame>} frames the composited frames in order, decoded as they are
 *   asked for; each frame's data is the reader's own canvas, valid until the next frame is asked for
 * @property {number} trailingBytes
 * @property {boolean} truncated
 * @property {string[]} warnings
 */

/**
 * Firefox's canvas where it differs from Chromium's (null when it does not):
 * when frame 0 is wider or taller than the logical screen, or the file is
 * GIF87a, Firefox makes the screen frame 0's size and moves frame 0 to the
 * top-left corner.
 * @param {GifStructure} s
 * @param {'87a' | '89a'} version
 * @param {number} width Chromium's canvas
 * @param {number} height
 * @returns {string | null}
 */
function firefoxCanvas(s, version, width, height) {
  const f = s.frames[0];
  const resized = f.width > s.width || f.height > s.height || version === '87a';
  const w = resized ? f.width : s.width;
  const h = resized ? f.height : s.height;
  const moved = resized && (f.left !== 0 || f.top !== 0);
  if (w === width && h === height && !moved) return null;
  return `Firefox shows ${w}x${h}${moved ? ' with frame 0 at the top-left corner' : ''}`;
}

/**
 * Browsers wait 100 ms for delays of 10 ms or less (0 and 1 hundredths):
 * Firefox's FrameTimeout and Chromium's ImageDecoder use the same rule.
 * @param {number} rawDelayCs
 * @returns {number}
 */
export function effectiveDelayCs(rawDelayCs) {
  return rawDelayCs < 2 ? 10 : rawDelayCs;
}

/**
 * Refuse sizes over the limit before anything is allocated.
 * @param {string} what
 * @param {number} width
 * @param {number} height
 * @param {number} maxPixels
 * @returns {void}
 */
function checkPixels(what, width, height, maxPixels) {
  if (width * height > maxPixels) throw new Error(`GIF ${what} of ${width}x${height} exceeds the pixel limit of ${maxPixels}`);
}

/**
 * ArrayBuffer's constructor with a maximum length and its resize() (ES2024),
 * which Node 20 has and the ES2022 types lack: shrinking such a buffer to
 * nothing gives its memory back at once.
 */
const ResizableArrayBuffer = /** @type {new (length: number, options: { maxByteLength: number }) => ArrayBuffer & { resize(length: number): void }} */ (
  /** @type {unknown} */ (ArrayBuffer)
);

/**
 * Decode every frame of a GIF to a full-canvas RGBA image, composited as
 * Chromium and Firefox show it: the canvas starts transparent (the background
 * colour is ignored), transparent pixels keep what is under them, disposal 2
 * clears the frame's rectangle, disposal 3 (and 4) restores it, frames are
 * clipped to the canvas.
 *
 * The canvas is the logical screen enlarged to hold frame 0 (Chromium's rule;
 * Firefox's differs when frame 0 is larger than the screen and for GIF87a
 * files, and a warning then says what Firefox shows).
 *
 * maxPixels bounds the logical screen, the canvas, every frame's rectangle,
 * and the whole result (canvas x frames), all checked before allocating.
 * releasable puts the frames in a resizable ArrayBuffer, which release()
 * empties: for frames handed to native code (sharp), since Node 20's
 * JavaScript reads typed arrays over such a buffer about four times slower.
 * @param {Uint8Array} buffer
 * @param {{ maxPixels?: number, releasable?: boolean }} [options]
 * @returns {DecodedGif}
 */
export function decodeGif(buffer, { releasable = false, ...options } = {}) {
  const { frames: composited, delaysCs, ...gif } = readGif(buffer, options);
  const bytes = gif.width * gif.height * 4 * delaysCs.length;
  const memory = releasable ? new ResizableArrayBuffer(bytes, { maxByteLength: bytes }) : undefined;
  // Every byte is written below, each frame a copy of the whole canvas.
  const pixels = memory ? Buffer.from(memory, 0, bytes) : Buffer.allocUnsafeSlow(bytes);
  const frameBytes = gif.width * gif.height * 4;
  /** @type {DecodedGifFrame[]} */
  const frames = [];
  for (const { data, delayCs, rawDelayCs } of composited()) {
    const at = frames.length * frameBytes;
    pixels.set(data, at);
    frames.push({ data: pixels.subarray(at, at + frameBytes), delayCs, rawDelayCs });
  }
  return { ...gif, frames, pixels, release: () => memory?.resize(0) };
}

/**
 * A GIF's structure read and checked as decodeGif does (same limits, same
 * warnings), its frames composited one at a time as they are asked for: for
 * going over a long animation without holding it.
 * @param {Uint8Array} buffer
 * @param {{ maxPixels?: number }} [options]
 * @returns {GifReader}
 */
export function readGif(buffer, { maxPixels = DEFAULT_MAX_PIXELS } = {}) {
  const { structure: s, spans, version, stray } = walk(buffer);
  if (s.frames.length === 0) throw new Error(s.truncated ? 'truncated GIF: the data ends before the first frame' : 'corrupt GIF: no frames');
  checkPixels('logical screen', s.width, s.height, maxPixels);
  for (const [i, f] of s.frames.entries()) checkPixels(`frame ${i}`, f.width, f.height, maxPixels);
  const first = s.frames[0];
  const width = Math.max(s.width, first.left + first.width);
  const height = Math.max(s.height, first.top + first.height);
  checkPixels('canvas', width, height, maxPixels);
  if (width * height * s.frames.length > maxPixels) {
    throw new Error(`GIF of ${s.frames.length} frames of ${width}x${height} exceeds the pixel limit of ${maxPixels} in all`);
  }

  const warnings = [];
  const firefox = firefoxCanvas(s, version, width, height);
  if (width !== s.width || height !== s.height) {
    warnings.push(`frame 0 reaches outside the ${s.width}x${s.height} logical screen: the canvas is ${width}x${height}, as in Chromium${firefox ? `; ${firefox}` : ''}`);
  } else if (firefox) {
    warnings.push(`GIF87a whose frame 0 does not fill the ${s.width}x${s.height} screen: ${firefox}`);
  }
  if (s.trailingBytes > 0 && !stray) warnings.push(`${s.trailingBytes} bytes after the GIF trailer ignored`);
  if (stray) warnings.push(`no GIF trailer: ${s.trailingBytes} bytes that are not GIF blocks after frame ${s.frames.length - 1} ignored`);
  else if (s.truncated) warnings.push(`no GIF trailer: the data ends after frame ${s.frames.length - 1}`);

  function* frames() {
    const canvas = { data: new Uint8Array(width * height * 4), width, height };
    const shown = Buffer.from(canvas.data.buffer, 0, canvas.data.length);
    const globalColours = rgbaTable(s.globalPalette);
    for (const [i, frame] of s.frames.entries()) {
      const indices = decodeLzw(buffer, spans[i], frame.width * frame.height, i);
      const saved = frame.disposal === 3 ? canvas.data.slice() : null;
      blit(canvas, frame, indices, frame.localPalette ? rgbaTable(frame.localPalette) : globalColours);
      yield { data: shown, delayCs: effectiveDelayCs(frame.delayCs), rawDelayCs: frame.delayCs };
      if (frame.disposal === 2) clearRect(canvas, frame);
      else if (saved) restoreRect(canvas, saved, frame);
    }
  }
  const delaysCs = s.frames.map((frame) => effectiveDelayCs(frame.delayCs));
  return { width, height, loop: s.loop, delaysCs, frames, trailingBytes: s.trailingBytes, truncated: s.truncated, warnings };
}

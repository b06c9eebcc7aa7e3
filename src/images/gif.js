// GIF reading for the image passes: the block structure without pixels
// (readGifStructure), every frame composited as browsers show it (decodeGif,
// or readGif a frame at a time), and image type sniffing by magic bytes.
//
// The LZW decoder and the compositing are our own, not omggif's GifReader:
// omggif throws on plain-text and unknown extensions, writes frames that
// reach outside the logical screen into the next row (or past the buffer)
// instead of clipping them, de-interlaces frames of fewer than 5 rows into
// the wrong rows, and on corrupt or short LZW data only logs to the console
// and leaves palette index 0 where pixels are missing. The browser rules
// below were checked against Chromium 156 (WebCodecs ImageDecoder) and
// Firefox's nsGIFDecoder2; where the two differ we follow Chromium and warn.


/** Default for decodeGif's maxPixels: 10,000 x 10,000. */
export const DEFAULT_MAX_PIXELS = 100_000_000;

/**
 * @typedef {object} GifFrameInfo
 * @property {number} left
 * @property {number} top
 * @property {number} width
 * @property {number} height
 * @property {boolean} interlaced
 * @property {number[] | null} localPalette 0xRRGGBB entries
 * @property {0|1|2|3} disposal 0 unspecified, 1 keep, 2 clear to transparent, 3 restore previous
 * @property {number} delayCs delay as written, in hundredths of a second
 * @property {number | null} transparentIndex
 */

/**
 * @typedef {object} GifStructure
 * @property {number} width  logical screen as declared
 * @property {number} height
 * @property {number[] | null} globalPalette 0xRRGGBB entries
 * @property {number} backgroundIndex (browsers ignore it)
 * @property {number | null} loop NETSCAPE2.0/ANIMEXTS1.0 loop count (0 = forever), null when absent
 * @property {GifFrameInfo[]} frames
 * @property {number} end offset just after the trailer (or where the GIF data stops)
 * @property {number} trailingBytes bytes after `end`
 * @property {boolean} truncated no trailer: the data ended, or stopped being GIF blocks, after complete frames
 */

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
 * Where a frame's LZW data lies: the minimum code size byte, then sub-blocks.
 * @typedef {{ start: number, end: number }} DataSpan
 */

/** Thrown when the data ends inside a frame (or before the first block). */
class TruncatedGif extends Error {}

/**
 * A bounds-checked reader over the file; running off the end throws
 * TruncatedGif so callers can tell truncation from corruption.
 */
class Cursor {
  /** @param {Uint8Array} bytes */
  constructor(bytes) {
    this.bytes = bytes;
    this.pos = 0;
  }

  /** @returns {boolean} */
  atEnd() {
    return this.pos >= this.bytes.length;
  }

  /** @returns {number} */
  u8() {
    if (this.pos >= this.bytes.length) throw new TruncatedGif();
    return this.bytes[this.pos++];
  }

  /** @returns {number} little-endian */
  u16() {
    return this.u8() | (this.u8() << 8);
  }

  /** @param {number} n */
  skip(n) {
    if (this.pos + n > this.bytes.length) throw new TruncatedGif();
    this.pos += n;
  }

  /**
   * A colour table of `count` RGB triples.
   * @param {number} count
   * @returns {number[]}
   */
  palette(count) {
    const start = this.pos;
    this.skip(count * 3);
    const out = [];
    for (let i = 0; i < count; i++) {
      const o = start + i * 3;
      out.push((this.bytes[o] << 16) | (this.bytes[o + 1] << 8) | this.bytes[o + 2]);
    }
    return out;
  }

  /**
   * Step over data sub-blocks up to and including the zero-length terminator.
   * @returns {{ start: number, end: number }} the span, terminator included
   */
  subBlocks() {
    const start = this.pos;
    for (let size = this.u8(); size !== 0; size = this.u8()) this.skip(size);
    return { start, end: this.pos };
  }
}

/**
 * @param {Uint8Array} bytes
 * @returns {'87a' | '89a' | null}
 */
function gifVersion(bytes) {
  if (bytes.length < 6 || bytes[0] !== 0x47 || bytes[1] !== 0x49 || bytes[2] !== 0x46 || bytes[3] !== 0x38 || bytes[5] !== 0x61) return null;
  if (bytes[4] === 0x37) return '87a';
  if (bytes[4] === 0x39) return '89a';
  return null;
}

/**
 * Disposal as browsers read it: 4 is taken for "restore previous" (some
 * encoders wrote it so), 5-7 are undefined and mean "unspecified".
 * @param {number} raw 0..7
 * @returns {0|1|2|3}
 */
function normaliseDisposal(raw) {
  if (raw === 4) return 3;
  return raw <= 3 ? /** @type {0|1|2|3} */ (raw) : 0;
}

/**
 * @typedef {object} GraphicControl
 * @property {0|1|2|3} disposal
 * @property {number} delayCs
 * @property {number | null} transparentIndex
 */

/**
 * Graphic control extension body (after 0x21 0xF9). Chromium stops reading a
 * GIF at a control block whose size is not 4, so such a file is corrupt.
 * @param {Cursor} c
 * @returns {GraphicControl}
 */
function readGraphicControl(c) {
  const size = c.u8();
  if (size !== 4) throw new Error(`corrupt GIF: graphic control extension of ${size} bytes at offset ${c.pos - 3} (must be 4)`);
  const flags = c.u8();
  const delayCs = c.u16();
  const index = c.u8();
  c.subBlocks();
  return { disposal: normaliseDisposal((flags >> 2) & 7), delayCs, transparentIndex: flags & 1 ? index : null };
}

/**
 * Application extension body (after 0x21 0xFF): the loop count when it is a
 * NETSCAPE2.0 or ANIMEXTS1.0 block with a looping sub-block, else undefined.
 * @param {Cursor} c
 * @returns {number | undefined}
 */
function readApplication(c) {
  const size = c.u8();
  const idStart = c.pos;
  c.skip(size);
  const id = size === 11 ? Buffer.from(c.bytes.subarray(idStart, idStart + 11)).toString('latin1') : '';
  const looping = id === 'NETSCAPE2.0' || id === 'ANIMEXTS1.0';
  let loop;
  for (let n = c.u8(); n !== 0; n = c.u8()) {
    const at = c.pos;
    c.skip(n);
    if (looping && n >= 3 && (c.bytes[at] & 7) === 1) loop = c.bytes[at + 1] | (c.bytes[at + 2] << 8);
  }
  return loop;
}

/**
 * Logical screen descriptor and global colour table (after the signature).
 * @param {Cursor} c
 * @returns {GifStructure} with no frames yet
 */
function readScreen(c) {
  try {
    const width = c.u16();
    const height = c.u16();
    const flags = c.u8();
    const backgroundIndex = c.u8();
    c.u8(); // pixel aspect ratio
    const globalPalette = flags & 0x80 ? c.palette(2 << (flags & 7)) : null;
    return { width, height, globalPalette, backgroundIndex, loop: null, frames: [], end: 0, trailingBytes: 0, truncated: false };
  } catch (err) {
    if (err instanceof TruncatedGif) throw new Error('truncated GIF: the data ends inside the header');
    throw err;
  }
}

/**
 * An extension block (after 0x21): the graphic control it sets, if it is
 * one; a loop count goes straight into the structure.
 * @param {Cursor} c
 * @param {GifStructure} structure
 * @returns {GraphicControl | undefined}
 */
function readExtension(c, structure) {
  const label = c.u8();
  if (label === 0xf9) return readGraphicControl(c);
  if (label === 0xff) {
    const loop = readApplication(c);
    // The last loop block wins, in Chromium as in Firefox.
    if (loop !== undefined) structure.loop = loop;
    return undefined;
  }
  c.subBlocks(); // comment, plain text (browsers draw none) and unknown labels
  return undefined;
}

/**
 * An image descriptor (after 0x2C), its local colour table, and the extent of
 * its LZW data.
 * @param {Cursor} c
 * @param {GraphicControl | null} control the control block before it
 * @param {number} frameNo for messages
 * @returns {{ frame: GifFrameInfo, span: DataSpan }}
 */
function readImage(c, control, frameNo) {
  const at = c.pos - 1;
  try {
    const left = c.u16();
    const top = c.u16();
    const width = c.u16();
    const height = c.u16();
    const flags = c.u8();
    const localPalette = flags & 0x80 ? c.palette(2 << (flags & 7)) : null;
    const start = c.pos;
    c.u8(); // LZW minimum code size, checked when decoding
    c.subBlocks();
    const frame = { left, top, width, height, interlaced: (flags & 0x40) !== 0, localPalette, disposal: control?.disposal ?? 0, delayCs: control?.delayCs ?? 0, transparentIndex: control?.transparentIndex ?? null };
    return { frame, span: { start, end: c.pos } };
  } catch (err) {
    if (err instanceof TruncatedGif) throw new Error(`truncated GIF: the data ends inside frame ${frameNo} (image at offset ${at})`);
    throw err;
  }
}

/**
 * Walk the blocks of a GIF.
 * @param {Uint8Array} bytes
 * @returns {{ structure: GifStructure, spans: DataSpan[], version: '87a' | '89a', stray: boolean }}
 *   spans[i] is frame i's LZW data; stray is true when non-GIF bytes took the trailer's place
 */
function walk(bytes) {
  const version = gifVersion(bytes);
  if (!version) throw new Error('not a GIF: the file does not start with GIF87a or GIF89a');
  const c = new Cursor(bytes);
  c.skip(6);
  const structure = readScreen(c);
  /** @type {DataSpan[]} */
  const spans = [];
  /** @type {GraphicControl | null} */
  let control = null;
  let stray = false;
  let trailer = false;
  while (!c.atEnd()) {
    const blockStart = c.pos;
    const introducer = c.u8();
    if (introducer === 0x3b) {
      trailer = true;
      break;
    }
    if (introducer === 0x2c) {
      const { frame, span } = readImage(c, control, structure.frames.length);
      structure.frames.push(frame);
      spans.push(span);
      control = null;
    } else if (introducer === 0x21) {
      try {
        control = readExtension(c, structure) ?? control;
      } catch (err) {
        // An extension cut off by the end of the data: the frames before it stand.
        if (!(err instanceof TruncatedGif)) throw err;
        c.pos = bytes.length;
      }
    } else if (structure.frames.length > 0) {
      // Browsers show the frames read so far and ignore the rest.
      c.pos = blockStart;
      stray = true;
      break;
    } else {
      throw new Error(`corrupt GIF: unknown block 0x${introducer.toString(16).padStart(2, '0')} at offset ${blockStart}`);
    }
  }
  structure.end = c.pos;
  structure.trailingBytes = bytes.length - c.pos;
  structure.truncated = !trailer;
  return { structure, spans, version, stray };
}

/**
 * The block structure of a GIF, without decoding any pixels.
 * @param {Uint8Array} buffer
 * @returns {GifStructure}
 * @throws {Error} "not a GIF: ..." for a bad signature, "corrupt GIF: ..." for
 *   an impossible structure, "truncated GIF: ..." when the data ends inside
 *   the header or a frame
 */
export function readGifStructure(buffer) {
  return walk(buffer).structure;
}

/**
 * Reads variable-width LZW codes, least significant bit first, across a
 * frame's data sub-blocks.
 */
class CodeReader {
  /**
   * @param {Uint8Array} bytes
   * @param {DataSpan} span
   */
  constructor(bytes, span) {
    this.bytes = bytes;
    this.pos = span.start + 1; // after the minimum code size
    this.end = span.end;
    this.left = 0; // bytes left in the current sub-block
    this.bits = 0;
    this.count = 0; // bits held
  }

  /**
   * @param {number} size bits
   * @returns {number} the next code, or -1 when the data runs out
   */
  read(size) {
    while (this.count < size) {
      if (this.left === 0) {
        this.left = this.pos < this.end ? this.bytes[this.pos++] : 0;
        if (this.left === 0) return -1;
      }
      this.bits |= this.bytes[this.pos++] << this.count;
      this.count += 8;
      this.left--;
    }
    const code = this.bits & ((1 << size) - 1);
    this.bits >>>= size;
    this.count -= size;
    return code;
  }
}

/**
 * Decode one frame's LZW data to palette indices. Extra data after the last
 * pixel is ignored (as browsers do); data that ends early, a code that is not
 * yet defined, or a code size outside 1..8 is corrupt (Chromium fails the
 * frame too).
 * @param {Uint8Array} bytes
 * @param {DataSpan} span
 * @param {number} pixelCount
 * @param {number} frameNo for messages
 * @returns {Uint8Array}
 */
function decodeLzw(bytes, span, pixelCount, frameNo) {
  const minCodeSize = bytes[span.start];
  if (minCodeSize < 1 || minCodeSize > 8) throw new Error(`corrupt GIF: frame ${frameNo} has LZW minimum code size ${minCodeSize}`);
  const out = new Uint8Array(pixelCount);
  const clear = 1 << minCodeSize;
  // The dictionary: each code's last index, its prefix code, first index and length.
  const suffix = new Uint8Array(4096);
  const prefix = new Uint16Array(4096);
  const first = new Uint8Array(4096);
  const length = new Uint16Array(4096);
  for (let i = 0; i < clear; i++) {
    suffix[i] = i;
    first[i] = i;
    length[i] = 1;
  }
  const reader = new CodeReader(bytes, span);
  let next = clear + 2;
  let size = minCodeSize + 1;
  let prev = -1;
  let op = 0;
  while (op < pixelCount) {
    const code = reader.read(size);
    if (code < 0 || code === clear + 1) break; // out of data, or end of information
    if (code === clear) {
      next = clear + 2;
      size = minCodeSize + 1;
      prev = -1;
      continue;
    }
    if (prev < 0 ? code > clear : code > next) throw new Error(`corrupt GIF: frame ${frameNo} uses the undefined LZW code ${code}`);
    if (prev >= 0 && next < 4096) {
      // prev's string plus the first index of this code's string; when the
      // code is the one being defined ("KwKwK") that index is prev's first.
      prefix[next] = prev;
      suffix[next] = code < next ? first[code] : first[prev];
      first[next] = first[prev];
      length[next] = length[prev] + 1;
      next++;
      // With a minimum code size of 1 the first free code already needs the
      // wider width, hence >=: Chromium reads such streams so (libnsgif and
      // Firefox widen one entry later).
      if (next >= 1 << size && size < 12) size++;
    }
    op = writeString(out, op, code, prefix, suffix, length);
    prev = code;
  }
  if (op < pixelCount) throw new Error(`corrupt GIF: frame ${frameNo} has LZW data for ${op} of ${pixelCount} pixels`);
  return out;
}

/**
 * Write the string of an LZW code at `op` (backwards along its prefix chain),
 * dropping what falls past the end of the frame.
 * @param {Uint8Array} out
 * @param {number} op
 * @param {number} code
 * @param {Uint16Array} prefix
 * @param {Uint8Array} suffix
 * @param {Uint16Array} length
 * @returns {number} the new output position
 */
function writeString(out, op, code, prefix, suffix, length) {
  const n = length[code];
  let c = code;
  for (let i = n - 1; i >= 0; i--) {
    if (op + i < out.length) out[op + i] = suffix[c];
    c = prefix[c];
  }
  return Math.min(out.length, op + n);
}

/**
 * Source row for each destination row of a frame: interlaced frames store
 * rows 0, 8, 16..., then 4, 12..., then 2, 6..., then 1, 3...
 * @param {number} height
 * @param {boolean} interlaced
 * @returns {Uint32Array} destination row of the n-th stored row
 */
function rowOrder(height, interlaced) {
  const rows = new Uint32Array(height);
  if (!interlaced) {
    for (let i = 0; i < height; i++) rows[i] = i;
    return rows;
  }
  let n = 0;
  for (const [start, step] of [[0, 8], [4, 8], [2, 4], [1, 2]]) {
    for (let y = start; y < height; y += step) rows[n++] = y;
  }
  return rows;
}

/**
 * RGBA lookup for all 256 indices. Indices past the end of the palette, and
 * every index when there is no palette at all, are opaque black in Chromium
 * (Firefox wraps such indices around the palette instead).
 * @param {number[] | null} palette
 * @returns {Uint8Array}
 */
function rgbaTable(palette) {
  const table = new Uint8Array(256 * 4);
  for (let i = 0; i < 256; i++) {
    const c = palette && i < palette.length ? palette[i] : 0;
    table[i * 4] = (c >> 16) & 255;
    table[i * 4 + 1] = (c >> 8) & 255;
    table[i * 4 + 2] = c & 255;
    table[i * 4 + 3] = 255;
  }
  return table;
}

/**
 * @typedef {{ data: Uint8Array, width: number, height: number }} Canvas RGBA
 */

/**
 * Draw a frame's indices onto the canvas: transparent-index pixels leave the
 * canvas as it is, pixels outside it are clipped.
 * @param {Canvas} canvas
 * @param {GifFrameInfo} frame
 * @param {Uint8Array} indices
 * @param {Uint8Array} colours rgbaTable of the frame's palette
 * @returns {void}
 */
function blit(canvas, frame, indices, colours) {
  const rows = rowOrder(frame.height, frame.interlaced);
  const visibleWidth = Math.max(0, Math.min(frame.width, canvas.width - frame.left));
  const transparent = frame.transparentIndex ?? -1;
  for (let r = 0; r < frame.height; r++) {
    const y = frame.top + rows[r];
    if (y >= canvas.height) continue;
    let src = r * frame.width;
    let dst = (y * canvas.width + frame.left) * 4;
    for (let x = 0; x < visibleWidth; x++, src++, dst += 4) {
      const index = indices[src];
      if (index === transparent) continue;
      const k = index * 4;
      canvas.data[dst] = colours[k];
      canvas.data[dst + 1] = colours[k + 1];
      canvas.data[dst + 2] = colours[k + 2];
      canvas.data[dst + 3] = 255;
    }
  }
}

/**
 * The part of a frame's rectangle inside the canvas.
 * @param {Canvas} canvas
 * @param {GifFrameInfo} frame
 * @returns {{ x0: number, y0: number, x1: number, y1: number }}
 */
function clipRect(canvas, frame) {
  return { x0: Math.min(frame.left, canvas.width), y0: Math.min(frame.top, canvas.height), x1: Math.min(frame.left + frame.width, canvas.width), y1: Math.min(frame.top + frame.height, canvas.height) };
}

/**
 * Disposal 2: the frame's rectangle becomes transparent (browsers ignore the
 * background colour).
 * @param {Canvas} canvas
 * @param {GifFrameInfo} frame
 * @returns {void}
 */
function clearRect(canvas, frame) {
  const { x0, y0, x1, y1 } = clipRect(canvas, frame);
  for (let y = y0; y < y1; y++) canvas.data.fill(0, (y * canvas.width + x0) * 4, (y * canvas.width + x1) * 4);
}

/**
 * Disposal 3: put back the frame's rectangle from a copy of the canvas taken
 * before the frame was drawn.
 * @param {Canvas} canvas
 * @param {Uint8Array} saved
 * @param {GifFrameInfo} frame
 * @returns {void}
 */
function restoreRect(canvas, saved, frame) {
  const { x0, y0, x1, y1 } = clipRect(canvas, frame);
  for (let y = y0; y < y1; y++) {
    const from = (y * canvas.width + x0) * 4;
    const to = (y * canvas.width + x1) * 4;
    canvas.data.set(saved.subarray(from, to), from);
  }
}

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

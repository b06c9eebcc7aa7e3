/**
 * Reads a GIF's block structure without decoding pixels: the logical screen,
 * each frame's descriptor, palette and graphic control, the loop count, and
 * where each frame's LZW data lies, telling truncated data from corrupt.
 */

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
export function walk(bytes) {
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

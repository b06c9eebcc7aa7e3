/**
 * Decodes one GIF frame's LZW data, across its sub-blocks, to palette indices.
 */

/** @typedef {import('./structure.js').DataSpan} DataSpan */

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
export function decodeLzw(bytes, span, pixelCount, frameNo) {
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

/**
 * PNG container: the signature, reading and writing chunks (length, type,
 * data, CRC-32 over type and data), and the IHDR chunk.
 */
import zlib from 'node:zlib';

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The PNG limit on a chunk's data length and on image dimensions. */
const MAX_UINT31 = 0x7fffffff;

/** @typedef {{ type: string, data: Buffer, offset: number }} PngChunk offset: where the chunk's length field starts */

/** @param {Uint8Array} buffer */
export function isPng(buffer) {
  return buffer.length >= PNG_SIGNATURE.length && PNG_SIGNATURE.equals(buffer.subarray(0, PNG_SIGNATURE.length));
}

/** @param {Uint8Array} typeAndData chunk type followed by its data */
function crcOf(typeAndData) {
  return zlib.crc32(typeAndData) >>> 0;
}

/** @param {string} type */
function isChunkType(type) {
  return /^[A-Za-z]{4}$/.test(type);
}

/**
 * Reads every chunk up to and including IEND; bytes after IEND are ignored.
 * @param {Uint8Array} buffer
 * @returns {PngChunk[]} data are views into the buffer
 */
export function readChunks(buffer) {
  const bytes = Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  if (!isPng(bytes)) throw new Error('Not a PNG file: the signature is missing');
  /** @type {PngChunk[]} */
  const chunks = [];
  let offset = PNG_SIGNATURE.length;
  for (;;) {
    if (offset + 12 > bytes.length) throw new Error(`Truncated PNG: chunk header expected at byte ${offset}, file ends at ${bytes.length}`);
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    if (!isChunkType(type)) throw new Error(`Corrupt PNG: invalid chunk type at byte ${offset}`);
    if (length > MAX_UINT31) throw new Error(`Corrupt PNG: ${type} chunk length ${length} exceeds 2^31-1`);
    const end = offset + 12 + length;
    if (end > bytes.length) throw new Error(`Truncated PNG: ${type} chunk at byte ${offset} needs ${length} data bytes, file ends at ${bytes.length}`);
    const stored = bytes.readUInt32BE(end - 4);
    if (crcOf(bytes.subarray(offset + 4, end - 4)) !== stored) throw new Error(`Corrupt PNG: CRC mismatch in ${type} chunk at byte ${offset}`);
    chunks.push({ type, data: bytes.subarray(offset + 8, end - 4), offset });
    offset = end;
    if (type === 'IEND') return chunks;
  }
}

/**
 * @param {string} type four ASCII letters
 * @param {Uint8Array} [data]
 * @returns {Buffer} length, type, data and CRC
 */
export function chunk(type, data = new Uint8Array(0)) {
  if (!isChunkType(type)) throw new Error(`Invalid PNG chunk type ${JSON.stringify(type)}`);
  if (data.length > MAX_UINT31) throw new Error(`${type} chunk data too long: ${data.length} bytes`);
  const out = Buffer.allocUnsafe(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  out.set(data, 8);
  out.writeUInt32BE(crcOf(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/**
 * @param {{ width: number, height: number, bitDepth: number, colorType: number, interlace?: number }} header
 * @returns {Buffer} the whole IHDR chunk
 */
export function ihdr({ width, height, bitDepth, colorType, interlace = 0 }) {
  if (![width, height].every((side) => Number.isInteger(side) && side >= 1 && side <= MAX_UINT31)) {
    throw new Error(`Invalid PNG size ${width}x${height}`);
  }
  const data = Buffer.alloc(13);
  data.writeUInt32BE(width, 0);
  data.writeUInt32BE(height, 4);
  data[8] = bitDepth;
  data[9] = colorType;
  data[10] = 0; // compression method: deflate
  data[11] = 0; // filter method: adaptive, five types
  data[12] = interlace;
  return chunk('IHDR', data);
}

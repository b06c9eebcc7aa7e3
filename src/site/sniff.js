/**
 * What kind of image a file is, by its first bytes, as browsers decide it
 * (the WHATWG MIME Sniffing standard's image signatures): names can lie.
 * The site model and every pass ask here, so none of them imports a codec.
 */

/** @typedef {'gif' | 'png' | 'jpeg' | 'webp' | 'avif'} ImageType */

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** ISO-BMFF brands that make a file AVIF (still image and image sequence). */
const AVIF_BRANDS = new Set(['avif', 'avis']);

/**
 * The image type by magic bytes, whatever the file is called.
 * @param {Uint8Array} bytes the file's first bytes (12 are enough for all but AVIF, whose compatible brands may follow)
 * @returns {ImageType | null}
 */
export function sniffImageType(bytes) {
  const b = bytes;
  if (b.length >= 6 && ascii(b, 0, 4) === 'GIF8' && (b[4] === 0x37 || b[4] === 0x39) && b[5] === 0x61) return 'gif';
  if (b.length >= 8 && PNG_SIGNATURE.every((v, i) => b[i] === v)) return 'png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 12 && ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WEBP') return 'webp';
  if (isAvif(b)) return 'avif';
  return null;
}

/**
 * An ISO-BMFF file whose `ftyp` box names an AVIF brand, as its major brand
 * or among its compatible brands (the box ends where its size says).
 * @param {Uint8Array} b
 */
function isAvif(b) {
  if (b.length < 16 || ascii(b, 4, 8) !== 'ftyp') return false;
  const boxEnd = Math.min(b.length, ((b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]) >>> 0);
  if (AVIF_BRANDS.has(ascii(b, 8, 12))) return true;
  for (let at = 16; at + 4 <= boxEnd; at += 4) if (AVIF_BRANDS.has(ascii(b, at, at + 4))) return true;
  return false;
}

/**
 * @param {Uint8Array} b
 * @param {number} from
 * @param {number} to
 */
function ascii(b, from, to) {
  return String.fromCharCode(...b.subarray(from, to));
}

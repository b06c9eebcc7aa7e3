/**
 * A JPEG's encoder quality, estimated from its luminance quantization table,
 * as libjpeg's scaling of the standard table (ITU-T T.81, Annex K) gives it.
 * The photos pass starts its search from it: a re-encoding that scores as
 * visually identical lands near the quality the original was saved at (one
 * below for mozjpeg; about ten below for AVIF), so the search needs fewer
 * encodings than from one fixed guess for every photograph.
 *
 * Why hand-written: neither sharp nor libvips reports the quantization
 * tables, and reading one DQT segment is a dozen lines. The estimate is a
 * starting point only: a table that is not libjpeg's scaled standard one
 * (mozjpeg's, a camera's) still gives a quality of about the same strength,
 * and below quality 20 a baseline file's entries are clipped at 255, so the
 * estimate reads higher than the quality asked for (15 for 10).
 */

/** The standard luminance table's sum (Annex K, table K.1): the order of the entries does not matter for a sum. */
const STANDARD_LUMINANCE_SUM = [
  16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
  18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
].reduce((sum, entry) => sum + entry, 0);

/**
 * The quality (1-100) whose libjpeg scaling of the standard luminance table
 * is nearest the file's table 0, or null when the file has none before its
 * first scan (or is not a JPEG).
 * @param {Uint8Array} jpeg
 * @returns {number | null}
 */
export function jpegQuality(jpeg) {
  if (jpeg.length < 4 || jpeg[0] !== 0xff || jpeg[1] !== 0xd8) return null;
  const view = new DataView(jpeg.buffer, jpeg.byteOffset, jpeg.byteLength);
  for (let at = 2; at + 4 <= jpeg.length;) {
    if (jpeg[at] !== 0xff) return null;
    const marker = jpeg[at + 1];
    if (marker === 0xff) { at++; continue; } // fill byte
    if (marker === 0xda || marker === 0xd9) return null; // start of scan, end of image: no table 0 before them
    const length = view.getUint16(at + 2);
    const end = at + 2 + length;
    if (length < 2 || end > jpeg.length) return null;
    if (marker === 0xdb) {
      // A DQT segment holds one or more tables: Pq/Tq, then 64 entries of 8 (Pq 0) or 16 bits (Pq 1).
      for (let t = at + 4; t < end;) {
        const wide = jpeg[t] >> 4 === 1;
        const id = jpeg[t] & 15;
        const size = 1 + 64 * (wide ? 2 : 1);
        if (t + size > end) return null;
        if (id === 0) {
          let sum = 0;
          for (let k = 0; k < 64; k++) sum += wide ? view.getUint16(t + 1 + 2 * k) : jpeg[t + 1 + k];
          return qualityOfScale((sum * 100) / STANDARD_LUMINANCE_SUM);
        }
        t += size;
      }
    }
    at = end;
  }
  return null;
}

/**
 * libjpeg's jpeg_quality_scaling inverted: quality q < 50 scales the table by 5000 / q percent, q >= 50 by 200 - 2q.
 * @param {number} scale percent of the standard table
 */
function qualityOfScale(scale) {
  const quality = scale <= 100 ? (200 - scale) / 2 : 5000 / scale;
  return Math.min(100, Math.max(1, Math.round(quality)));
}

/**
 * Pixel helpers for the text-images pass: decoding an image to RGBA, colours
 * as CSS, the coverage of a foreground over a background (how far each pixel
 * is along the anti-aliasing ramp between them), ink boxes, and the ink
 * similarity score every decision of the pass is based on.
 */
import sharp from 'sharp';

/**
 * @typedef {[number, number, number]} Rgb
 * @typedef {{ width: number, height: number, data: Uint8Array }} Rgba 4 bytes a pixel
 * @typedef {{ width: number, height: number, data: Float32Array }} Coverage 0 (background) to 1 (foreground) a pixel
 * @typedef {{ left: number, top: number, right: number, bottom: number }} Box right and bottom exclusive
 */

/**
 * The first frame of an image as RGBA, with its frame count.
 * @param {Uint8Array} bytes
 * @returns {Promise<Rgba & { frames: number }>}
 */
export async function decodeImage(bytes) {
  const image = sharp(bytes, { pages: 1, limitInputPixels: 1 << 22 });
  const meta = await image.metadata();
  const { data, info } = await image.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), frames: meta.pages ?? 1 };
}

/**
 * A colour as the shortest CSS hex: #fc0 when it can, else #ffcc01.
 * @param {Rgb} rgb
 */
export function cssColour(rgb) {
  const hex = rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('');
  return /^(.)\1(.)\2(.)\3$/.test(hex) ? `#${hex[0]}${hex[2]}${hex[4]}` : `#${hex}`;
}

/** @param {Rgb} a @param {Rgb} b */
export function colourDistance(a, b) {
  return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

/**
 * Each pixel's position along the line from bg to fg (0 to 1, clamped), and
 * the largest distance of an opaque pixel from that line: the ramp explains the
 * image when that residual is small. Transparent pixels count as background.
 * @param {Rgba} img
 * @param {Rgb} bg
 * @param {Rgb} fg
 * @returns {{ coverage: Coverage, residuals: Float32Array }}
 */
export function coverageOf(img, bg, fg) {
  const n = img.width * img.height;
  const coverage = new Float32Array(n);
  const residuals = new Float32Array(n);
  const d = [fg[0] - bg[0], fg[1] - bg[1], fg[2] - bg[2]];
  const len2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] || 1;
  for (let i = 0; i < n; i++) {
    if (img.data[i * 4 + 3] < 128) continue;
    const p = [img.data[i * 4] - bg[0], img.data[i * 4 + 1] - bg[1], img.data[i * 4 + 2] - bg[2]];
    const t = Math.min(1, Math.max(0, (p[0] * d[0] + p[1] * d[1] + p[2] * d[2]) / len2));
    coverage[i] = t;
    residuals[i] = Math.hypot(p[0] - t * d[0], p[1] - t * d[1], p[2] - t * d[2]);
  }
  return { coverage: { width: img.width, height: img.height, data: coverage }, residuals };
}

/**
 * The box holding every pixel with more coverage than a threshold, or null.
 * @param {Coverage} cov
 * @param {number} [threshold]
 * @returns {Box | null}
 */
export function inkBox(cov, threshold = 0.25) {
  const { width, height, data } = cov;
  let left = width;
  let top = height;
  let right = 0;
  let bottom = 0;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    // A row's first pixel of ink from the left, then its last from the right: the pixels between cannot move the box.
    let first = 0;
    while (first < width && data[row + first] <= threshold) first++;
    if (first === width) continue;
    let last = width - 1;
    while (data[row + last] <= threshold) last--;
    if (first < left) left = first;
    if (last >= right) right = last + 1;
    if (y < top) top = y;
    bottom = y + 1;
  }
  return right > left ? { left, top, right, bottom } : null;
}

/**
 * Ink similarity of two coverages laid over each other with b shifted by
 * (dx, dy): 1 - Σ|a - b| / (Σa + Σb). 1 when they are the same; 0 when their
 * ink does not overlap at all. Background where neither has ink does not
 * count, so a small word on a large banner is judged by its letters.
 * @param {Coverage} a
 * @param {Coverage} b
 * @param {number} [dx]
 * @param {number} [dy]
 */
export function inkSimilarity(a, b, dx = 0, dy = 0) {
  // Only pixels where a or b has ink add anything: the sums run over the rectangle that holds both, in the
  // same order as over the whole picture, so they are the same to the last bit (an added 0 changes no sum).
  // Each row is cut where b's shifted picture begins and ends: outside it b is 0, and |va - 0| and va + 0 are va.
  const inkA = nonZeroBox(a);
  const inkB = nonZeroBox(b);
  const A = a.data;
  const B = b.data;
  let diff = 0;
  let total = 0;
  if (inkA || inkB) {
    const left = Math.max(0, Math.min(inkA ? inkA.left : Infinity, inkB ? inkB.left + dx : Infinity));
    const top = Math.max(0, Math.min(inkA ? inkA.top : Infinity, inkB ? inkB.top + dy : Infinity));
    const right = Math.min(a.width, Math.max(inkA ? inkA.right : -Infinity, inkB ? inkB.right + dx : -Infinity));
    const bottom = Math.min(a.height, Math.max(inkA ? inkA.bottom : -Infinity, inkB ? inkB.bottom + dy : -Infinity));
    // Columns of a where the shifted b has pixels.
    const bLeft = Math.min(right, Math.max(left, dx));
    const bRight = Math.max(bLeft, Math.min(right, dx + b.width));
    for (let y = top; y < bottom; y++) {
      const row = y * a.width;
      const by = y - dy;
      if (by < 0 || by >= b.height) {
        for (let x = left; x < right; x++) {
          const va = A[row + x];
          diff += va;
          total += va;
        }
        continue;
      }
      const shift = by * b.width - dx;
      for (let x = left; x < bLeft; x++) {
        const va = A[row + x];
        diff += va;
        total += va;
      }
      for (let x = bLeft; x < bRight; x++) {
        const va = A[row + x];
        const vb = B[shift + x];
        diff += Math.abs(va - vb);
        total += va + vb;
      }
      for (let x = bRight; x < right; x++) {
        const va = A[row + x];
        diff += va;
        total += va;
      }
    }
  }
  // Ink of b that falls outside a is lost above; count it as difference.
  let bInside = 0;
  const bAll = inkSum(b);
  if (inkB) {
    // Rows and columns of b that land inside a.
    const fromY = Math.max(inkB.top, -dy);
    const toY = Math.min(inkB.bottom, a.height - dy);
    const fromX = Math.max(inkB.left, -dx);
    const toX = Math.min(inkB.right, a.width - dx);
    for (let y = fromY; y < toY; y++) {
      const row = y * b.width;
      for (let x = fromX; x < toX; x++) bInside += B[row + x];
    }
  }
  diff += bAll - bInside;
  total += bAll - bInside;
  return total === 0 ? 1 : 1 - diff / total;
}

/** @type {WeakMap<Coverage, { left: number, top: number, right: number, bottom: number } | null>} */
const nonZeroBoxes = new WeakMap();
/** @type {WeakMap<Coverage, number>} */
const inkSums = new WeakMap();

/**
 * The rectangle of a coverage's pixels above 0, kept per coverage (a drawing is compared at many offsets).
 * @param {Coverage} c
 */
function nonZeroBox(c) {
  let box = nonZeroBoxes.get(c);
  if (box !== undefined) return box;
  box = inkBox(c, 0);
  nonZeroBoxes.set(c, box);
  return box;
}

/**
 * The sum of a coverage's pixels, in row order, kept per coverage.
 * @param {Coverage} c
 */
function inkSum(c) {
  let sum = inkSums.get(c);
  if (sum !== undefined) return sum;
  sum = 0;
  for (let i = 0; i < c.data.length; i++) sum += c.data[i];
  inkSums.set(c, sum);
  return sum;
}

/**
 * Colour similarity of two same-sized RGB(A) pictures over a background:
 * 1 - Σ|A - B| / (Σ|A - bg| + Σ|B - bg|), channels summed. The measure the
 * pass uses on browser screenshots, where the colours are those drawn.
 * @param {Uint8Array} a
 * @param {Uint8Array} b
 * @param {number} channels 3 or 4 (alpha ignored)
 * @param {Rgb} bg
 */
export function pictureSimilarity(a, b, channels, bg) {
  let diff = 0;
  let total = 0;
  for (let i = 0; i < a.length; i += channels) {
    for (let c = 0; c < 3; c++) {
      diff += Math.abs(a[i + c] - b[i + c]);
      total += Math.abs(a[i + c] - bg[c]) + Math.abs(b[i + c] - bg[c]);
    }
  }
  if (total === 0) return 1;
  return Math.max(0, 1 - diff / total);
}

/**
 * The worker job of the text-images pass: from an image's bytes and the texts
 * its elements offer (ALT, TITLE), what the image is and how it would be
 * rebuilt (kind, colours, text, face and size), or why it stays. Reads the
 * words with OCR only when no offered text matches the pixels. A pure
 * function of its input, so its result is cached by the image's hash.
 */
import { classifyPixels } from './classify.js';
import { coverageOf, decodeImage } from './pixels.js';
import { estimateStyle, estimateSymbol, TextDrawError } from './estimate.js';
import { readText } from './ocr.js';
import { imageErrorReason } from '../util/image-error.js';

/**
 * @typedef {import('./pixels.js').Rgb} Rgb
 * @typedef {import('./pixels.js').Box} Box
 * @typedef {import('./estimate.js').StyleEstimate} StyleEstimate
 * @typedef {import('./ocr.js').OcrResult} OcrResult
 *
 * @typedef {object} PlanOptions
 * @property {string[]} texts what the elements say the image shows (ALT, TITLE), in order of preference
 * @property {boolean} ocr whether OCR may read images whose texts do not match
 * @property {number} agreement ink similarity a rendered text needs to count as what the image shows
 * @property {number} minOcrConfidence OCR results below this confidence (0-100) are not used
 *
 * @typedef {{ width: number, height: number }} Size
 * @typedef {Size & { status: 'spacer', colour: Rgb | null }} SpacerPlan
 * @typedef {Size & { status: 'rule', direction: 'horizontal' | 'vertical', bands: { colour: Rgb, size: number }[] }} RulePlan
 * @typedef {Size & { status: 'text' | 'symbol', bg: Rgb, fg: Rgb, transparent: boolean, ink: Box, estimates: StyleEstimate[], source: 'alt' | 'ocr' | 'shape', ocr: OcrResult | null }} InkPlan
 * @typedef {Partial<Size> & { status: 'kept', reason: string, score?: number, ocr?: OcrResult | null, undrawable?: boolean }} KeptPlan
 *   undrawable: its text could not be drawn to be compared (the pass warns)
 * @typedef {SpacerPlan | RulePlan | InkPlan | KeptPlan} Plan
 */

/** How many of the best estimates go on to be rendered in the browser. */
const ESTIMATES_KEPT = 3;

/**
 * @param {{ bytes: Uint8Array, options: PlanOptions }} input
 * @returns {Promise<Plan>}
 */
export async function textImagePlan({ bytes, options }) {
  let img;
  try {
    img = await decodeImage(bytes);
  } catch (error) {
    return { status: 'kept', reason: `unreadable: ${imageErrorReason(error)}` };
  }
  const size = { width: img.width, height: img.height };
  try {
    return await planImage(img, size, options);
  } catch (error) {
    if (!(error instanceof TextDrawError)) throw error;
    return { ...size, status: 'kept', reason: `its text cannot be drawn to compare: ${error.message}`, undrawable: true };
  }
}

/**
 * @param {Awaited<ReturnType<typeof decodeImage>>} img
 * @param {Size} size
 * @param {PlanOptions} options
 * @returns {Promise<Plan>}
 */
async function planImage(img, size, options) {
  if (img.frames > 1) return { ...size, status: 'kept', reason: `animated (${img.frames} frames)` };
  const found = classifyPixels(img);
  if (found.kind === 'picture') return { ...size, status: 'kept', reason: `not text: ${found.reason}` };
  if (found.kind === 'spacer') return { ...size, status: 'spacer', colour: found.colour };
  if (found.kind === 'rule') return { ...size, status: 'rule', direction: found.direction, bands: found.bands };

  const { coverage } = coverageOf(img, found.bg, found.fg);
  const ink = { ...size, status: found.kind, bg: found.bg, fg: found.fg, transparent: found.transparent, ink: found.ink, ocr: null };
  if (found.kind === 'symbol') {
    const estimates = await estimateSymbol(coverage, found.ink);
    return { ...ink, estimates: estimates.slice(0, ESTIMATES_KEPT), source: 'shape' };
  }
  const offered = [...new Set(options.texts.map((t) => t.replace(/\s+/g, ' ').trim()).filter(Boolean))];
  const fromAlt = await estimateStyle(coverage, found.ink, offered);
  if (fromAlt.length && fromAlt[0].score >= options.agreement) return { ...ink, estimates: fromAlt.slice(0, ESTIMATES_KEPT), source: 'alt' };
  const altNote = offered.length ? `ALT/TITLE ${JSON.stringify(offered[0])} does not match the pixels (${(fromAlt[0]?.score ?? 0).toFixed(2)})` : 'no ALT or TITLE';
  if (!options.ocr) return { ...size, status: 'kept', reason: `${altNote}, and OCR is off`, score: fromAlt[0]?.score };
  const ocr = await readText(coverage, found.ink.bottom - found.ink.top);
  if (!ocr.text) return { ...size, status: 'kept', reason: `${altNote}; OCR found no text`, ocr };
  if (ocr.confidence < options.minOcrConfidence) return { ...size, status: 'kept', reason: `${altNote}; low OCR confidence (${ocr.confidence} < ${options.minOcrConfidence}) for ${JSON.stringify(ocr.text)}`, ocr };
  const fromOcr = await estimateStyle(coverage, found.ink, [ocr.text]);
  if (!fromOcr.length || fromOcr[0].score < options.agreement) {
    return { ...size, status: 'kept', reason: `${altNote}; OCR's ${JSON.stringify(ocr.text)} rendered matches only ${(fromOcr[0]?.score ?? 0).toFixed(2)} < ${options.agreement}`, score: fromOcr[0]?.score, ocr };
  }
  return { ...ink, estimates: fromOcr.slice(0, ESTIMATES_KEPT), source: 'ocr', ocr };
}

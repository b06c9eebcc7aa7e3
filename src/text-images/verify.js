/**
 * Fitting and proving a replacement in the browser: the text is first drawn
 * with no offset to see where Chromium puts its ink, then moved so its ink
 * lands where the image's is (text-indent, and line-height, which moves a
 * line's glyphs by half its change) and drawn there; the placements a pixel
 * either way are ranked by moving that picture (whole pixels move the glyphs
 * unchanged), and the most promising drawn too. The replacement is the most
 * similar of the drawings Chromium made, with the score of its own picture.
 */
import { contentDeclarations, cssRule, htmlText } from './markup.js';
import { coverageOf, inkBox, pictureSimilarity } from './pixels.js';

/**
 * @typedef {import('./render.js').Renderer} Renderer
 * @typedef {import('./plan.js').Plan} Plan
 * @typedef {import('./plan.js').InkPlan} InkPlan
 * @typedef {import('./pixels.js').Rgb} Rgb
 * @typedef {import('./estimate.js').StyleEstimate} StyleEstimate
 * @typedef {import('./markup.js').Declaration} Declaration
 * @typedef {{ style: StyleEstimate, dx: number, dy: number, letterSpacing: number }} Spot an estimate and letter spacing
 *   at the offset that puts its ink on the image's
 *
 * @typedef {object} Fitted
 * @property {number} score similarity of the replacement to the image in Chromium, 0-1
 * @property {Declaration[]} content the declarations that draw it
 * @property {string} text what the element holds ('' for spacers and rules)
 */

/** A colour no spacer is expected to be, so a transparent one drawn opaque shows. */
const PROBE_BACKGROUND = /** @type {Rgb} */ ([255, 0, 255]);
const WHITE = /** @type {Rgb} */ ([255, 255, 255]);

/**
 * @param {Renderer} session what draws the renders: a session, or a pass's sessions
 * @param {Exclude<Plan, import('./plan.js').KeptPlan>} plan
 * @param {{ bytes: Uint8Array, mime: string }} image
 * @param {number} width displayed width
 * @param {number} height displayed height
 * @param {'span' | 'button'} [element] what will carry the replacement (a <button> for an image button)
 * @returns {Promise<Fitted>}
 */
export async function fitReplacement(session, plan, image, width, height, element = 'span') {
  if (plan.status === 'spacer' || plan.status === 'rule') {
    const content = contentDeclarations(plan, width, height, null, null);
    const background = plan.status === 'spacer' && !plan.colour ? PROBE_BACKGROUND : WHITE;
    const drawn = await session.render(image, width, height, [variant(content, '', element)], background);
    return { score: pictureSimilarity(drawn.original.data, drawn.variants[0].data, 4, background), content, text: '' };
  }
  const background = plan.transparent ? plan.bg : WHITE;
  const measure = plan.estimates.map((style) => contentDeclarations(plan, width, height, style, { indent: 0, lineHeight: style.size }, element));
  const first = await session.render(image, width, height, measure.map((c, i) => variant(c, plan.estimates[i].text, element)), background);
  const target = inkBox(coverageOf(first.original, plan.bg, plan.fg).coverage);
  /**
   * Each estimate and letter spacing drawn once, at the offset that puts its ink on the image's.
   * @type {Spot[]}
   */
  const drawnOnce = [];
  for (const [i, style] of plan.estimates.entries()) {
    const at = inkBox(coverageOf(first.variants[i], plan.bg, plan.fg).coverage);
    if (!target || !at) continue;
    const dy = target.top - at.top;
    // A line height below zero is no placement (the few the offsets below would make valid are not tried).
    if (style.size + 2 * dy < 0) continue;
    for (const letterSpacing of spacings(target.right - target.left, at.right - at.left, [...style.text].length)) {
      drawnOnce.push({ style, dx: target.left - at.left, dy, letterSpacing });
    }
  }
  if (!drawnOnce.length) return { score: 0, content: measure[0], text: plan.estimates[0]?.text ?? '' };
  /**
   * Placements drawn in Chromium, each with its score there, and the pictures. Spacers and rules returned above: the
   * plan is text or a symbol, drawn on its own background.
   * @param {{ spot: Spot, ox: number, oy: number }[]} placements
   */
  const draw = async (placements) => {
    const contents = placements.map(({ spot, ox, oy }) => contentDeclarations(plan, width, height, spot.style, { indent: spot.dx + ox, lineHeight: spot.style.size + 2 * (spot.dy + oy), letterSpacing: spot.letterSpacing }, element));
    const drawn = await session.render(image, width, height, contents.map((c, i) => variant(c, placements[i].spot.style.text, element)), background);
    const scored = drawn.variants.map((v, i) => ({ style: placements[i].spot.style, content: contents[i], score: pictureSimilarity(drawn.original.data, v.data, 4, plan.bg) }));
    return { scored, drawn };
  };
  const { scored: proven, drawn: second } = await draw(drawnOnce.map((spot) => ({ spot, ox: 0, oy: 0 })));
  // The neighbouring placements, a pixel either way, move the text by whole pixels: their pictures are the drawn
  // one moved, which ranks them here; the best few are then drawn in Chromium, which gives their scores.
  /** @type {{ spot: Spot, ox: number, oy: number, modelled: number }[]} */
  const moved = [];
  drawnOnce.forEach((spot, i) => {
    for (let oy = -1; oy <= 1; oy++) {
      for (let ox = -1; ox <= 1; ox++) {
        if ((ox === 0 && oy === 0) || spot.style.size + 2 * (spot.dy + oy) < 0) continue;
        moved.push({ spot, ox, oy, modelled: movedSimilarity(second.original.data, second.variants[i].data, width, height, ox, oy, plan.bg) });
      }
    }
  });
  const bestDrawn = mostSimilar(proven).score;
  const likely = moved.filter((m) => m.modelled > bestDrawn).sort((a, b) => b.modelled - a.modelled).slice(0, MOVED_DRAWN);
  if (likely.length) proven.push(...(await draw(likely)).scored);
  const chosen = mostSimilar(proven);
  return { score: chosen.score, content: chosen.content, text: chosen.style.text };
}

/**
 * The first of the highest score.
 * @template {{ score: number }} T
 * @param {T[]} scored
 */
function mostSimilar(scored) {
  let best = scored[0];
  for (const s of scored) if (s.score > best.score) best = s;
  return best;
}

/** How many of the moved placements, best modelled first, are drawn in Chromium. */
const MOVED_DRAWN = 4;

/**
 * pictureSimilarity of an image and a drawing moved by (ox, oy) pixels, without
 * moving it: where the move uncovers pixels, the drawing's own pixel there
 * (its background at the edge) stands in.
 * @param {Uint8Array} a RGBA
 * @param {Uint8Array} b RGBA, the same size
 * @param {number} width
 * @param {number} height
 * @param {number} ox
 * @param {number} oy
 * @param {Rgb} bg
 */
export function movedSimilarity(a, b, width, height, ox, oy, bg) {
  let diff = 0;
  let total = 0;
  for (let y = 0; y < height; y++) {
    const sy = y - oy;
    for (let x = 0; x < width; x++) {
      const sx = x - ox;
      const i = (y * width + x) * 4;
      const j = sx >= 0 && sy >= 0 && sx < width && sy < height ? (sy * width + sx) * 4 : i;
      for (let c = 0; c < 3; c++) {
        diff += Math.abs(a[i + c] - b[j + c]);
        total += Math.abs(a[i + c] - bg[c]) + Math.abs(b[j + c] - bg[c]);
      }
    }
  }
  if (total === 0) return 1;
  return Math.max(0, 1 - diff / total);
}

/**
 * Letter spacings to try: none, and when the browser's glyph advances make the
 * text wider or narrower than the image's, the spacing that closes the gap
 * (spread over the gaps between characters) and its neighbours.
 * @param {number} targetWidth ink width in the image
 * @param {number} drawnWidth ink width drawn with no spacing
 * @param {number} characters
 */
export function spacings(targetWidth, drawnWidth, characters) {
  const gaps = characters - 1;
  if (gaps < 1 || targetWidth === drawnWidth) return [0];
  const round = (/** @type {number} */ v) => Math.round(v * 100) / 100;
  const exact = (targetWidth - drawnWidth) / gaps;
  const step = 0.5 / gaps;
  return [...new Set([0, round(exact - step), round(exact), round(exact + step)])];
}

/**
 * A harness element for content declarations: the element the page will get,
 * so a <button>'s own layout (and any UA style left unreset) shows.
 * @param {Declaration[]} content
 * @param {string} text
 * @param {'span' | 'button'} element
 */
function variant(content, text, element) {
  const name = `v${variantCounter++}`;
  return { html: `<${element} class="${name}">${htmlText(text, 'utf-8')}</${element}>`, css: cssRule(name, content) };
}
let variantCounter = 0;

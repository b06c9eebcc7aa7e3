/**
 * Fitting and proving a replacement in the browser: the text is first drawn
 * with no offset to see where Chromium puts its ink, then moved so its ink
 * lands where the image's is (text-indent, and line-height, which moves a
 * line's glyphs by half its change), and every variant near that spot is
 * drawn; the one most similar to the image is the replacement, with its score.
 */
import { contentDeclarations, cssRule, htmlText } from './markup.js';
import { coverageOf, inkBox, pictureSimilarity } from './pixels.js';

/**
 * @typedef {import('./browser.js').RenderSession} RenderSession
 * @typedef {import('./plan.js').Plan} Plan
 * @typedef {import('./plan.js').InkPlan} InkPlan
 * @typedef {import('./pixels.js').Rgb} Rgb
 * @typedef {import('./estimate.js').StyleEstimate} StyleEstimate
 * @typedef {import('./markup.js').Declaration} Declaration
 * @typedef {import('./markup.js').Placement} Placement
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
 * @param {RenderSession} session
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
  /** @type {{ style: StyleEstimate, content: Declaration[] }[]} */
  const tries = [];
  for (const [i, style] of plan.estimates.entries()) {
    const at = inkBox(coverageOf(first.variants[i], plan.bg, plan.fg).coverage);
    if (!target || !at) continue;
    const dx = target.left - at.left;
    const dy = target.top - at.top;
    for (const letterSpacing of spacings(target.right - target.left, at.right - at.left, [...style.text].length)) {
      for (let oy = -1; oy <= 1; oy++) {
        for (let ox = -1; ox <= 1; ox++) {
          /** @type {Placement} */
          const placement = { indent: dx + ox, lineHeight: style.size + 2 * (dy + oy), letterSpacing };
          if (placement.lineHeight < 0) continue;
          tries.push({ style, content: contentDeclarations(plan, width, height, style, placement, element) });
        }
      }
    }
  }
  if (!tries.length) return { score: 0, content: measure[0], text: plan.estimates[0]?.text ?? '' };
  const second = await session.render(image, width, height, tries.map((t) => variant(t.content, t.style.text, element)), background);
  // Spacers and rules returned above: the plan is text or a symbol, drawn on its own background.
  const scores = second.variants.map((v) => pictureSimilarity(second.original.data, v.data, 4, plan.bg));
  let best = 0;
  for (let i = 1; i < tries.length; i++) if (scores[i] > scores[best]) best = i;
  return { score: scores[best], content: tries[best].content, text: tries[best].style.text };
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

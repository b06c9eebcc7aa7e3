/**
 * Images of words, symbols, spacers and rules rebuilt as real text and CSS,
 * as the 1997 CSS1 study proposed for its "solutions" banner: each candidate
 * is classified from its pixels, its text taken from ALT/TITLE (or read by
 * OCR when they do not match), its style estimated by rendering, and the
 * replacement drawn in Chromium and compared with the image. Only what is
 * proven similar, and smaller than the image and its request, is replaced;
 * every other image stays, with the reason in the summary.
 *
 * This module is the pass and its orchestration; the candidate search is in
 * src/text-images/candidates.js, the replacements' markup, cost and page
 * rewriting in src/text-images/apply.js.
 */
import { browser, prune } from '../images/options.js';
import { boolean, fraction, oneOf } from '../options/kinds.js';
import { option } from '../options/table.js';
import { NoBrowserError } from '../browser/no-browser-error.js';
import { RenderSessions } from '../text-images/render.js';
import { findBrowsers, howToGetABrowser } from '../browser/discovery.js';
import { fitReplacement } from '../text-images/verify.js';
import { findCandidates, MIME, whyNot } from '../text-images/candidates.js';
import { applyReplacements, roundScore } from '../text-images/apply.js';
import { limiter } from '../util/ordered.js';

/**
 * @typedef {import('../text-images/plan.js').Plan} Plan
 * @typedef {import('../text-images/verify.js').Fitted} Fitted
 * @typedef {import('../text-images/candidates.js').Shape} Shape
 * @typedef {import('../text-images/apply.js').Replacement} Replacement
 */

const options = {
  /** Calibrated on the fixtures (docs/text-images.md, "The similarity measure"). */
  textImagesThreshold: option(fraction, 0.8, 'the similarity (0-1) a text image\'s replacement must reach against the image in Chromium'),
  textImagesCss: option(oneOf(/** @type {const} */ (['inline', 'file'])), 'inline', 'where text-image replacements\' CSS goes: a <style> in each page (inline), or one shared pagediet.css (file)'),
  ocr: option(boolean, true, 'read text images whose ALT and TITLE are missing or wrong with OCR (tesseract.js)'),
  browser,
  prune,
};

/** Ink similarity a rendered ALT (or OCR) text needs to count as what the image shows (in the estimate, before Chromium). */
const TEXT_AGREEMENT = 0.6;
/** OCR results below this confidence are not used. */
const MIN_OCR_CONFIDENCE = 30;
/**
 * Candidates checked at once per thread: enough for each screenshot to draw many fits' renders, few enough that the
 * pictures they hold between renders stay small (all 5,700 fits of a 10,000-page site at once held 100 MB more).
 */
const CHECKS_PER_THREAD = 32;
/**
 * The pass's two counts, each over every candidate: reading them (pixels, ALT, OCR, style), then checking their replacements in Chromium.
 * @type {Record<'reading' | 'checking', import('../build/progress.js').ProgressStep>}
 */
const STEPS = { reading: { n: 1, of: 2, label: 'reading' }, checking: { n: 2, of: 2, label: 'checking' } };

/** @type {import('../build/pass.js').Pass<typeof options>} */
export default {
  name: 'text-images',
  description: 'images of text, symbols, spacers and rules rebuilt as HTML and CSS, checked in Chromium',
  options,
  async run(site, ctx) {
    const threshold = ctx.options.textImagesThreshold;
    const candidates = await findCandidates(site, ctx);
    if (!candidates.length) return;
    const choice = { browser: ctx.options.browser };
    /** @param {string} why */
    const keepAll = (why) => {
      ctx.warn('', 'no-browser', `every text image kept: ${why}`);
      for (const c of candidates) ctx.decide({ file: c.image.path, action: 'skipped', reason: 'no browser to prove the replacement' });
    };
    if (!findBrowsers(choice).length) {
      keepAll(`no browser found to prove replacements: ${howToGetABrowser()}`);
      return;
    }
    /** @type {Replacement[]} */
    const accepted = [];
    // Fitting in Chromium runs in a page per thread, the renders of many fits drawn together; decisions are then taken in the candidates' order.
    const sessions = new RenderSessions(ctx.threads, ctx.browser);
    const checking = limiter(CHECKS_PER_THREAD * ctx.threads);
    const count = (/** @type {'reading' | 'checking'} */ step, /** @type {number} */ done) => /** @type {import('../build/progress.js').ProgressCount} */ ({ done, total: candidates.length, step: STEPS[step] });
    try {
      // The plans (classification, style, OCR) all at once: the pool runs one per core.
      let planned = 0;
      const plans = await Promise.all(candidates.map(async ({ image, bytes, shapes }) => {
        const texts = [...new Set([...shapes.values()].flatMap((shape) => [shape.attrs.alt, shape.attrs.title]).filter((t) => t !== undefined))];
        const plan = /** @type {Plan | { status: 'failed', reason: string }} */ (await ctx.compute('textImagePlan', bytes, { texts, ocr: ctx.options.ocr, agreement: TEXT_AGREEMENT, minOcrConfidence: MIN_OCR_CONFIDENCE }));
        ctx.progress(image.path, count('reading', ++planned));
        return plan;
      }));
      // Each candidate counts when its checking ends, whatever the outcome (many are kept before Chromium), so that the count reaches its total.
      let fitted = 0;
      // A candidate's check starts when a place is free, not before: 10,000 checks begun at once held 70 MB waiting.
      const outcomes = await Promise.all(candidates.map(({ image, bytes, uses, shapes, type }, i) => checking(async () => {
        const plan = plans[i];
        if (plan.status === 'failed' || plan.status === 'kept') return { plan };
        for (const use of uses) {
          const unfit = whyNot(plan, use);
          if (unfit) return { plan, unfit };
        }
        /** @type {Map<string, Fitted>} by element and size */
        const fits = new Map();
        for (const shape of shapes.values()) {
          const size = fitKey(shape);
          if (fits.has(size) || shape.width === 0 || shape.height === 0) continue;
          const element = shape.name === 'input' ? 'button' : 'span';
          /** @type {Fitted} */
          let fit;
          try {
            const key = { fit: 'textImageFit', image: bytes, plan, width: shape.width, height: shape.height, ...(element === 'button' ? { element } : {}) };
            fit = await ctx.cached(key, () => fitReplacement(sessions, plan, { bytes, mime: MIME[type] }, shape.width, shape.height, element));
          } catch (error) {
            if (error instanceof NoBrowserError) return { plan, noBrowser: error };
            // A fit Chromium could not draw (a timeout on an overloaded machine): this image stays, the others go on.
            const reason = `Chromium could not draw its replacement: ${String(/** @type {Error} */ (error)?.message ?? error).split('\n')[0]}`;
            ctx.warn(image.path, 'render-failed', `kept as it is: ${reason}`);
            return { plan, unfit: reason };
          }
          fits.set(size, fit);
        }
        return { plan, fits };
      })).map((checked, i) => checked.finally(() => ctx.progress(candidates[i].image.path, count('checking', ++fitted)))));
      const noBrowser = outcomes.find((o) => 'noBrowser' in o)?.noBrowser;
      if (noBrowser) {
        keepAll(noBrowser.message);
        return;
      }
      for (const [i, { image, bytes, uses, shapes }] of candidates.entries()) {
        const { plan, unfit, fits } = /** @type {{ plan: Plan | { status: 'failed', reason: string }, unfit?: string, fits?: Map<string, Fitted> }} */ (outcomes[i]);
        if (plan.status === 'failed') {
          // The job failed or was stopped (time limit, out of memory): the image stays.
          ctx.warn(image.path, 'job-failed', `kept as it is: ${plan.reason}`);
          ctx.decide({ file: image.path, action: 'kept', reason: plan.reason });
          continue;
        }
        if (plan.status === 'kept') {
          if (plan.undrawable) ctx.warn(image.path, 'text-undrawable', `kept as it is: ${plan.reason}`);
          ctx.decide({ file: image.path, action: 'kept', reason: plan.reason, ...(plan.score === undefined ? {} : { score: roundScore(plan.score) }) });
          continue;
        }
        if (!fits) {
          ctx.decide({ file: image.path, action: 'kept', reason: /** @type {string} */ (unfit) });
          continue;
        }
        const worst = Math.min(1, ...[...fits.values()].map((f) => f.score));
        if (worst < threshold) {
          ctx.decide({ file: image.path, action: 'kept', reason: `similarity ${worst.toFixed(2)} below ${threshold}`, score: roundScore(worst) });
          continue;
        }
        /** @type {Replacement['content']} */
        const content = new Map();
        for (const shape of shapes.values()) {
          const fit = fits.get(fitKey(shape));
          content.set(shape, { declarations: fit ? fit.content : [], text: fit ? fit.text : '' });
        }
        accepted.push({ image, uses, content, plan, score: worst, bytes: bytes.length });
      }
    } finally {
      await sessions.close();
    }
    await applyReplacements(site, ctx, accepted);
  },
};

/**
 * Shapes of one image that share a fitted replacement: the same element and size.
 * @param {Shape} shape
 */
function fitKey(shape) {
  return `${shape.name} ${shape.width}x${shape.height}`;
}

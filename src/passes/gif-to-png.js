/**
 * Static GIFs become PNG, pixel for pixel: the 1997 study's conversion with
 * today's encoders. Every PNG is decoded again (by sharp and by pagediet's
 * own decoder) and compared with the GIF's RGBA; a GIF whose PNG is not
 * smaller stays a GIF, as the study found for the tiniest images.
 *
 * With --lossy, a lossy WebP (libwebp at the target quality) is tried too and
 * written instead when it reaches the quality floor and is smaller than the
 * lossless result: what an image pipeline with sharp's WebP defaults does,
 * but with a floor.
 */
import { readGifStructure } from '../images/gif/structure.js';
import { NAMED_IN_SCRIPT, addReplacement, eachImageResult, imageJobOptions, imagesOfType, pointAtReplacements, recordResult } from '../images/replace.js';
import { IMAGE_JOB_OPTIONS, prune } from '../images/options.js';
import { namedInScripts } from '../site/script-names.js';

const options = { ...IMAGE_JOB_OPTIONS, prune };

/** @type {import('../build/pass.js').Pass<typeof options>} */
export default {
  name: 'gif-to-png',
  description: 'static GIFs to smaller, pixel-identical PNGs',
  options,
  async run(site, ctx) {
    const referenced = site.referencedPaths();
    const gifs = (await imagesOfType(site, 'gif')).filter((file) => {
      if (referenced.has(file.path)) return true;
      ctx.decide({ file: file.path, action: 'skipped', reason: 'no page or style sheet refers to it' });
      return false;
    });
    const { zopfliIterations, maxPixels, lossy, quality } = imageJobOptions(ctx.options);
    // Lossless jobs keep their options (and so their cache keys) whatever the quality setting.
    const jobOptions = { zopfliIterations, maxPixels, ...(lossy ? { lossy, quality } : {}) };
    /** @type {(import('../images/replace.js').Replacement & { detail: string })[]} */
    const replaced = [];
    const named = await namedInScripts(site, gifs.map((file) => file.path));
    /** Static GIFs a script names: they keep their names. @type {Set<string>} */
    const kept = new Set();
    await eachImageResult(site, ctx, gifs, 'gifToPng', jobOptions, (bytes, file) => {
      try {
        if (readGifStructure(bytes).frames.length !== 1) return false;
        if (!named.has(file.path)) return null;
        kept.add(file.path);
        return false;
      } catch (error) {
        return /** @type {Error} */ (error).message;
      }
    }, async (file, result) => {
      recordResult(ctx, file, result);
      if (result.status === 'converted') replaced.push({ ...(await addReplacement(site, file, result.bytes, result.format === 'webp' ? 'webp' : 'png')), detail: result.detail });
    });
    for (const file of gifs) if (kept.has(file.path)) ctx.decide({ file: file.path, action: 'skipped', reason: NAMED_IN_SCRIPT });
    await pointAtReplacements(site, ctx, replaced, ctx.options);
    for (const { original, target, size, detail } of replaced) {
      ctx.decide({ file: original.path, action: 'changed', reason: `→ ${target}: ${detail}, ${original.outputSize} → ${size} B` });
    }
  },
};

/**
 * Animated GIFs become APNG or animated WebP, what the 1997 study's MNG was
 * meant to be. Frames are composited as browsers do (disposal methods,
 * transparency, delays under 2/100 s shown as 10), each candidate is decoded
 * again and must give the same frames, delays and loop count (a WebP may
 * store a repeated frame once, shown longer), and the smaller proven one
 * wins; the GIF stays when it is smaller still. A candidate ruled out (not
 * proven, or not writable) is named in the decision with why.
 */
import { readGifStructure } from '../images/gif/structure.js';
import { NAMED_IN_SCRIPT, addReplacement, eachImageResult, imageJobOptions, imagesOfType, offerImage, pointAtReplacements, recordResult } from '../images/replace.js';
import { namedInScripts } from '../site/script-names.js';
import { IMAGE_JOB_OPTIONS, imageTimeBudget, prune } from '../images/options.js';
import { boolean, oneOf } from '../options/kinds.js';
import { option } from '../options/table.js';

const options = {
  animations: option(oneOf(/** @type {const} */ (['auto', 'apng', 'webp'])), 'auto', 'what animated GIFs may become: apng, webp, or auto (the smaller of the two)'),
  picture: option(boolean, false, 'keep animated GIFs in <img> as the fallback of a <picture> with the new format'),
  ...IMAGE_JOB_OPTIONS,
  imageTimeBudget,
  prune,
};

/** @type {import('../build/pass.js').Pass<typeof options>} */
export default {
  name: 'animations',
  description: 'animated GIFs to APNG or animated WebP, frame for frame',
  options,
  async run(site, ctx) {
    const format = ctx.options.animations;
    const referenced = site.referencedPaths();
    const gifs = (await imagesOfType(site, 'gif')).filter((file) => referenced.has(file.path));
    /** @type {(import('../images/replace.js').Replacement & { result: Pick<import('../images/jobs/animation.js').ConvertedAnimation, 'format' | 'detail' | 'candidates' | 'ruledOut'> })[]} */
    const replaced = [];
    const named = await namedInScripts(site, gifs.map((file) => file.path));
    /** Animated GIFs a script names: they keep their names. @type {Set<string>} */
    const kept = new Set();
    await eachImageResult(site, ctx, gifs, 'animation', { format, ...imageJobOptions(ctx.options), imageTimeBudget: ctx.options.imageTimeBudget }, (bytes, file) => {
      try {
        if (readGifStructure(bytes).frames.length < 2) return false;
        if (!named.has(file.path)) return null;
        kept.add(file.path);
        return false;
      } catch {
        return false; // gif-to-png has warned
      }
    }, async (file, result) => {
      recordResult(ctx, file, result);
      if (result.status !== 'converted') return;
      const { format, detail, candidates, ruledOut } = /** @type {import('../images/jobs/animation.js').ConvertedAnimation} */ (result);
      replaced.push({ ...(await addReplacement(site, file, result.bytes, format === 'webp' ? 'webp' : 'png')), result: { format, detail, candidates, ruledOut } });
    });
    for (const file of gifs) if (kept.has(file.path)) ctx.decide({ file: file.path, action: 'skipped', reason: NAMED_IN_SCRIPT });
    if (ctx.options.picture) {
      for (const replacement of replaced) await offerImage(site, ctx, replacement, replacement.result.format === 'webp' ? 'image/webp' : 'image/apng');
    } else {
      await pointAtReplacements(site, ctx, replaced, ctx.options);
    }
    for (const { original, target, size, result } of replaced) {
      const sizes = Object.entries(result.candidates ?? {}).map(([k, v]) => `${k} ${v} B`).join(', ');
      // A candidate not proven (or not tried) is named with why: a smaller one lost for that reason, not for its size.
      const ruledOut = (result.ruledOut ?? []).map((why) => `; ${why}`).join('');
      ctx.decide({ file: original.path, action: 'changed', reason: `→ ${target}: ${result.detail}, ${original.outputSize} → ${size} B (${sizes})${ruledOut}` });
    }
  },
};

/**
 * Animated GIFs become APNG or animated WebP, what the 1997 study's MNG was
 * meant to be. Frames are composited as browsers do (disposal methods,
 * transparency, delays under 2/100 s shown as 10), each candidate is decoded
 * again and must give the same frames, delays and loop count, and the
 * smaller proven one wins; the GIF stays when it is smaller still.
 */
import { readGifStructure } from '../images/gif.js';
import { UserError } from '../errors.js';
import { IMAGE_DEFAULTS, computeAll, imageJobOptions, imagesOfType, offerImage, recordResult, replaceImages } from '../images/replace.js';

const FORMATS = ['auto', 'apng', 'webp'];

/** @type {import('../pipeline.js').Pass} */
export default {
  name: 'animations',
  description: 'animated GIFs to APNG or animated WebP, frame for frame',
  options: {
    animations: { type: 'string', default: 'auto', description: 'apng, webp, or auto (the smaller of the two)' },
    picture: { type: 'boolean', default: false, description: 'wrap each <img> in <picture> with the new format as a <source> and the GIF as the fallback' },
    lossy: { type: 'boolean', default: false, description: 'allow lossy WebP (frames and timing are still checked, pixels not)' },
    quality: { type: 'string', default: '65-80', description: 'lossy quality, MIN-MAX (WebP uses MAX)' },
    zopfliIterations: { type: 'number', default: IMAGE_DEFAULTS.zopfliIterations, description: 'zopfli iterations for APNG image data' },
  },
  async run(site, ctx) {
    const format = ctx.options.animations ?? 'auto';
    if (!FORMATS.includes(format)) throw new UserError(`animations must be one of ${FORMATS.join(', ')}, not '${format}'`);
    const referenced = site.referencedPaths();
    const gifs = (await imagesOfType(site, 'gif')).filter(({ file, bytes }) => {
      if (!referenced.has(file.path)) return false;
      try {
        return readGifStructure(bytes).frames.length > 1;
      } catch {
        return false; // gif-to-png has warned
      }
    });
    const results = await computeAll(ctx, 'animation', gifs, { format, ...imageJobOptions(ctx) });
    const converted = [];
    for (const [i, { file }] of gifs.entries()) {
      const result = results[i];
      recordResult(ctx, file, result);
      if (result.status === 'converted') converted.push({ file, result, extension: result.format === 'webp' ? 'webp' : 'png' });
    }
    const targets = ctx.options.picture
      ? await offerEach(site, ctx, converted)
      : await replaceImages(site, ctx, converted.map(({ file, result, extension }) => ({ original: file, bytes: result.bytes, extension })));
    for (const [i, { file, result }] of converted.entries()) {
      const sizes = Object.entries(result.candidates ?? {}).map(([k, v]) => `${k} ${v} B`).join(', ');
      ctx.decide({ file: file.path, action: 'changed', reason: `→ ${targets[i]}: ${result.detail}, ${file.outputSize} → ${result.bytes.length} B (${sizes})` });
    }
  },
};

/**
 * Each converted animation offered in <picture> beside its GIF, one after the other.
 * @param {import('../site/site.js').Site} site
 * @param {import('../pipeline.js').PassContext} ctx
 * @param {{ file: import('../site/site.js').SiteFile, result: import('../images/jobs.js').Converted, extension: string }[]} converted
 */
async function offerEach(site, ctx, converted) {
  const targets = [];
  for (const { file, result, extension } of converted) {
    targets.push(await offerImage(site, ctx, file, result.bytes, extension, result.format === 'webp' ? 'image/webp' : 'image/apng'));
  }
  return targets;
}

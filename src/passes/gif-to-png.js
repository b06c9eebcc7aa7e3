/**
 * Static GIFs become PNG, pixel for pixel: the 1997 study's conversion with
 * today's encoders. Every PNG is decoded again (by sharp and by pagediet's
 * own decoder) and compared with the GIF's RGBA; a GIF whose PNG is not
 * smaller stays a GIF, as the study found for the tiniest images.
 */
import { readGifStructure } from '../images/gif.js';
import { IMAGE_DEFAULTS, computeAll, imageJobOptions, imagesOfType, recordResult, replaceImages } from '../images/replace.js';

/** @type {import('../pipeline.js').Pass} */
export default {
  name: 'gif-to-png',
  description: 'static GIFs to smaller, pixel-identical PNGs',
  options: {
    zopfliIterations: { type: 'number', default: IMAGE_DEFAULTS.zopfliIterations, description: 'zopfli iterations for the image data; 0 uses zlib only (faster, a few percent larger)' },
    maxPixels: { type: 'number', default: IMAGE_DEFAULTS.maxPixels, description: 'images with more pixels are left as they are (decompression bombs)' },
    prune: { type: 'boolean', default: false, description: 'remove a GIF from the output once every reference points at its PNG' },
  },
  async run(site, ctx) {
    const referenced = site.referencesByTarget();
    const gifs = (await imagesOfType(site, 'gif')).filter(({ file, bytes }) => {
      if (!referenced.has(file.path)) {
        ctx.decide({ file: file.path, action: 'skipped', reason: 'no page or style sheet refers to it' });
        return false;
      }
      try {
        return readGifStructure(bytes).frames.length === 1;
      } catch (error) {
        ctx.warn(file.path, 'image-unreadable', `left as it is: ${/** @type {Error} */ (error).message}`);
        return false;
      }
    });
    const { zopfliIterations, maxPixels } = imageJobOptions(ctx);
    const results = await computeAll(ctx, 'gifToPng', gifs, { zopfliIterations, maxPixels });
    const converted = [];
    for (const [i, { file }] of gifs.entries()) {
      recordResult(ctx, file, results[i]);
      if (results[i].status === 'converted') converted.push({ file, result: results[i] });
    }
    const targets = await replaceImages(site, ctx, converted.map(({ file, result }) => ({ original: file, bytes: result.bytes, extension: 'png' })));
    for (const [i, { file, result }] of converted.entries()) {
      ctx.decide({ file: file.path, action: 'changed', reason: `→ ${targets[i]}: ${result.detail}, ${file.outputSize} → ${result.bytes.length} B` });
    }
  },
};

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
import { readGifStructure } from '../images/gif.js';
import { IMAGE_DEFAULTS, computeAll, imageJobOptions, imagesOfType, recordResult, replaceImages } from '../images/replace.js';

/** @type {import('../pipeline.js').Pass} */
export default {
  name: 'gif-to-png',
  description: 'static GIFs to smaller, pixel-identical PNGs',
  options: {
    zopfliIterations: { type: 'number', default: IMAGE_DEFAULTS.zopfliIterations, description: 'zopfli iterations on top of libdeflate for the image data; 0 (the default): libdeflate only, about 0.8% larger and many times faster' },
    maxPixels: { type: 'number', default: IMAGE_DEFAULTS.maxPixels, description: 'images with more pixels are left as they are (decompression bombs)' },
    prune: { type: 'boolean', default: false, description: 'remove a GIF from the output once every reference points at its PNG' },
    lossy: { type: 'boolean', default: false, description: 'also try lossy WebP at the target quality; written when it reaches the floor and is smaller than the PNG (or the GIF)' },
    quality: { type: 'list', default: IMAGE_DEFAULTS.quality, description: 'with lossy: floor and target quality, 0-100 on libimagequant\'s scale (default 65-80)' },
  },
  async run(site, ctx) {
    const referenced = site.referencedPaths();
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
    const { zopfliIterations, maxPixels, lossy, quality } = imageJobOptions(ctx);
    // Lossless jobs keep their options (and so their cache keys) whatever the quality setting.
    const results = await computeAll(ctx, 'gifToPng', gifs, { zopfliIterations, maxPixels, ...(lossy ? { lossy, quality } : {}) });
    const converted = [];
    for (const [i, { file }] of gifs.entries()) {
      recordResult(ctx, file, results[i]);
      if (results[i].status === 'converted') converted.push({ file, result: results[i] });
    }
    const targets = await replaceImages(site, ctx, converted.map(({ file, result }) => ({ original: file, bytes: result.bytes, extension: result.format === 'webp' ? 'webp' : 'png' })));
    for (const [i, { file, result }] of converted.entries()) {
      ctx.decide({ file: file.path, action: 'changed', reason: `→ ${targets[i]}: ${result.detail}, ${file.outputSize} → ${result.bytes.length} B` });
    }
  },
};

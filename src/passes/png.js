/**
 * Existing PNGs, losslessly smaller: re-encoded from their pixels (colour
 * type, bit depth, palette order, filters, zopfli), with the chunks that
 * change rendering kept (gAMA, cHRM, sRGB, iCCP) and the rest dropped; kept
 * as they are when not smaller. With --lossy, truecolour PNGs may become a
 * palette chosen by libimagequant, when they reach the quality floor.
 * PNGs that an earlier pass wrote are already as small as it can make them.
 */
import { IMAGE_DEFAULTS, eachImageResult, imageJobOptions, imagesOfType, recordResult } from '../images/replace.js';

/** @type {import('../pipeline.js').Pass} */
export default {
  name: 'png',
  description: 'PNGs re-encoded losslessly, smaller or left as they are',
  options: {
    zopfliIterations: { type: 'number', default: IMAGE_DEFAULTS.zopfliIterations, description: 'zopfli iterations on top of libdeflate for the image data; 0 (the default): libdeflate only' },
    lossy: { type: 'boolean', default: false, description: 'allow a quantized palette for truecolour PNGs' },
    quality: { type: 'string', default: '65-80', description: 'lossy quality, MIN-MAX: the floor a result must reach, and the target' },
  },
  async run(site, ctx) {
    const pngs = (await imagesOfType(site, 'png')).filter((file) => file.absPath !== null);
    await eachImageResult(site, ctx, pngs, 'recompressPng', imageJobOptions(ctx), null, async (file, result) => {
      recordResult(ctx, file, result);
      if (result.status !== 'converted') return;
      const before = file.outputSize;
      await site.write(file.path, result.bytes);
      ctx.touched(file.path, before, result.bytes.length);
      ctx.decide({ file: file.path, action: 'changed', reason: `${result.detail}, ${before} → ${result.bytes.length} B` });
    });
  },
};

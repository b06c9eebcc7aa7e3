/**
 * Existing PNGs, losslessly smaller: re-encoded from their pixels (colour
 * type, bit depth, palette order, filters, zopfli), with the chunks that
 * change rendering kept (gAMA, cHRM, sRGB, iCCP) and the rest dropped; kept
 * as they are when not smaller. With --lossy, truecolour PNGs may become a
 * palette chosen by libimagequant, when they reach the quality floor.
 * PNGs that an earlier pass wrote are already as small as it can make them.
 */
import { eachImageResult, imageJobOptions, imagesOfType, recordResult } from '../images/replace.js';
import { IMAGE_JOB_OPTIONS } from '../images/options.js';

const options = IMAGE_JOB_OPTIONS;

/** @type {import('../build/pass.js').Pass<typeof options>} */
export default {
  name: 'png',
  description: 'PNGs re-encoded losslessly, smaller or left as they are',
  options,
  async run(site, ctx) {
    const pngs = (await imagesOfType(site, 'png')).filter((file) => file.absPath !== null);
    await eachImageResult(site, ctx, pngs, 'recompressPng', imageJobOptions(ctx.options), null, async (file, result) => {
      recordResult(ctx, file, result);
      if (result.status !== 'converted') return;
      const before = file.outputSize;
      await site.write(file.path, result.bytes);
      ctx.touched(file.path, before, result.bytes.length);
      ctx.decide({ file: file.path, action: 'changed', reason: `${result.detail}, ${before} → ${result.bytes.length} B` });
    });
  },
};

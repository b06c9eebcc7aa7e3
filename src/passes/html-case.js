/**
 * Lower-case tag and attribute names: the 1997 study found compressed HTML
 * smaller when every tag is lower case (deflate ratio .27 against .35 with
 * mixed case), since the compressor then finds the same words again. Only
 * the bytes of the names change (positions from the parser); values, text,
 * comments, scripts and everything else keep their bytes, in the page's own
 * charset, BOM included. SVG and MathML names are case-sensitive and stay;
 * XML documents are reported and left alone. The gzip size of each changed
 * page, before and after, is measured and reported (and brotli's with
 * htmlCaseBrotli: src/markup/compressed-sizes.js says why not by default).
 */
import { ENCODINGS } from '../markup/compressed-sizes.js';
import { boolean } from '../options/kinds.js';
import { option } from '../options/table.js';
import { forEachOrdered } from '../util/ordered.js';

/** @typedef {import('../markup/compressed-sizes.js').CompressedSizes} CompressedSizes */

const options = {
  htmlCaseBrotli: option(boolean, false, 'html-case also measures each changed page\'s brotli (quality 11) size before and after: 50 to 100 ms of CPU per 42 KB page'),
};

/** @type {import('../build/pass.js').Pass<typeof options>} */
export default {
  name: 'html-case',
  description: 'tag and attribute names to lower case, nothing else touched',
  options,
  async run(site, ctx) {
    const brotli = ctx.options.htmlCaseBrotli;
    const pages = site.pages;
    let done = 0;
    // Pages are lowered and measured in the worker pool, a window at a time, and written in page order.
    await forEachOrdered(pages, async (page) => {
      const bytes = await site.read(page.path);
      /** @type {import('../markup/html-case-job.js').LowerPageOptions} */
      const jobOptions = { charset: /** @type {string} */ (page.charset), bomLength: page.bomLength, mime: page.mime, brotli };
      const result = /** @type {import('../markup/html-case-job.js').LowerPageResult | { status: 'failed', reason: string }} */ (await ctx.compute('lowerPage', bytes, jobOptions));
      return { size: bytes.length, result };
    }, async ({ size, result }, page) => {
      ctx.progress(page.path, { done: ++done, total: pages.length });
      if ('status' in result) {
        ctx.warn(page.path, 'job-failed', `kept as it is: ${result.reason}`);
        ctx.decide({ file: page.path, action: 'kept', reason: result.reason });
        return;
      }
      if (result.outcome === 'xml') {
        ctx.warn(page.path, 'html-case-xml', `${result.xml}: names are case-sensitive in XML, left as they are`);
        ctx.decide({ file: page.path, action: 'skipped', reason: `XML document (${result.xml})` });
        return;
      }
      if (result.outcome === 'kept') {
        ctx.decide({ file: page.path, action: 'kept', reason: 'names already lower case' });
        return;
      }
      const { lowered, changed, sizes: [before, then] } = result;
      const after = Buffer.from(lowered.buffer, lowered.byteOffset, lowered.byteLength);
      await site.writeSameReferences(page.path, after);
      ctx.touched(page.path, size, after.length);
      const measured = ENCODINGS.filter((name) => before[name] !== undefined);
      for (const name of measured) ctx.measure({ file: page.path, name, before: /** @type {number} */ (before[name]), after: /** @type {number} */ (then[name]) });
      const figures = measured.map((name) => `${name} ${before[name]} → ${then[name]} B`).join(', ');
      ctx.decide({ file: page.path, action: 'changed', reason: `${changed} names lowered; ${figures}` });
    });
  },
};

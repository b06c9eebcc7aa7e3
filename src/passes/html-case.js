/**
 * Lower-case tag and attribute names: the 1997 study found compressed HTML
 * smaller when every tag is lower case (deflate ratio .27 against .35 with
 * mixed case), since the compressor then finds the same words again. Only
 * the bytes of the names change (positions from the parser); values, text,
 * comments, scripts and everything else keep their bytes, in the page's own
 * charset, BOM included. SVG and MathML names are case-sensitive and stay;
 * XML documents are reported and left alone. The compressed sizes of each
 * changed page, before and after, are measured and reported.
 */
import { DocumentView } from '../site/document-view.js';
import { nameRanges, recase, xmlReason } from '../markup/names.js';
import { ENCODINGS, compressedSizes } from '../markup/compressed-sizes.js';

/** @type {import('../pipeline.js').Pass} */
export default {
  name: 'html-case',
  description: 'tag and attribute names to lower case, nothing else touched',
  options: {},
  async run(site, ctx) {
    const pages = site.pages;
    for (const [i, page] of pages.entries()) {
      ctx.progress(page.path, { done: i, total: pages.length });
      const bytes = await site.read(page.path);
      const view = new DocumentView(bytes, /** @type {string} */ (page.charset), page.bomLength);
      const xml = xmlReason(view, page.mime);
      if (xml) {
        ctx.warn(page.path, 'html-case-xml', `${xml}: names are case-sensitive in XML, left as they are`);
        ctx.decide({ file: page.path, action: 'skipped', reason: `XML document (${xml})` });
        continue;
      }
      const { bytes: lowered, changed } = recase(view, nameRanges(view), 'lower');
      if (changed === 0) {
        ctx.decide({ file: page.path, action: 'kept', reason: 'names already lower case' });
        continue;
      }
      const [before, after] = await Promise.all([compressedSizes(bytes), compressedSizes(lowered)]);
      await site.write(page.path, lowered);
      ctx.touched(page.path, bytes.length, lowered.length);
      for (const name of ENCODINGS) ctx.measure({ file: page.path, name, before: before[name], after: after[name] });
      const figures = ENCODINGS.map((name) => `${name} ${before[name]} → ${after[name]} B`).join(', ');
      ctx.decide({ file: page.path, action: 'changed', reason: `${changed} names lowered; ${figures}` });
    }
  },
};

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
import { ENCODINGS } from '../markup/compressed-sizes.js';

/** @type {import('../pipeline.js').Pass} */
export default {
  name: 'html-case',
  description: 'tag and attribute names to lower case, nothing else touched',
  options: {},
  async run(site, ctx) {
    const pages = site.pages;
    /** @type {{ path: string, bytes: Buffer, lowered: Buffer, changed: number }[]} */
    const lowered = [];
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
      const recased = recase(view, nameRanges(view), 'lower');
      if (recased.changed === 0) {
        ctx.decide({ file: page.path, action: 'kept', reason: 'names already lower case' });
        continue;
      }
      lowered.push({ path: page.path, bytes, lowered: recased.bytes, changed: recased.changed });
    }
    // Measured in the worker pool, all pages at once, and cached by the bytes: a second build measures nothing.
    const sizes = await Promise.all(lowered.map(({ bytes, lowered: after }) => Promise.all([
      /** @type {Promise<import('../markup/compressed-sizes.js').CompressedSizes>} */ (ctx.compute('measureCompressed', bytes, {})),
      /** @type {Promise<import('../markup/compressed-sizes.js').CompressedSizes>} */ (ctx.compute('measureCompressed', after, {})),
    ])));
    for (const [i, { path: pagePath, bytes, lowered: after, changed }] of lowered.entries()) {
      const [before, then] = sizes[i];
      await site.write(pagePath, after);
      ctx.touched(pagePath, bytes.length, after.length);
      for (const name of ENCODINGS) ctx.measure({ file: pagePath, name, before: before[name], after: then[name] });
      const figures = ENCODINGS.map((name) => `${name} ${before[name]} → ${then[name]} B`).join(', ');
      ctx.decide({ file: pagePath, action: 'changed', reason: `${changed} names lowered; ${figures}` });
    }
  },
};

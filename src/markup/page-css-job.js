/**
 * The worker-pool job of the css pass (src/build/jobs.js) for one page: its
 * <style> blocks and style attributes minified (page-css.js). A pure
 * function of the page's bytes, charset and type.
 */
import { DocumentView } from '../site/document-view.js';
import { applyEdits } from '../site/edits.js';
import { xmlReason } from './names.js';
import { pageCssEdits } from './page-css.js';

/**
 * @typedef {object} PageCssOptions
 * @property {string} charset the page's charset (src/site/charset.js)
 * @property {number} bomLength bytes of its byte-order mark
 * @property {string} mime the type it is served as
 *
 * @typedef {{ what: string, code: string, reason: string }} KeptCss
 * @typedef {{ outcome: 'xml', xml: string }
 *   | { outcome: 'unchanged', kept: KeptCss[] }
 *   | { outcome: 'minified', kept: KeptCss[], blocks: number, attributes: number, output: Uint8Array }} PageCssJobResult
 */

/**
 * @param {{ bytes: Uint8Array, options: PageCssOptions }} input
 * @returns {PageCssJobResult}
 */
export function pageCss({ bytes: input, options }) {
  const bytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  const view = new DocumentView(bytes, options.charset, options.bomLength);
  // In XML, <style> holds markup (CDATA sections, entities), not raw text: not read as HTML here.
  const xml = xmlReason(view, options.mime);
  if (xml) return { outcome: 'xml', xml };
  const found = pageCssEdits(view);
  if (found.edits.length === 0) return { outcome: 'unchanged', kept: found.kept };
  return { outcome: 'minified', kept: found.kept, blocks: found.blocks, attributes: found.attributes, output: applyEdits(bytes, found.edits) };
}

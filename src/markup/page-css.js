/**
 * The CSS inside a page: <style> blocks and style attributes, minified with
 * csso as byte-range edits of the page. Each piece is decoded with the page's
 * charset (and, in attributes, its character references), minified, escaped
 * again for where it goes, and kept as it was unless the result is smaller
 * and safe there.
 */
import { decodeHTMLAttribute } from 'entities';
import { attributeValueRange, innerRange } from '../site/html-refs.js';
import { decodeExact, encodeExact } from './codec.js';
import { minifyCss } from './minify-css.js';
import { isElement, isHtmlElement, location, nodes, parsePage } from '../site/html-tree.js';
import { HASH_SOURCE, cspDirectives, isCspMeta } from '../site/csp.js';

/**
 * @typedef {import('../site/document-view.js').DocumentView} DocumentView
 * @typedef {import('../site/edits.js').Edit} Edit
 *
 * @typedef {object} PageCssResult
 * @property {Edit[]} edits
 * @property {number} blocks <style> blocks made smaller
 * @property {number} attributes style attributes made smaller
 * @property {{ what: string, code: string, reason: string }[]} kept pieces csso could not handle, for warnings
 */

/**
 * @param {DocumentView} view
 * @param {{ shortcut?: boolean }} [options] shortcut: false parses the page even when styleBlocksMinimal() holds (tests)
 * @returns {PageCssResult}
 */
export function pageCssEdits(view, { shortcut = true } = {}) {
  /** @type {PageCssResult} */
  const result = { edits: [], blocks: 0, attributes: 0, kept: [] };
  // A page with no <style> and no style attribute has no CSS of its own: nothing to parse for.
  if (!/<style|style[\t\n\f\r ]*=/i.test(view.text)) return result;
  if (shortcut && styleBlocksMinimal(view)) return result;
  const root = parsePage(view);
  // A Content-Security-Policy that allows inline styles by hash would refuse a changed one.
  if (/content-security-policy/i.test(view.text) && [...nodes(root)].some(stylesByHash)) {
    result.kept.push({ what: 'every <style> and style attribute', code: 'css-csp-hash', reason: 'its Content-Security-Policy allows styles by hash: a changed one would not apply' });
    return result;
  }
  for (const node of nodes(root)) {
    if (!isElement(node)) continue;
    const el = node;
    const line = /** @type {{ startLine?: number } | null} */ (location(el))?.startLine ?? 0;
    if (el.name === 'style' && isHtmlElement(el) && isCssType(el.attribs.type)) {
      const range = innerRange(el);
      const edit = range && styleBlockEdit(view, range.start, range.end);
      if (edit && 'reason' in edit) result.kept.push({ what: `<style> at line ${line}`, code: edit.code, reason: edit.reason });
      else if (edit) {
        result.edits.push(edit);
        result.blocks++;
      }
    }
    if ('style' in el.attribs) {
      const range = attributeValueRange(view, el, 'style');
      const edit = range && styleAttributeEdit(view, range.start, range.end);
      if (edit && 'reason' in edit) result.kept.push({ what: `style attribute of <${el.name}> at line ${line}`, code: edit.code, reason: edit.reason });
      else if (edit) {
        result.edits.push(edit);
        result.attributes++;
      }
    }
  }
  return result;
}

/**
 * Whether a node is a `<meta http-equiv=Content-Security-Policy>` with a hash
 * source ('sha256-…') that applies to styles: in style-src, style-src-elem,
 * style-src-attr, or default-src when the policy has no style-src.
 * @param {import('domhandler').AnyNode} node
 */
function stylesByHash(node) {
  if (!isElement(node) || !isCspMeta(node)) return false;
  const directives = cspDirectives(node.attribs.content ?? '');
  const hashed = (/** @type {string | undefined} */ sources) => sources !== undefined && HASH_SOURCE.test(sources);
  const styles = ['style-src', 'style-src-elem', 'style-src-attr'].filter((d) => directives.has(d));
  return styles.length ? styles.some((d) => hashed(directives.get(d))) : hashed(directives.get('default-src'));
}

/**
 * Whether the page has no style attribute and every <style> block in it is
 * as small as csso makes it, found without parsing the page (a parse costs
 * 10 to 20 ms a page; a page text-images wrote has one block, already
 * minified). Every `<style` followed by what ends a tag name is taken as a
 * block start, up to the first `</style` that would end it: a real <style>
 * element is always among these ranges when no start tag holds a quote (a
 * quoted value may hide a `>`), and a range that is no element (in a
 * comment, a script, SVG) only makes the answer false more often. False
 * sends the page to the parser, which decides as always.
 * @param {DocumentView} view
 */
export function styleBlocksMinimal(view) {
  const text = view.text;
  if (/style[\t\n\f\r ]*=/i.test(text)) return false;
  const starts = /<style(?=[\t\n\f\r />])/gi;
  for (let match = starts.exec(text); match; match = starts.exec(text)) {
    const tagEnd = text.indexOf('>', match.index);
    if (tagEnd < 0) return false;
    if (/["']/.test(text.slice(match.index, tagEnd))) return false;
    const close = /<\/style(?=[\t\n\f\r />])/gi;
    close.lastIndex = tagEnd + 1;
    const end = close.exec(text)?.index ?? text.length;
    if (styleBlockEdit(view, tagEnd + 1, end) !== null) return false;
  }
  return true;
}

/** A <style> whose type is CSS (none, empty or text/css). @param {string | undefined} type */
function isCssType(type) {
  return type === undefined || /^[\t\n\f\r ]*(text\/css)?[\t\n\f\r ]*$/i.test(type);
}

/**
 * @param {DocumentView} view
 * @param {number} start view offset of the block's text
 * @param {number} end
 * @returns {Edit | { code: string, reason: string } | null} null: nothing to gain
 */
function styleBlockEdit(view, start, end) {
  const text = decodeRange(view, start, end);
  if (text === null) return undecodable(view);
  if (!text.trim()) return null;
  const minified = minifyCss(text, 'stylesheet');
  if (!minified.ok) return minified;
  // csso decodes escapes in strings: "<\/style>" would come out as the end of the block.
  if (/<\/style/i.test(minified.css)) return { code: 'css-would-lose', reason: 'csso would write "</style" inside the block' };
  return smallerEdit(view, start, end, minified.css);
}

/**
 * @param {DocumentView} view
 * @param {number} start view offset of the value, inside its quotes if any
 * @param {number} end
 * @returns {Edit | { code: string, reason: string } | null}
 */
function styleAttributeEdit(view, start, end) {
  const raw = decodeRange(view, start, end);
  if (raw === null) return undecodable(view);
  const text = decodeHTMLAttribute(raw);
  if (!text.trim()) return null;
  const minified = minifyCss(text, 'declarationList');
  if (!minified.ok) return minified;
  if (!minified.css) return null; // nothing csso keeps: not ours to remove the attribute
  const quote = view.text[start - 1] === '"' || view.text[start - 1] === "'" ? view.text[start - 1] : '';
  let value = minified.css.replace(/&/g, '&amp;');
  if (quote === '"') value = value.replace(/"/g, '&quot;');
  else if (quote === "'") value = value.replace(/'/g, '&#39;');
  // An unquoted value ends at whitespace and cannot hold quotes, '=', '<', '>' or '`': quote it when it would.
  else if (/[\t\n\f\r "'=<>`]/.test(value)) value = `"${value.replace(/"/g, '&quot;')}"`;
  return smallerEdit(view, start, end, value);
}

/**
 * The text of a view range in the page's charset, or null when it does not
 * round-trip to the same bytes.
 * @param {DocumentView} view
 * @param {number} start
 * @param {number} end
 */
function decodeRange(view, start, end) {
  return decodeExact(view.bytes.subarray(view.byteOffset(start), view.byteOffset(end)), view.charset);
}

/** @param {DocumentView} view */
function undecodable(view) {
  return { code: 'css-charset', reason: `its bytes do not round-trip as ${view.charset} (invalid bytes, or a multi-byte charset pagediet does not re-encode)` };
}

/**
 * An edit replacing a view range with text, when the text's bytes are fewer.
 * @param {DocumentView} view
 * @param {number} start
 * @param {number} end
 * @param {string} text
 * @returns {Edit | { code: string, reason: string } | null}
 */
function smallerEdit(view, start, end, text) {
  const bytes = encodeExact(text, view.charset);
  if (!bytes) return { code: 'css-charset', reason: `the minified CSS has characters ${view.charset} cannot hold` };
  const from = view.byteOffset(start);
  const to = view.byteOffset(end);
  return bytes.length < to - from ? { start: from, end: to, bytes } : null;
}

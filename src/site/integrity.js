/**
 * Subresource Integrity kept true. A `<link>` or `<script>` with an
 * `integrity` attribute loads its file only if the file's bytes hash to a
 * value the attribute lists; a pass that minifies the style sheet, or
 * points its url()s at renamed images, would otherwise make the page lose
 * it. So the pipeline notes, before any pass, which integrity values hold
 * for the input's files (integrityPins), and after each pass sets every
 * such attribute whose file has changed to the hashes of the file's new
 * bytes, with the same algorithms (refreshIntegrity). A value that did not
 * hold on the input (a stale hash: the browser refuses the file) and a file
 * on another host are left as they are: the page must keep what it did.
 */
import crypto from 'node:crypto';
import { DocumentView } from './document-view.js';
import { attributeValueRange } from './html-refs.js';
import { isElement, isHtmlElement, nodes, parsePage } from './html-tree.js';
import { applyEdits } from './edits.js';
import { sha256 } from './byte-store.js';

/**
 * @typedef {import('./site.js').Site} Site
 * @typedef {import('./site.js').SiteFile} SiteFile
 *
 * @typedef {object} IntegrityPins
 * @property {Map<string, { version: string, elements: PinnedElement[], targets: Map<string, string> }>} pages the pages with an
 *   integrity attribute on an element that loads a file of the site: which of their bytes were last looked at, the
 *   elements found in them, and which bytes of each file they pin
 * @property {Set<string>} held the values ('sha384-…') that held for the input's bytes of the file they name
 * @property {{ page: string, target: string }[]} stale elements none of whose values held on the input
 *
 * @typedef {object} PinnedElement
 * @property {string} target the site file it loads
 * @property {string[]} values the attribute's hash values, without options ('sha384-…')
 * @property {number} start byte range of the attribute's value in the page
 * @property {number} end
 */

/** The algorithms of Subresource Integrity, by their prefix. */
const ALGORITHMS = /** @type {const} */ ({ sha256: 'sha256', sha384: 'sha384', sha512: 'sha512' });

/**
 * The elements of a page that load a file of the site with an integrity attribute.
 * @param {SiteFile} page
 * @param {Buffer} bytes the page's current bytes
 * @returns {PinnedElement[]}
 */
function pinnedElements(page, bytes) {
  // Most pages have none: the tree is built only for a page that says "integrity".
  if (!/integrity/i.test(bytes.toString('latin1'))) return [];
  const view = new DocumentView(bytes, page.charset ?? 'utf-8', page.bomLength ?? 0);
  /** @type {Map<number, string>} targets of the page's references that resolve, by the byte offset of their URL */
  const targets = new Map();
  for (const ref of page.references) if (ref.status === 'ok' && ref.target) targets.set(ref.start, ref.target);
  /** @type {PinnedElement[]} */
  const found = [];
  for (const node of nodes(parsePage(view))) {
    if (!isElement(node) || !isHtmlElement(node) || !(node.name === 'script' || node.name === 'link') || !('integrity' in node.attribs)) continue;
    const url = attributeValueRange(view, node, node.name === 'script' ? 'src' : 'href');
    const target = url ? targets.get(view.byteOffset(url.start)) : undefined;
    const range = attributeValueRange(view, node, 'integrity');
    if (!target || !range) continue;
    const values = node.attribs.integrity.split(/[\t\n\f\r ]+/).map((token) => token.split('?')[0]).filter((v) => hashAlgorithm(v));
    if (values.length) found.push({ target, values, start: view.byteOffset(range.start), end: view.byteOffset(range.end) });
  }
  return found;
}

/**
 * The algorithm of an integrity value ('sha384-…'), or null for a value browsers ignore.
 * @param {string} value
 * @returns {string | null}
 */
function hashAlgorithm(value) {
  const dash = value.indexOf('-');
  const name = dash > 0 ? value.slice(0, dash).toLowerCase() : '';
  return Object.hasOwn(ALGORITHMS, name) ? ALGORITHMS[/** @type {keyof typeof ALGORITHMS} */ (name)] : null;
}

/**
 * An integrity value of bytes.
 * @param {string} algorithm
 * @param {Uint8Array} bytes
 */
function integrityValue(algorithm, bytes) {
  return `${algorithm}-${crypto.createHash(algorithm).update(bytes).digest('base64')}`;
}

/**
 * Whether an integrity value names these bytes (the base64 compared as browsers do, with or without padding).
 * @param {string} value
 * @param {Uint8Array} bytes
 */
function names(value, bytes) {
  const algorithm = /** @type {string} */ (hashAlgorithm(value));
  const strip = (/** @type {string} */ s) => s.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/');
  return strip(value.slice(value.indexOf('-') + 1)) === strip(integrityValue(algorithm, bytes).slice(algorithm.length + 1));
}

/**
 * The integrity values that hold on the input, before any pass.
 * @param {Site} site
 * @returns {Promise<IntegrityPins>}
 */
export async function integrityPins(site) {
  /** @type {IntegrityPins} */
  const pins = { pages: new Map(), held: new Set(), stale: [] };
  for (const page of site.pages) {
    const bytes = await site.read(page.path).catch(() => null);
    if (!bytes) continue;
    const elements = pinnedElements(page, bytes);
    if (elements.length === 0) continue;
    pins.pages.set(page.path, { version: version(page), elements, targets: targetVersions(site, elements) });
    for (const { target, values } of elements) {
      const file = await site.read(target).catch(() => null);
      if (!file) continue;
      const held = values.filter((value) => names(value, file));
      for (const value of held) pins.held.add(value);
      if (held.length === 0) pins.stale.push({ page: page.path, target });
    }
  }
  return pins;
}

/**
 * Which bytes a file has now: the key of what a pass wrote, '' for the input's.
 * @param {SiteFile} file
 */
const version = (file) => file.outputKey ?? '';

/**
 * Which bytes the files pinned by a page's elements have now.
 * @param {Site} site
 * @param {PinnedElement[]} elements
 */
const targetVersions = (site, elements) => new Map(elements.map(({ target }) => {
  const file = site.files.get(target);
  return [target, file ? version(file) : ''];
}));

/**
 * Sets each integrity attribute that held on the input, and whose file has
 * changed since, to the hashes of the file's bytes now. A page is looked at
 * again only when it, or a file it pins, has changed since the last call.
 * @param {Site} site
 * @param {IntegrityPins} pins
 * @returns {Promise<string[]>} the pages whose attributes were set
 */
export async function refreshIntegrity(site, pins) {
  /** @type {string[]} */
  const refreshed = [];
  for (const [sitePath, seen] of pins.pages) {
    const page = site.files.get(sitePath);
    if (!page || page.role !== 'page') {
      pins.pages.delete(sitePath);
      continue;
    }
    const targetsChanged = [...seen.targets].some(([target, was]) => {
      const file = site.files.get(target);
      return !file || version(file) !== was;
    });
    if (!targetsChanged && version(page) === seen.version) continue;
    const bytes = await site.read(sitePath).catch(() => null);
    if (!bytes) continue;
    if (version(page) !== seen.version) seen.elements = pinnedElements(page, bytes);
    /** @type {import('./edits.js').Edit[]} */
    const edits = [];
    for (const { target, values, start, end } of seen.elements) {
      if (!values.some((v) => pins.held.has(v))) continue;
      const file = await site.read(target).catch(() => null);
      if (!file || values.some((v) => names(v, file))) continue;
      const algorithms = [...new Set(values.filter((v) => pins.held.has(v)).map((v) => /** @type {string} */ (hashAlgorithm(v))))];
      const renewed = algorithms.map((a) => integrityValue(a, file));
      for (const v of renewed) pins.held.add(v);
      edits.push({ start, end, bytes: Buffer.from(renewed.join(' ')) });
    }
    if (edits.length) {
      // Base64 and the algorithm's name are ASCII, the same bytes in every charset a page may have.
      await site.write(sitePath, applyEdits(bytes, edits));
      seen.elements = pinnedElements(page, await site.read(sitePath));
      refreshed.push(sitePath);
    }
    seen.version = version(page);
    seen.targets = targetVersions(site, seen.elements);
  }
  return refreshed;
}

/**
 * The input files a page loads with an integrity attribute whose bytes a pass
 * of this build has changed. A browser that cached such a file under its name
 * would refuse it once the attribute names the new bytes: hash-names gives
 * these files new names even when their names carry a fingerprint already.
 * @param {Site} site
 * @returns {Promise<Set<string>>}
 */
export async function changedPinnedFiles(site) {
  /** @type {Set<string>} */
  const changed = new Set();
  /** @type {Set<string>} files compared with their input already: many pages pin the same style sheet */
  const compared = new Set();
  for (const page of site.pages) {
    const bytes = await site.read(page.path).catch(() => null);
    if (!bytes) continue;
    for (const { target } of pinnedElements(page, bytes)) {
      const file = site.files.get(target);
      if (!file || !file.absPath || !file.outputKey || compared.has(target)) continue;
      compared.add(target);
      // A style sheet's input is in the byte store already, under its SHA-256.
      const inputKey = file.sourceKey ?? await site.readInput(file).then((input) => (input ? sha256(input) : null));
      if (inputKey && inputKey !== file.outputKey) changed.add(target);
    }
  }
  return changed;
}

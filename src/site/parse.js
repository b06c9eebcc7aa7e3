/**
 * Parsing the site's pages and style sheets: reading their bytes, finding
 * their references (from the cache when these bytes were parsed before) and
 * setting them, resolved, on the file.
 */
import { DocumentView } from './document-view.js';
import { detectCssCharset, detectHtmlCharset } from './charset.js';
import { findInPage } from './page-findings.js';
import { stylesheetReferences } from './css-refs.js';
import { ReferenceTable, StringTable, isFoundTable, packFound } from './reference-table.js';
import { referenceOf, resolverOf } from './reference-graph.js';
import { readInputOrWhy, warnUnreadable } from './input.js';
import { forEachOrdered } from '../util/ordered.js';
import { POOL_WORTHWHILE_BYTES } from '../util/pool.js';
import { cacheKey } from '../util/cache.js';
import { codeFingerprint } from '../util/code-fingerprint.js';
import { notHtmlReason, unterminatedComment } from './checks.js';

/**
 * @typedef {import('./site.js').Site} Site
 * @typedef {import('./site.js').SiteFile} SiteFile
 * @typedef {import('./page-findings.js').PageFindings} PageFindings
 *
 * @typedef {{ charset: string, bomLength: number, found: PageFindings }} ParsedPage what parsing a page's bytes finds:
 *   detectHtmlCharset's charset and byte order mark, and findInPage's findings (without repairs)
 * @typedef {null | { unreadable: string } | { bytes: Buffer, first: boolean, notHtml?: string, page?: ParsedPage }} ReadForParse
 *   what readForParse found for applyParse: null when the file has no bytes to read
 */

/**
 * Parses every page, then every style sheet (by extension or because a page links it as one).
 * @param {Site} site
 */
export async function parseAll(site) {
  // Pages are read and parsed a window at a time, and taken in page order; in the worker pool when there is one
  // and the pages are worth its start (a worker takes about as long to start as parsing 1 MB of HTML).
  const pages = site.pages;
  site.pagesWorthThePool = pages.reduce((sum, page) => sum + page.size, 0) >= POOL_WORTHWHILE_BYTES;
  await forEachOrdered(pages, (file) => readForParse(site, file, site.pagesWorthThePool), async (read, file) => applyParse(site, file, read));
  /** @type {Map<string, string>} style sheet → charset of the first document that uses it */
  const cssFallback = new Map();
  const queue = [...site.files.values()].filter((f) => f.role === 'stylesheet');
  const noteStylesheets = (/** @type {SiteFile} */ from) => {
    const table = from.referenceTable;
    if (!table) return;
    for (let i = 0; i < table.length; i++) {
      const kind = table.kindAt(i);
      const targetPath = table.targetAt(i);
      if ((kind !== 'stylesheet' && kind !== 'css-import') || !targetPath || table.statusAt(i) !== 'ok') continue;
      const target = /** @type {SiteFile} */ (site.files.get(targetPath));
      if (!cssFallback.has(target.path) && from.charset) cssFallback.set(target.path, from.charset);
      if (target.role === 'asset') {
        target.role = 'stylesheet';
        queue.push(target);
      }
    }
  };
  for (const page of site.pages) noteStylesheets(page);
  const parsed = new Set();
  while (queue.length) {
    const css = /** @type {SiteFile} */ (queue.shift());
    if (parsed.has(css.path)) continue;
    parsed.add(css.path);
    await site.parse(css, cssFallback.get(css.path));
    noteStylesheets(css);
  }
}

/**
 * The half of a parse that may run for many pages at once: reading the
 * bytes and, for a page, finding its references. What it finds changes the
 * site model only in applyParse, in the order the pages are taken.
 * @param {Site} site
 * @param {SiteFile} file
 * @param {boolean} [elsewhere] a page is parsed by options.findInPage (when given)
 * @returns {Promise<ReadForParse>}
 */
export async function readForParse(site, file, elsewhere = false) {
  // The first parse of an input file also checks it (checks.js); parses after a pass wrote it do not.
  let first = false;
  /** @type {Buffer} */
  let bytes;
  let key = site.contentKey(file);
  if (key) {
    bytes = await site.bytes.get(key);
  } else {
    const read = await readInputOrWhy(site, file);
    if (!read || 'unreadable' in read) return read;
    key = file.sourceKey = site.bytes.put(read);
    bytes = read;
    first = true;
  }
  if (file.role !== 'page') return { bytes, first };
  const { charset, bomLength } = detectHtmlCharset(bytes);
  const notHtml = first ? notHtmlReason(bytes, charset) : null;
  if (notHtml) return { bytes, first, notHtml };
  return { bytes, first, page: { charset, bomLength, found: await pageFindings(site, bytes, key, charset, bomLength, first, elsewhere) } };
}

/**
 * What a read found, set on the file: its charset, its references resolved, and warnings.
 * @param {Site} site
 * @param {SiteFile} file
 * @param {ReadForParse} read
 * @param {string} [cssFallbackCharset]
 * @param {import('./resolve.js').SiteIndex} [index] the files its references resolve against (default: the site's now)
 */
export function applyParse(site, file, read, cssFallbackCharset, index = site.index) {
  if (!read) return;
  if ('unreadable' in read) {
    warnUnreadable(site, file, read.unreadable);
    return;
  }
  const { bytes, first } = read;
  if (read.notHtml) {
    // Parsed as HTML, its bytes could be edited as markup: it is kept out of the page passes.
    file.role = 'asset';
    site.warn(file.path, 'not-html', `named as a page but is ${read.notHtml}: not parsed as HTML, copied as it is`);
    return;
  }
  if (read.page) {
    applyPage(site, file, read.page, index);
  } else if (file.role === 'stylesheet') {
    const { charset, bomLength } = detectCssCharset(bytes, cssFallbackCharset);
    file.charset = charset;
    file.bomLength = bomLength;
    const view = new DocumentView(bytes, charset, bomLength);
    const open = first ? unterminatedComment(view.text) : -1;
    if (open >= 0) {
      const at = view.byteOffset(open);
      site.warn(file.path, 'css-unterminated-comment', `a comment opened at byte ${at} is never closed: browsers read the rest of the file (${bytes.length - at} bytes) as a comment`);
    }
    const resolve = resolverOf(site, file, index);
    file.references = stylesheetReferences(view).map((found) => referenceOf(file, found, resolve(found.kind, found.url)));
  }
}

/**
 * @param {Site} site
 * @param {SiteFile} file a page
 * @param {ParsedPage} page what parsing its bytes found
 * @param {import('./resolve.js').SiteIndex} [index]
 */
export function applyPage(site, file, { charset, bomLength, found }, index = site.index) {
  file.charset = charset;
  file.bomLength = bomLength;
  if (found.repairs) site.warn(file.path, 'markup-repaired', found.repairs);
  file.baseHref = found.baseHref;
  file.headEnd = found.headEnd;
  const strings = (file.strings ??= new StringTable());
  file.referenceTable = found.references.length ? ReferenceTable.fromFound(found.references, strings, file.path, resolverOf(site, file, index)) : null;
}

/**
 * What parsing a page finds, from the cache when these bytes were parsed before.
 * @param {Site} site
 * @param {Buffer} bytes
 * @param {string} key their key in the byte store (their SHA-256)
 * @param {string} charset
 * @param {number} bomLength
 * @param {boolean} withRepairs whether to look for markup the parser had to repair (the first parse of an input page)
 * @param {boolean} [elsewhere] parsed by options.findInPage (when given), not in this thread
 * @returns {Promise<PageFindings>}
 */
export async function pageFindings(site, bytes, key, charset, bomLength, withRepairs, elsewhere = false) {
  const cache = site.options.cache;
  const entry = cache ? await findingsKey(key, charset, bomLength, withRepairs) : '';
  const known = cache ? await knownFindings(site, entry) : undefined;
  if (known) return known;
  const options = { charset, bomLength, withRepairs };
  const findings = elsewhere && site.options.findInPage ? await site.options.findInPage(bytes, options) : findInPage({ bytes, options });
  await cache?.set(entry, findings);
  return findings;
}

/**
 * What parsing a page's bytes found in an earlier build, if the cache has it.
 * @param {Site} site
 * @param {string} entry its cache key (findingsKey)
 * @returns {Promise<PageFindings | undefined>}
 */
export async function knownFindings(site, entry) {
  const known = /** @type {PageFindings | undefined} */ (await site.options.cache?.get(entry));
  return known && isFoundTable(known.references) && known.headEnd !== undefined ? known : undefined;
}

/**
 * The cache key of what parsing a page's bytes finds: on this module's code, which imports findInPage.
 * @param {string} key the page's bytes' key in the byte store (their SHA-256)
 * @param {string} charset
 * @param {number} bomLength
 * @param {boolean} withRepairs
 */
export async function findingsKey(key, charset, bomLength, withRepairs) {
  return cacheKey('page-findings', { bytes: key, charset, bomLength, withRepairs }, [], await codeFingerprint(new URL(import.meta.url)));
}

/**
 * Keeps what a parse of a page's new bytes would find, where the site model
 * knew it without a parse: a build that replays the pass from the cache
 * (pass-memo.js) writes these bytes again and finds them there.
 * @param {Site} site
 * @param {SiteFile} file its output set to the new bytes
 */
export async function rememberFindings(site, file) {
  const cache = site.options.cache;
  if (!cache || file.role !== 'page') return;
  const references = packFound(file.references.map(({ source, status, target, via, note, ...found }) => found));
  /** @type {PageFindings} */
  const findings = { references, baseHref: file.baseHref ?? null, headEnd: file.headEnd, repairs: null };
  await cache.set(await findingsKey(/** @type {string} */ (site.contentKey(file)), /** @type {string} */ (file.charset), file.bomLength, false), findings);
}

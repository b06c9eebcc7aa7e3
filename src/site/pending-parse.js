/**
 * Parsing what replayed passes wrote (pass-memo.js), later: each page and
 * style sheet against the files there were when it was written, a page from
 * the cache's findings when it has them.
 */
import path from 'node:path';
import { applyPage, applyParse, findingsKey, knownFindings, readForParse } from './parse.js';
import { forEachOrdered } from '../util/ordered.js';

/**
 * @typedef {import('./site.js').Site} Site
 * @typedef {import('./site.js').SiteFile} SiteFile
 * @typedef {import('./parse.js').ParsedPage} ParsedPage
 * @typedef {import('./parse.js').ReadForParse} ReadForParse
 *
 * @typedef {object} PendingParse a replayed write not parsed yet
 * @property {number} epoch how many indexChanges there were when it was written
 * @property {string} [charset] a page's charset (with bomLength, its parse then needs only its findings from the cache);
 *   a style sheet's fallback charset
 * @property {number} [bomLength]
 */

/**
 * Changes a file's role as a replayed pass did; a file still unparsed is
 * parsed first, in the role it was written in.
 * @param {Site} site
 * @param {string} sitePath
 * @param {SiteFile['role']} role
 */
export async function setRoleReplayed(site, sitePath, role) {
  const file = site.get(sitePath);
  const pending = site.unparsed.get(file);
  if (pending) {
    await parsePendingFile(site, file, pending, indexAt(site, pending.epoch));
    site.unparsed.delete(file);
  }
  file.role = role;
}

/**
 * Parses the pages and style sheets replayed passes wrote (writeReplayed),
 * each against the files there were when it was written: before a pass
 * runs, and before the build's summary. A page is taken from the cache's
 * findings when it has them, without its bytes.
 * @param {Site} site
 */
export async function parsePending(site) {
  if (!site.unparsed.size) return;
  const waiting = [...site.unparsed].filter(([file]) => site.files.get(file.path) === file);
  /** @type {Map<number, import('./resolve.js').SiteIndex>} */
  const views = new Map();
  const viewAt = (/** @type {number} */ epoch) => {
    const view = views.get(epoch) ?? indexAt(site, epoch);
    views.set(epoch, view);
    return view;
  };
  const pages = waiting.filter(([file]) => file.role === 'page');
  await forEachOrdered(pages, ([file, pending]) => readPending(site, file, pending), async (read, [file, pending]) => {
    if (read && 'found' in read) applyPage(site, file, read, viewAt(pending.epoch));
    else applyParse(site, file, read, undefined, viewAt(pending.epoch));
  });
  for (const [file, pending] of waiting) if (file.role === 'stylesheet') await parsePendingFile(site, file, pending, viewAt(pending.epoch));
  site.unparsed.clear();
  site.indexChanges = [];
}

/**
 * @param {Site} site
 * @param {SiteFile} file
 * @param {PendingParse} pending
 * @param {import('./resolve.js').SiteIndex} index
 */
async function parsePendingFile(site, file, pending, index) {
  const read = await readPending(site, file, pending);
  if (read && 'found' in read) applyPage(site, file, read, index);
  else applyParse(site, file, read, pending.charset, index);
}

/**
 * @param {Site} site
 * @param {SiteFile} file
 * @param {PendingParse} pending
 * @returns {Promise<ParsedPage | ReadForParse>}
 */
async function readPending(site, file, { charset, bomLength }) {
  if (file.role === 'page' && charset !== undefined && bomLength !== undefined) {
    const found = site.options.cache && await knownFindings(site, await findingsKey(/** @type {string} */ (file.outputKey), charset, bomLength, false));
    if (found) return { charset, bomLength, found };
  }
  return readForParse(site, file, site.pagesWorthThePool);
}

/**
 * The files there were when indexChanges had `epoch` entries: the site's
 * files now, with the changes since undone.
 * @param {Site} site
 * @param {number} epoch
 * @returns {import('./resolve.js').SiteIndex}
 */
function indexAt(site, epoch) {
  if (epoch >= site.indexChanges.length) return site.index;
  /** @type {Map<string, boolean>} each path changed since, and whether it was a file then */
  const was = new Map();
  for (let i = epoch; i < site.indexChanges.length; i++) {
    const { path: sitePath, op } = site.indexChanges[i];
    if (!was.has(sitePath)) was.set(sitePath, op === 'remove');
  }
  /** @type {Map<string, Map<string, boolean>>} the same by directory and name */
  const byDirectory = new Map();
  for (const [sitePath, wasFile] of was) {
    const dir = path.posix.dirname(sitePath) === '.' ? '' : path.posix.dirname(sitePath);
    const names = byDirectory.get(dir) ?? byDirectory.set(dir, new Map()).get(dir);
    /** @type {Map<string, boolean>} */ (names).set(path.posix.basename(sitePath), wasFile);
  }
  return {
    ...site.index,
    isFile: (p) => was.get(p) ?? site.files.has(p),
    filesIn: (dir) => {
      const changed = byDirectory.get(dir);
      if (!changed) return site.index.filesIn(dir);
      const names = [...site.index.filesIn(dir)].filter((name) => !changed.has(name));
      for (const [name, wasFile] of changed) if (wasFile) names.push(name);
      return names;
    },
  };
}

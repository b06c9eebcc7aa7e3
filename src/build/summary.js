/**
 * The build summary: what `build --json` prints and `optimize()` returns.
 */
import { readFileSync } from 'node:fs';
import { pageWeights } from '../site/page-requests.js';
import { REFERENCE_KINDS } from '../site/reference-kinds.js';
import { messageCode } from './messages.js';
import { SIDECAR_EXTENSIONS } from '../compress/encodings.js';

/**
 * Up to this many references, the summary lists every one; a larger site's
 * summary lists those that do not resolve (missing, escaping, invalid,
 * ambiguous), which its warnings point at, up to this many again. Every
 * reference of 10,000 pages would be millions of entries (docs/scaling.md).
 */
export const SUMMARY_REFERENCE_LIMIT = 20_000;

export const VERSION = /** @type {{ version: string }} */ (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))).version;

/**
 * @typedef {object} BuildSummary
 * @property {string} tool
 * @property {string} version
 * @property {string} input
 * @property {string} output
 * @property {{ files: number, pages: number, stylesheets: number, assets: number, bytesIn: number, bytesOut: number, bytesSaved: number, references: number, requestsBefore: number, requestsAfter: number, pageBytesBefore: number, pageBytesAfter: number, errors: number, warnings: number, info: number }} totals
 *   pageBytes: what the pages load, each page with its subresources once; bytesIn/bytesOut: every file of the input and the output;
 *   errors, warnings, info: the messages of each severity
 * @property {OutputFiles} outputFiles the output on disk, by whether pages load it
 * @property {{ path: string, charset: string | null, bytes: number, references: number, requestsBefore: number, requestsAfter: number, loadBytesBefore: number, loadBytesAfter: number }[]} pages
 * @property {{ path: string, type: string, role: string, bytesIn: number, bytesOut: number }[]} assets
 * @property {Record<string, number>} referencesByKind
 * @property {Record<string, number>} referencesByStatus
 * @property {{ source: string, kind: string, url: string, start: number, end: number, status: string, target?: string, via?: string, note?: string }[]} references
 *   every reference of the site, or, when there are more than SUMMARY_REFERENCE_LIMIT, the first
 *   SUMMARY_REFERENCE_LIMIT of those that do not resolve (referencesByStatus counts them all)
 * @property {'all' | 'unresolved'} referencesListed which references `references` lists
 * @property {import('./pipeline.js').PassReport[]} passes
 * @property {import('../site/site.js').Warning[]} warnings every message of the build, errors, warnings and information
 * @property {string[]} artifacts files written beside the site that are not part of it: the server configs
 * @property {{ written: number, copied: number, removed: number }} written
 * @property {{ jobs: number, cacheHits: number, passesReplayed: number }} work expensive jobs run, results taken from the
 *   cache instead, and passes replayed from the cache because they met the same site as in an earlier build
 * @property {number} ms
 */

/**
 * @typedef {{ files: number, bytes: number }} FileCount
 *
 * @typedef {object} OutputFiles the output on disk: what visitors' browsers load, and what no page loads
 * @property {FileCount} loaded pages and every file a page loads (with style sheets and frames), with their precompressed copies
 * @property {FileCount & { paths: string[] }} notLoaded files no page loads: originals kept beside their replacements,
 *   downloads only links lead to, files nothing refers to; `paths` lists them (SUMMARY_REFERENCE_LIMIT at most)
 * @property {FileCount & { paths: string[] }} configs the server configs written beside the site (not served)
 */

/**
 * @param {import('../site/site.js').Site} site
 * @param {{ input: string, output: string, inputBytes: number, requestsBefore: Record<string, number>, pageBytesBefore?: Record<string, number>, passes: import('./pipeline.js').PassReport[], written: { written: number, copied: number, removed: number }, work?: { jobs: number, cacheHits: number, passesReplayed: number }, ms: number }} run
 * @returns {BuildSummary}
 */
export function summarize(site, run) {
  const files = [...site.files.values()];
  let total = 0;
  /** @type {import('../site/site.js').Reference[] | null} every reference, until there are too many */
  let all = [];
  /** @type {import('../site/site.js').Reference[]} the first unresolved references, listed when not every one is */
  const unresolved = [];
  /** @type {import('../site/site.js').Reference[]} unresolved references a page loads (or that escape, are invalid or ambiguous): one warning each */
  const warned = [];
  /** Links (not loaded with the page) to files not in the site: one warning for all. */
  const links = { count: 0, sources: new Set() };
  /** @type {Record<string, number>} */
  const byKind = {};
  /** @type {Record<string, number>} */
  const byStatus = {};
  /** @type {Set<string>} pages and the files they load */
  const loaded = new Set();
  // One document's references at a time: the site model keeps them compactly (reference-table.js).
  for (const file of files) {
    if (file.role === 'page') loaded.add(file.path);
    for (const r of file.references) {
      total++;
      if (r.target && REFERENCE_KINDS[r.kind].subresource) loaded.add(r.target);
      byKind[r.kind] = (byKind[r.kind] ?? 0) + 1;
      byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
      if (Object.hasOwn(UNRESOLVED, r.status)) {
        if (unresolved.length < SUMMARY_REFERENCE_LIMIT) unresolved.push(r);
        if (REFERENCE_KINDS[r.kind].subresource || r.status !== 'missing') warned.push(r);
        else {
          links.count++;
          links.sources.add(r.source);
        }
      }
      if (all && total > SUMMARY_REFERENCE_LIMIT) all = null;
      all?.push(r);
    }
  }
  const listed = all ?? unresolved;
  const { requests: requestsAfter, bytes: pageBytesAfter } = pageWeights(site);
  const pageBytesBefore = run.pageBytesBefore ?? pageBytesAfter;
  const bytesOut = files.reduce((sum, f) => sum + f.outputSize, 0);
  const sum = (/** @type {Record<string, number>} */ m) => Object.values(m).reduce((a, b) => a + b, 0);
  const warnings = [...site.warnings, ...referenceWarnings(warned, links)];
  const severities = { error: 0, warning: 0, info: 0 };
  for (const w of warnings) severities[w.severity]++;
  return {
    tool: 'pagediet',
    version: VERSION,
    input: run.input,
    output: run.output,
    totals: {
      files: files.length,
      pages: files.filter((f) => f.role === 'page').length,
      stylesheets: files.filter((f) => f.role === 'stylesheet').length,
      assets: files.filter((f) => f.role === 'asset').length,
      bytesIn: run.inputBytes,
      bytesOut,
      bytesSaved: run.inputBytes - bytesOut,
      references: total,
      requestsBefore: sum(run.requestsBefore),
      requestsAfter: sum(requestsAfter),
      pageBytesBefore: sum(pageBytesBefore),
      pageBytesAfter: sum(pageBytesAfter),
      errors: severities.error,
      warnings: severities.warning,
      info: severities.info,
    },
    outputFiles: outputFiles(site, loaded),
    pages: site.pages.map((p) => ({
      path: p.path,
      charset: p.charset,
      bytes: p.outputSize,
      references: p.referenceTable?.length ?? 0,
      requestsBefore: run.requestsBefore[p.path] ?? 0,
      requestsAfter: requestsAfter[p.path] ?? 0,
      loadBytesBefore: pageBytesBefore[p.path] ?? 0,
      loadBytesAfter: pageBytesAfter[p.path] ?? 0,
    })),
    assets: files.filter((f) => f.role !== 'page').map((f) => ({ path: f.path, type: f.mime, role: f.role, bytesIn: f.size, bytesOut: f.outputSize })),
    referencesByKind: sortKeys(byKind),
    referencesByStatus: sortKeys(byStatus),
    referencesListed: all ? 'all' : 'unresolved',
    references: listed.map((r) => ({ source: r.source, kind: r.kind, url: r.url, start: r.start, end: r.end, status: r.status, ...(r.target ? { target: r.target } : {}), ...(r.via ? { via: r.via } : {}), ...(r.note ? { note: r.note } : {}) })),
    passes: run.passes,
    warnings,
    artifacts: [...site.artifacts.keys()].sort(),
    written: run.written,
    work: run.work ?? { jobs: 0, cacheHits: 0, passesReplayed: 0 },
    ms: run.ms,
  };
}

/**
 * One warning per subresource that does not resolve to a file of the site, and
 * one line for all links (`<a href>`, ...) that point at pages not in it:
 * a site built from part of a larger one has many, and they cost no request.
 * External URLs are listed in the references, not warned about.
 * @param {import('../site/site.js').Reference[]} warned unresolved references warned about one by one
 * @param {{ count: number, sources: Set<string> }} links missing links, warned about together
 * @returns {import('../site/site.js').Warning[]}
 */
function referenceWarnings(warned, links) {
  const warnings = warned.map((r) => ({ file: r.source, code: `reference-${r.status}`, severity: messageCode(`reference-${r.status}`).severity, message: `${r.kind} ${JSON.stringify(r.url)} ${UNRESOLVED[r.status]}${r.note ? ` (${r.note})` : ''}` }));
  if (links.count) {
    const pages = links.sources.size;
    warnings.push({ file: '', code: 'links-missing', severity: messageCode('links-missing').severity, message: `${links.count} links in ${pages} page${pages === 1 ? '' : 's'} point at files not in the site (see references with status "missing")` });
  }
  return warnings;
}

/**
 * The output's files by whether a visitor's browser loads them: pages, what
 * they load (any srcset candidate or <picture> source counts: some visitor's
 * browser picks it) and their precompressed copies; the rest is on disk but
 * costs no visitor a byte.
 * @param {import('../site/site.js').Site} site
 * @param {ReadonlySet<string>} loaded pages and the files they load
 * @returns {OutputFiles}
 */
function outputFiles(site, loaded) {
  const result = { loaded: { files: 0, bytes: 0 }, notLoaded: { files: 0, bytes: 0, paths: /** @type {string[]} */ ([]) }, configs: { files: 0, bytes: 0, paths: /** @type {string[]} */ ([]) } };
  for (const file of site.files.values()) {
    const extension = Object.values(SIDECAR_EXTENSIONS).find((ext) => file.path.endsWith(ext));
    const sidecarOf = extension ? file.path.slice(0, -extension.length) : null;
    const isLoaded = loaded.has(file.path) || (sidecarOf !== null && site.files.has(sidecarOf) && loaded.has(sidecarOf));
    const into = isLoaded ? result.loaded : result.notLoaded;
    into.files++;
    into.bytes += file.outputSize;
    if (!isLoaded && result.notLoaded.paths.length < SUMMARY_REFERENCE_LIMIT) result.notLoaded.paths.push(file.path);
  }
  result.notLoaded.paths.sort();
  for (const [name, bytes] of site.artifacts) {
    result.configs.files++;
    result.configs.bytes += bytes.length;
    result.configs.paths.push(name);
  }
  result.configs.paths.sort();
  return result;
}

/** The statuses of references that do not resolve to a file, and what the warning says of them. */
const UNRESOLVED = /** @type {Record<string, string>} */ ({
  missing: 'points at a file that does not exist',
  escapes: 'leaves the site root: not followed',
  invalid: 'is not a usable URL',
  ambiguous: 'matches several files',
});

/** @param {Record<string, number>} map */
function sortKeys(map) {
  return Object.fromEntries(Object.entries(map).sort(([a], [b]) => (a < b ? -1 : 1)));
}

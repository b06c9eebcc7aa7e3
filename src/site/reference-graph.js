/**
 * The site's reference graph, both ways: what each reference of a document
 * resolves to (remembered by index, base directory, kind and URL, as the
 * pages of a site share most of their URLs), and which references point at
 * given files.
 */
import path from 'node:path';
import { baseDirectory, resolveReference } from './resolve.js';

/**
 * @typedef {import('./site.js').Site} Site
 * @typedef {import('./site.js').SiteFile} SiteFile
 * @typedef {import('./site.js').Reference} Reference
 * @typedef {import('./reference-kinds.js').ReferenceKind} ReferenceKind
 * @typedef {import('./reference-table.js').ReferenceTable} ReferenceTable
 */

/** Extensions tried, in order, when an extensionless URL matches several files. */
const PREFERRED_EXTENSIONS = /** @type {Partial<Record<ReferenceKind, string[]>>} */ ({
  img: ['gif', 'png', 'jpg', 'jpeg', 'webp', 'svg'],
  'input-image': ['gif', 'png', 'jpg', 'jpeg'],
  background: ['gif', 'png', 'jpg', 'jpeg'],
  stylesheet: ['css'],
  'css-import': ['css'],
  script: ['js', 'mjs'],
  iframe: ['html', 'htm'],
  frame: ['html', 'htm'],
  anchor: ['html', 'htm'],
});

/** What a relative URL under a <base href> on another site resolves to. @type {import('./resolve.js').Resolution} */
const EXTERNAL = Object.freeze({ status: 'external' });

/**
 * What each URL of a document resolves to: the same for every reference of a kind and URL in it, and in every
 * document with the same base directory.
 * @param {Site} site
 * @param {SiteFile} from
 * @param {import('./resolve.js').SiteIndex} [index]
 * @returns {(kind: ReferenceKind, url: string) => import('./resolve.js').Resolution}
 */
export function resolverOf(site, from, index = site.index) {
  const dir = path.posix.dirname(from.path) === '.' ? '' : path.posix.dirname(from.path);
  // <base href> moves the base of the page's relative URLs; a base on another site makes them external.
  const baseDir = from.baseHref === null ? dir : baseDirectory(from.baseHref, dir, site.options.origins ?? []);
  const base = baseDir ?? dir;
  let byBase = site.resolutions.get(index);
  if (!byBase) site.resolutions.set(index, (byBase = new Map()));
  let byKind = byBase.get(base);
  if (!byKind) byBase.set(base, (byKind = new Map()));
  const kinds = byKind;
  return (kind, url) => {
    if (baseDir === null && !isAbsolute(url)) return EXTERNAL;
    let byUrl = kinds.get(kind);
    if (!byUrl) kinds.set(kind, (byUrl = new Map()));
    let r = byUrl.get(url);
    if (!r) {
      r = resolveReference(url, base, index, { origins: site.options.origins, prefer: PREFERRED_EXTENSIONS[kind] });
      byUrl.set(url, r);
    }
    return r;
  };
}

/**
 * A reference as the site model keeps it: what was found, and what it resolved to.
 * @param {SiteFile} from
 * @param {import('./html-refs.js').FoundReference} found
 * @param {import('./resolve.js').Resolution} r
 * @returns {Reference}
 */
export function referenceOf(from, found, r) {
  /** @type {Reference} */
  const ref = { source: from.path, ...found, status: r.status };
  if (r.path) ref.target = r.path;
  if (r.via) ref.via = r.via;
  if (r.note) ref.note = r.note;
  return ref;
}

/** @param {string} url */
function isAbsolute(url) {
  return /^[a-zA-Z][a-zA-Z0-9+.-]*:|^\/\//.test(url.trim());
}

/**
 * Every file some page or style sheet refers to, read off the compact
 * tables without making reference objects.
 * @param {Site} site
 * @returns {Set<string>}
 */
export function referencedPaths(site) {
  /** @type {Set<string>} */
  const paths = new Set();
  for (const { target } of targetedReferences(site)) paths.add(target);
  return paths;
}

/**
 * Each reference that resolves to a file, as its table, its index there and
 * its target, in file then byte order.
 * @param {Site} site
 * @returns {Generator<{ table: ReferenceTable, index: number, target: string }>}
 */
export function* targetedReferences(site) {
  for (const file of site.files.values()) {
    const table = file.referenceTable;
    if (!table) continue;
    for (let index = 0; index < table.length; index++) {
      const target = table.targetAt(index);
      if (target !== undefined) yield { table, index, target };
    }
  }
}

/**
 * The references to some files, by file, in file then byte order: one pass
 * over the references, for passes that ask about many files (referencesTo
 * asks about one). Only these references are made into objects.
 * @param {Site} site
 * @param {Set<string>} targets
 * @returns {Map<string, Reference[]>}
 */
export function referencesByTarget(site, targets) {
  /** @type {Map<string, Reference[]>} */
  const index = new Map();
  for (const { table, index: i, target } of targetedReferences(site)) {
    if (!targets.has(target)) continue;
    const list = index.get(target);
    if (list) list.push(table.at(i));
    else index.set(target, [table.at(i)]);
  }
  return index;
}

/**
 * The references that resolve to a file.
 * @param {Site} site
 * @param {string} target
 */
export function referencesTo(site, target) {
  return referencesByTarget(site, new Set([target])).get(target) ?? [];
}

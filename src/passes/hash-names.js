/**
 * Content-hashed names (docs/hash-names.md): every file a page or style sheet
 * loads (images, style sheets, scripts, fonts, media; never a page) gets a
 * copy named `<name>.<hash>.<ext>` beside it, the hash taken from its final
 * bytes, and every reference that loads it points at the copy. Such names
 * match the server configs' fingerprint rule (src/configs/shared.js), so they
 * are sent `immutable` and cached for a year.
 *
 * Bottom-up: files without references of their own first (images, fonts,
 * scripts, SVG files), then style sheets, each after the ones it imports and
 * hashed once its own references point at the new names, so that a changed
 * image gives its style sheet a new name too. The original stays under its name with the
 * same bytes (scripts and other sites may load it by name), unless --prune
 * and nothing refers to it any more; a file an earlier pass of this build
 * made (no one outside can know its name) keeps only its hashed name.
 * References made by scripts are not read, so never rewritten, and a file
 * whose name a script holds keeps it, so that a page never loads it twice.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import path from 'node:path';
import { prune } from '../images/options.js';
import { cachePolicy, isFingerprinted, isPage } from '../configs/shared.js';
import { REFERENCE_KINDS } from '../site/reference-kinds.js';
import { changedPinnedFiles } from '../site/integrity.js';
import { namedInScripts } from '../site/script-names.js';

/**
 * @typedef {import('../site/site.js').Site} Site
 * @typedef {import('../site/site.js').SiteFile} SiteFile
 * @typedef {import('../site/site.js').Reference} Reference
 * @typedef {import('../site/reference-kinds.js').ReferenceKind} ReferenceKind
 * @typedef {import('../build/pass.js').PassContext<{ prune: boolean }>} Context
 */

const options = { prune };

/**
 * The kinds of reference that load their target with the page (or, for
 * `media`, when it plays): their targets get hashed names and these
 * references follow. Not anchors and other links, not frames (pages).
 * @type {ReadonlySet<ReferenceKind>}
 */
export const LOADED_KINDS = new Set(/** @type {[ReferenceKind, { subresource: boolean, page?: boolean }][]} */ (Object.entries(REFERENCE_KINDS))
  .filter(([kind, { subresource, page }]) => (subresource && !page) || kind === 'media')
  .map(([kind]) => kind));

/** The fewest hex digits of a hash in a name. */
export const MIN_HASH_DIGITS = 8;

/** Names browsers and other clients ask for at the root of a site without any reference: --prune keeps them. */
const WELL_KNOWN = /^(?:favicon\.ico|apple-touch-icon(?:-precomposed)?\.png)$/;

/** @type {import('../build/pass.js').Pass<typeof options>} */
export default {
  name: 'hash-names',
  description: 'every file pages and style sheets load given a name with its content hash, and its references pointed at it',
  options,
  async run(site, ctx) {
    const { loads, fromFingerprinted } = loadingKinds(site);
    const renamed = await changedPinnedFiles(site);
    const assets = [...site.files.values()].filter((file) => file.role !== 'page' && !isPage(file.path));
    const named = await namedInScripts(site, assets.filter((file) => loads.has(file.path) && !isFingerprinted(file.path)).map((file) => file.path));
    /** @type {SiteFile[]} */
    const candidates = [];
    for (const file of assets) {
      const reason = skipReason(file.path, loads.get(file.path), fromFingerprinted.has(file.path), renamed.has(file.path), named.has(file.path));
      if (reason) ctx.decide({ file: file.path, action: 'skipped', reason });
      else candidates.push(file);
    }
    if (candidates.length === 0) return;

    /** The size of each candidate before the pass, for the report. @type {Map<string, number>} */
    const sizeBefore = new Map(candidates.map((f) => [f.path, f.outputSize]));
    /** @type {Map<string, string>} original → hashed site path */
    const mapping = new Map();
    /** Hashed files this pass added (not found in the site already). @type {Set<string>} */
    const added = new Set();
    let rewritten = 0;
    let done = 0;
    const total = candidates.length;
    const accept = (/** @type {Reference} */ ref) => rewritesIn(ref.source) && LOADED_KINDS.has(ref.kind);

    // Style sheets wait for what they load; every other file's bytes are final: named first.
    const documents = candidates.filter((f) => f.referenceTable !== null || f.role === 'stylesheet');
    const inGraph = new Set(documents.map((f) => f.path));
    for (const file of candidates) {
      if (inGraph.has(file.path)) continue;
      await nameByContent(site, ctx, file, mapping, added);
      ctx.progress(file.path, { done: ++done, total });
    }

    // Style sheets, each after the ones it loads, its references pointed at their new names before it is hashed.
    for (const component of dependencyOrder(site, documents, inGraph)) {
      if (component.cyclic) {
        for (const file of component.files) {
          ctx.decide({ file: file.path, action: 'kept', reason: 'in an @import cycle: its name cannot hold the hash of its own content' });
          ctx.progress(file.path, { done: ++done, total });
        }
        continue;
      }
      const file = component.files[0];
      const changes = file.references.filter((ref) => ref.target !== undefined && mapping.has(ref.target) && accept(ref))
        .map((ref) => ({ ref, target: /** @type {string} */ (mapping.get(/** @type {string} */ (ref.target))) }));
      if (changes.length) await site.retarget(changes);
      rewritten += changes.length;
      await nameByContent(site, ctx, file, mapping, added);
      ctx.progress(file.path, { done: ++done, total });
    }

    // Every other document (pages, style sheets that keep their names), one rewrite each.
    for (const count of (await site.retargetAll(mapping, accept)).values()) rewritten += count;
    ctx.rewrote(rewritten);

    // An original goes when nothing refers to it any more: with --prune, or when this build made it.
    const referenced = site.referencedPaths();
    for (const [original, hashed] of mapping) {
      const file = site.get(original);
      if (added.has(hashed)) ctx.touched(hashed, /** @type {number} */ (sizeBefore.get(original)), site.get(hashed).outputSize);
      const made = file.absPath === null;
      let reason = added.has(hashed) ? 'named by its content hash' : 'pointed at the same bytes under its hashed name, already in the site';
      if (ctx.options.prune || made) {
        if (referenced.has(original)) reason += '; the original kept: something still refers to it';
        else if (WELL_KNOWN.test(original)) reason += '; the original kept: clients ask for it by this name';
        else {
          site.remove(original);
          reason += made ? '; made by this build, so no other name is kept' : '; the original removed (--prune)';
        }
      }
      ctx.decide({ file: original, action: 'changed', reason });
    }
  },
};

/**
 * Whether references in a document are rewritten: not in one whose name is
 * fingerprinted already (a bundler's output, or a copy this pass made), as
 * its name promises its bytes never change.
 * @param {string} source
 */
function rewritesIn(source) {
  return cachePolicy(source) !== 'immutable';
}

/**
 * For each file, the kinds of reference that load it from documents whose
 * references this pass rewrites; and the files fingerprinted documents load.
 * Read off the compact tables.
 * @param {Site} site
 */
function loadingKinds(site) {
  /** @type {Map<string, Set<ReferenceKind>>} */
  const loads = new Map();
  /** @type {Set<string>} */
  const fromFingerprinted = new Set();
  for (const file of site.files.values()) {
    const table = file.referenceTable;
    if (!table) continue;
    const rewritten = rewritesIn(file.path);
    for (let i = 0; i < table.length; i++) {
      const target = table.targetAt(i);
      if (target === undefined) continue;
      const kind = table.kindAt(i);
      if (!LOADED_KINDS.has(kind)) continue;
      if (!rewritten) {
        fromFingerprinted.add(target);
        continue;
      }
      const kinds = loads.get(target);
      if (kinds) kinds.add(kind);
      else loads.set(target, new Set([kind]));
    }
  }
  return { loads, fromFingerprinted };
}

/**
 * Why a file (not a page) keeps its name, or null when it gets a hashed one.
 * @param {string} sitePath
 * @param {Set<ReferenceKind> | undefined} kinds what loads it, of the documents whose references are rewritten
 * @param {boolean} [fromFingerprinted] whether a document with a fingerprinted name loads it
 * @param {boolean} [pinnedAndChanged] whether a page loads it with an integrity attribute and this build changed its
 *   bytes: a fingerprinted name then gets a new hash too, or a browser that cached the old bytes would refuse them
 * @param {boolean} [namedInScript] whether a script holds its file name (src/site/script-names.js): the script may
 *   ask for it by that name, and a page that also loaded it by a hashed name would fetch it twice
 * @returns {string | null}
 */
export function skipReason(sitePath, kinds, fromFingerprinted = false, pinnedAndChanged = false, namedInScript = false) {
  if (isFingerprinted(sitePath) && !pinnedAndChanged) return 'name already fingerprinted';
  if (namedInScript && !pinnedAndChanged) return 'named in a script: the script may ask for it by this name';
  if (!kinds) return fromFingerprinted ? 'loaded only by files with fingerprinted names, which keep their bytes' : 'not loaded by any page or style sheet';
  // A preload is a hint for a request something else makes: when nothing pagediet reads makes it, a script
  // does, by this name, and a preload of another name would be fetched for nothing.
  if (kinds.size === 1 && kinds.has('preload')) return 'only preloaded: what uses it asks for it by this name';
  const base = path.posix.basename(sitePath);
  const dot = base.lastIndexOf('.');
  if (dot <= 0) return 'no extension to put the hash before';
  // The fingerprint rule reads the last extension as letters and digits, and a name on one line.
  if (!/^[A-Za-z0-9]+$/.test(base.slice(dot + 1)) || /[\n\r\u2028\u2029]/.test(sitePath)) return 'a name the servers\' fingerprint rule cannot read';
  return null;
}

/**
 * The shortest prefix of a hex hash, at least `min` digits, that holds a
 * digit and a letter a-f (all digits reads as a date, all letters as a word:
 * the fingerprint rule takes neither), or null when no prefix does.
 * @param {string} hex
 * @param {number} [min]
 */
export function hashPrefix(hex, min = MIN_HASH_DIGITS) {
  for (let n = min; n <= hex.length; n++) {
    const prefix = hex.slice(0, n);
    if (/[0-9]/.test(prefix) && /[a-f]/.test(prefix)) return prefix;
  }
  return null;
}

/**
 * `dir/name.ext` with a hash: `dir/name.<hash>.ext`.
 * @param {string} sitePath a name skipReason accepts
 * @param {string} hash
 */
export function hashedPath(sitePath, hash) {
  const dot = sitePath.lastIndexOf('.');
  const named = `${sitePath.slice(0, dot)}.${hash}${sitePath.slice(dot)}`;
  assert.ok(isFingerprinted(named), `${named} does not match the server configs' fingerprint rule`);
  return named;
}

/**
 * Gives a file its hashed name: a copy of its current bytes beside it (or
 * the file of that name already there with the same bytes), in `mapping`.
 * A longer prefix of the hash is taken when the name holds other bytes.
 * @param {Site} site
 * @param {Context} ctx
 * @param {SiteFile} file
 * @param {Map<string, string>} mapping
 * @param {Set<string>} added
 */
async function nameByContent(site, ctx, file, mapping, added) {
  let bytes;
  try {
    bytes = await site.read(file.path);
  } catch {
    ctx.decide({ file: file.path, action: 'skipped', reason: 'unreadable' });
    return;
  }
  const hex = crypto.createHash('sha256').update(bytes).digest('hex');
  for (let min = MIN_HASH_DIGITS; ; ) {
    const hash = hashPrefix(hex, min);
    if (hash === null) {
      ctx.decide({ file: file.path, action: 'kept', reason: 'no prefix of its hash makes a free name the fingerprint rule reads' });
      return;
    }
    const target = hashedPath(file.path, hash);
    if (site.directories.has(target) || (site.files.has(target) && !(await site.read(target).catch(() => null))?.equals(bytes))) {
      min = hash.length + 1;
      continue;
    }
    if (!site.files.has(target)) {
      const copy = await site.add(target, bytes, file.mtimeMs);
      if (file.role !== 'asset') {
        copy.role = file.role;
        await site.parse(copy, file.charset ?? undefined);
      }
      added.add(target);
    }
    mapping.set(file.path, target);
    return;
  }
}

/**
 * @typedef {{ files: SiteFile[], cyclic: boolean }} Component
 */

/**
 * The style sheets, each after every one it loads (Tarjan's strongly
 * connected components come out in that order); style sheets that load
 * each other, or themselves, come out together as cyclic.
 * @param {Site} site
 * @param {SiteFile[]} documents in site order
 * @param {Set<string>} inGraph their paths
 * @returns {Component[]}
 */
function dependencyOrder(site, documents, inGraph) {
  /** @type {Map<string, string[]>} */
  const edges = new Map();
  for (const file of documents) {
    const to = file.references.filter((r) => r.target !== undefined && inGraph.has(r.target) && LOADED_KINDS.has(r.kind)).map((r) => /** @type {string} */ (r.target));
    edges.set(file.path, [...new Set(to)]);
  }
  /** @type {Component[]} */
  const order = [];
  /** @type {Map<string, { index: number, low: number }>} */
  const seen = new Map();
  /** @type {string[]} */
  const stack = [];
  const onStack = new Set();
  const visit = (/** @type {string} */ v) => {
    const node = { index: seen.size, low: seen.size };
    seen.set(v, node);
    stack.push(v);
    onStack.add(v);
    for (const w of /** @type {string[]} */ (edges.get(v))) {
      const next = seen.get(w);
      if (!next) {
        visit(w);
        node.low = Math.min(node.low, /** @type {{ low: number }} */ (seen.get(w)).low);
      } else if (onStack.has(w)) {
        node.low = Math.min(node.low, next.index);
      }
    }
    if (node.low !== node.index) return;
    /** @type {string[]} */
    const members = [];
    let w;
    do {
      w = /** @type {string} */ (stack.pop());
      onStack.delete(w);
      members.push(w);
    } while (w !== v);
    members.sort();
    const cyclic = members.length > 1 || /** @type {string[]} */ (edges.get(v)).includes(v);
    order.push({ files: members.map((p) => site.get(p)), cyclic });
  };
  for (const file of documents) if (!seen.has(file.path)) visit(file.path);
  return order;
}

/**
 * Writes that keep a document's references without parsing it again:
 * pointing references at other files by rewriting only the bytes of their
 * URLs, and replacing whole <img> start tags; the other references move by
 * the edits before them.
 */
import path from 'node:path';
import { decodeBytes, encodeText } from './charset.js';
import { applyEdits, encodePath } from './edits.js';
import { rememberFindings } from './parse.js';

/**
 * @typedef {import('./site.js').Site} Site
 * @typedef {import('./site.js').SiteFile} SiteFile
 * @typedef {import('./site.js').Reference} Reference
 */

/**
 * Points every reference to a file of the mapping at its new file, one page
 * or style sheet at a time (only one document's references are objects at
 * once); see retarget.
 * @param {Site} site
 * @param {Map<string, string>} mapping old site path → new site path
 * @param {(ref: Reference) => boolean} [accept] which of the references to those files to rewrite (default: all)
 * @returns {Promise<Map<string, number>>} references rewritten, by old path
 */
export async function retargetAll(site, mapping, accept) {
  /** @type {Map<string, number>} */
  const counts = new Map();
  for (const file of [...site.files.values()]) {
    const table = file.referenceTable;
    if (!table) continue;
    /** @type {{ ref: Reference, target: string }[]} */
    const changes = [];
    for (let i = 0; i < table.length; i++) {
      const from = table.targetAt(i);
      const to = from === undefined ? undefined : mapping.get(from);
      if (from === undefined || to === undefined) continue;
      const ref = table.at(i);
      if (accept && !accept(ref)) continue;
      changes.push({ ref, target: to });
      counts.set(from, (counts.get(from) ?? 0) + 1);
    }
    if (changes.length) await retarget(site, changes);
  }
  return counts;
}

/**
 * Points references at other files by editing only the bytes of their URLs.
 * The new URL keeps the old one's directory part, query and fragment when the
 * target stays in the same directory, and is relative to the source otherwise.
 * @param {Site} site
 * @param {{ ref: Reference, target: string }[]} changes references of one or more sources
 */
export async function retarget(site, changes) {
  /** @type {Map<string, import('./edits.js').Edit[]>} */
  const bySource = new Map();
  /** @type {Map<string, Buffer>} each source's bytes, read once however many of its references change */
  const current = new Map();
  for (const { ref, target } of changes) {
    const source = site.get(ref.source);
    let bytes = current.get(ref.source);
    if (!bytes) {
      bytes = await site.read(ref.source);
      current.set(ref.source, bytes);
    }
    const url = retargetUrl(ref, target, bytes, /** @type {string} */ (source.charset));
    const edits = bySource.get(ref.source) ?? [];
    edits.push({ start: ref.start, end: ref.end, bytes: encodeText(url, /** @type {string} */ (source.charset)) });
    bySource.set(ref.source, edits);
  }
  for (const [sourcePath, edits] of bySource) {
    const file = site.get(sourcePath);
    const after = applyEdits(/** @type {Buffer} */ (current.get(sourcePath)), edits);
    const moved = movedReferences(site, file, edits);
    if (!moved) {
      await site.write(sourcePath, after);
      continue;
    }
    site.setOutput(file, after);
    file.references = moved.references;
    file.headEnd = moved.headEnd;
    await rememberFindings(site, file);
    await site.bytes.settle();
  }
  return [...bySource.keys()];
}

/**
 * A page's references after edits that each replace one reference's URL
 * whole, without parsing the page again: the tree is the same but for
 * those attribute values, so every offset moves by the edits before it and
 * the changed references are resolved again. Null where a parse is needed:
 * not a page in an ASCII-compatible charset, an edit that is not exactly a
 * reference's URL, or a new URL a browser would decode or that is not
 * ASCII (a character reference, a CSS escape, white space, a quote or a
 * bracket).
 * @param {Site} site
 * @param {SiteFile} file
 * @param {import('./edits.js').Edit[]} edits
 * @returns {{ references: Reference[], headEnd: number | null } | null} its references, and where its head ends
 */
function movedReferences(site, file, edits) {
  if (file.role !== 'page' || !file.referenceTable || /^utf-16/.test(file.charset ?? '')) return null;
  const refs = file.references;
  const byStart = new Map(refs.map((r, i) => [r.start, i]));
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  /** @type {Map<number, string>} new URL by reference index */
  const urls = new Map();
  for (const edit of sorted) {
    const i = byStart.get(edit.start);
    if (i === undefined || refs[i].end !== edit.end) return null;
    const url = Buffer.from(edit.bytes).toString('latin1');
    if (/[&\\\s'"()\x00-\x1f\x7f-\xff]/.test(url)) return null;
    urls.set(i, url);
  }
  /** shifts[k]: how far the first k edits move what follows them. */
  const shifts = [0];
  for (const e of sorted) shifts.push(shifts[shifts.length - 1] + e.bytes.length - (e.end - e.start));
  /** The offset o after the edits that end at or before it (an empty edit at o is after it): a binary search, as a page has hundreds of offsets. @param {number} o */
  const moved = (o) => {
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      const e = sorted[mid];
      if (e.end > o || (e.start === o && e.end === o)) high = mid;
      else low = mid + 1;
    }
    return o + shifts[low];
  };
  const references = refs.map((ref, i) => {
    const { source, status, target, via, note, ...found } = ref;
    const url = urls.get(i);
    const start = moved(ref.start);
    /** @type {import('./html-refs.js').FoundReference} */
    const next = { ...found, start, end: url === undefined ? moved(ref.end) : start + url.length, ...(url !== undefined && { url }) };
    // Offsets besides the URL's: the element's start tag, and the image choice (the offset of its element).
    if (ref.tagStart !== undefined) next.tagStart = moved(ref.tagStart);
    if (ref.tagEnd !== undefined) next.tagEnd = moved(ref.tagEnd);
    if (ref.choice !== undefined) next.choice = moved(ref.choice);
    if (url === undefined) return /** @type {Reference} */ ({ ...ref, ...next });
    return site.resolve(file, next);
  });
  return { references, headEnd: file.headEnd === null ? null : moved(file.headEnd) };
}

/**
 * Sets the output bytes of a page whose tree and references are those of
 * its current bytes, at the same offsets: only the case of tag and
 * attribute names changed, which the HTML tokenizer undoes. The page is not
 * parsed again (a parse of a 42 KB page takes 20 to 40 ms, once per page
 * and pass on a large site).
 * @param {Site} site
 * @param {string} sitePath
 * @param {Buffer} bytes as long as the current bytes
 */
export async function writeSameReferences(site, sitePath, bytes) {
  const file = site.get(sitePath);
  if (file.role !== 'page' || bytes.length !== file.outputSize) return site.write(sitePath, bytes);
  site.setOutput(file, bytes);
  await rememberFindings(site, file);
  await site.bytes.settle();
}

/**
 * Sets the output of a page edited only by replacing whole <img> start
 * tags and inserting at points, where the new bytes hold no reference and
 * close or move no element (a <span> with its text, a <style> of rules
 * without url()): the tree is the same but for the replaced images, so the
 * references inside a replaced tag go, the others move by the edits before
 * them, and the page is not parsed again. Falls back to a parse (write)
 * where that does not hold: a page in UTF-16, an edit that is not exactly
 * an <img>'s start tag, or a reference across an edit's edge.
 * @param {Site} site
 * @param {string} sitePath
 * @param {Buffer} bytes the page's bytes after the edits
 * @param {import('./edits.js').Edit[]} edits the edits that made them from its current bytes
 * @returns {Promise<boolean>} whether the references were moved (false: the page was parsed)
 */
export async function writeReplacedImages(site, sitePath, bytes, edits) {
  const file = site.get(sitePath);
  const after = file.role === 'page' && file.referenceTable && !/^utf-16/.test(file.charset ?? '') ? referencesAfterImageEdits(file, edits) : null;
  if (!after) {
    await site.write(sitePath, bytes);
    return false;
  }
  site.setOutput(file, bytes);
  file.references = after.references;
  file.headEnd = after.headEnd;
  await rememberFindings(site, file);
  await site.bytes.settle();
  return true;
}

/**
 * writeReplacedImages' references and head's end, or null.
 * @param {SiteFile} file
 * @param {import('./edits.js').Edit[]} edits
 * @returns {{ references: Reference[], headEnd: number | null } | null}
 */
function referencesAfterImageEdits(file, edits) {
  const refs = file.references;
  const tags = new Set(refs.filter((r) => r.kind === 'img' && r.tagStart !== undefined).map((r) => `${r.tagStart} ${r.tagEnd}`));
  const sorted = [...edits].sort((a, b) => a.start - b.start || a.end - b.end);
  if (sorted.some((e) => e.start !== e.end && !tags.has(`${e.start} ${e.end}`))) return null;
  /**
   * Where an offset goes: past every edit that ends before it, and past an insertion at it when it is where
   * something starts (what was there follows the inserted bytes); an end stays before an insertion at it.
   * @param {number} o @param {boolean} isStart
   */
  const moved = (o, isStart) => {
    let shift = 0;
    for (const e of sorted) {
      if (e.end < o || (e.end === o && (e.start !== e.end || isStart))) shift += e.bytes.length - (e.end - e.start);
      else break;
    }
    return o + shift;
  };
  /** @type {Reference[]} */
  const references = [];
  for (const ref of refs) {
    const within = sorted.find((e) => e.start !== e.end && ref.start >= e.start && ref.end <= e.end);
    if (within) continue;
    if (sorted.some((e) => (e.start > ref.start && e.start < ref.end) || (e.end > ref.start && e.end < ref.end))) return null;
    /** @type {Reference} */
    const next = { ...ref, start: moved(ref.start, true), end: moved(ref.end, false) };
    if (ref.tagStart !== undefined) next.tagStart = moved(ref.tagStart, true);
    if (ref.tagEnd !== undefined) next.tagEnd = moved(ref.tagEnd, false);
    if (ref.choice !== undefined) next.choice = moved(ref.choice, true);
    references.push(next);
  }
  return { references, headEnd: file.headEnd === null ? null : moved(file.headEnd, true) };
}

/**
 * @param {Reference} ref
 * @param {string} target new site path
 * @param {Buffer} bytes current bytes of the source
 * @param {string} charset
 */
function retargetUrl(ref, target, bytes, charset) {
  const raw = decodeBytes(bytes.subarray(ref.start, ref.end), charset);
  const oldTarget = /** @type {string} */ (ref.target);
  const suffix = /[?#].*$/s.exec(ref.url)?.[0] ?? '';
  const sameDir = path.posix.dirname(oldTarget) === path.posix.dirname(target);
  const lastSlash = raw.split(/[?#]/)[0].lastIndexOf('/');
  if (sameDir && ref.via !== 'index' && !/[?#&\\]/.test(raw.slice(0, lastSlash + 1))) {
    // Keep the URL's own directory prefix, as written (relative, rooted or absolute).
    return raw.slice(0, lastSlash + 1) + encodePath(path.posix.basename(target)) + encodeSuffix(suffix);
  }
  const fromDir = path.posix.dirname(ref.source);
  return encodePath(path.posix.relative(fromDir === '.' ? '' : fromDir, target)) + encodeSuffix(suffix);
}

/** @param {string} suffix a query and fragment, decoded */
function encodeSuffix(suffix) {
  return encodeURI(suffix).replace(/['()"]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

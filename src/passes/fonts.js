/**
 * Web fonts as WOFF2 (docs/fonts.md). Every @font-face in the site's style
 * sheets and <style> elements whose src loads a TrueType, OpenType or WOFF
 * file of the site, and no WOFF2, gets a WOFF2 of that font, made losslessly
 * (the same sfnt tables, checked by decoding it again) and put first among
 * the src's url()s; the other entries stay after it as fallbacks and every
 * other byte of the CSS stays. A file that is not a font is warned about and
 * never referenced. Fonts of other origins are listed, never fetched.
 *
 * With subsetFonts, Chromium says which characters the pages show in each
 * such font's family, and a WOFF2 of just those characters gets a rule of its
 * own with their unicode-range, after the full font's: browsers draw those
 * characters from the subset and load the full font only for others (text a
 * script adds). Each page is opened again to see which files it fetches, and
 * a subset is kept only when it saves bytes over the pages that use it.
 */
import { PageFailed, firstLine } from '../browser/page-failed.js';
import crypto from 'node:crypto';
import path from 'node:path';
import { boolean } from '../options/kinds.js';
import { option } from '../options/table.js';
import { browser } from '../images/options.js';
import { applyEdits } from '../site/edits.js';
import { documentFaces, siteFaces } from '../fonts/site-faces.js';
import { insertionEdit, subsetRule, urlBeside, woff2Entry } from '../fonts/css-edits.js';
import { fontPages } from '../fonts/page-characters.js';
import { formatUnicodeRange, inRanges, parseUnicodeRange } from '../fonts/unicode-range.js';
import { codePointName } from '../fonts/same-font.js';
import { hintingCharacters } from '../fonts/hinting-characters.js';
import { drawsAlike } from '../fonts/same-drawing.js';

/**
 * @typedef {import('../site/site.js').Site} Site
 * @typedef {import('../site/site.js').Reference} Reference
 * @typedef {import('../fonts/site-faces.js').SiteFace} SiteFace
 * @typedef {import('../fonts/site-faces.js').DocumentFaces} DocumentFaces
 * @typedef {import('../fonts/jobs.js').Woff2Result} Woff2Result
 * @typedef {import('../build/pass.js').PassContext<{ subsetFonts: boolean, browser: string | undefined }>} Context
 *
 * @typedef {object} Converted a face given a WOFF2
 * @property {string} document
 * @property {number} index the face's place among its document's font-face rules
 * @property {string | null} family
 * @property {string} source the file it was made from
 * @property {string} woff2 the WOFF2's site path
 * @property {number[] | null} characters the code points the font maps
 * @property {string[]} scripts the script tags of its substitutions (GSUB)
 */

const options = {
  subsetFonts: option(boolean, false, 'also cut each web font down to the characters the pages show with it (read in Chromium): a WOFF2 subset with its unicode-range, and the full font kept for characters scripts add'),
  browser,
};

/** format() hints of files a WOFF2 can be made from. */
const SOURCE_FORMATS = new Set(['truetype', 'opentype', 'woff', 'truetype-variations', 'opentype-variations', 'woff-variations']);
const WOFF2_FORMATS = new Set(['woff2', 'woff2-variations']);
/** Hosts that serve web fonts and their style sheets: their <link>s and @imports are listed as remote fonts. */
const FONT_SERVICES = new Set(['fonts.googleapis.com', 'fonts.gstatic.com', 'fonts.bunny.net', 'use.typekit.net', 'p.typekit.net', 'use.fontawesome.com', 'fonts.cdnfonts.com', 'api.fontshare.com', 'fast.fonts.net']);
const REMOTE_SHOWN = 5;

/** @type {import('../build/pass.js').Pass<typeof options>} */
export default {
  name: 'fonts',
  description: 'web fonts given a lossless WOFF2 first in their @font-face src; with --subset-fonts, a subset of the characters pages show, the full font kept for the rest',
  options,
  async run(site, ctx) {
    /** @type {Map<string, number>} bytes of each document before the pass first wrote it */
    const sizesBefore = new Map();
    const written = (/** @type {string} */ document) => {
      if (!sizesBefore.has(document)) sizesBefore.set(document, site.get(document).outputSize);
    };
    const converted = await addWoff2s(site, ctx, written);
    if (ctx.options.subsetFonts && converted.length) await addSubsets(site, ctx, converted, written);
    for (const [document, before] of sizesBefore) {
      const after = site.get(document).outputSize;
      if (after !== before) ctx.touched(document, before, after);
    }
  },
};

/**
 * Gives every face that loads a font of the site, and no WOFF2, a WOFF2 first in its src.
 * @param {Site} site
 * @param {Context} ctx
 * @param {(document: string) => void} written called before a document is written
 * @returns {Promise<Converted[]>}
 */
async function addWoff2s(site, ctx, written) {
  const documents = await siteFaces(site);
  /** @type {{ document: string, url: string }[]} */
  const remote = remoteFontStylesheets(site);
  /** @type {{ doc: DocumentFaces, face: SiteFace, local: SiteFace['urls'] }[]} */
  const candidates = [];
  for (const doc of documents) {
    for (const face of doc.faces) {
      const label = faceLabel(face);
      const external = face.urls.filter((u) => u.reference?.status === 'external');
      for (const u of external) remote.push({ document: doc.document, url: /** @type {Reference} */ (u.reference).url });
      if (face.urls.some((u) => entryKind(u) === 'woff2')) {
        ctx.decide({ file: doc.document, action: 'kept', reason: `${label}: already has a WOFF2` });
        continue;
      }
      const local = face.urls.filter((u) => entryKind(u) === 'font' && u.reference?.status === 'ok');
      if (local.length) {
        candidates.push({ doc, face, local });
        continue;
      }
      if (external.length) ctx.decide({ file: doc.document, action: 'skipped', reason: `${label}: a font of another origin, left alone (${/** @type {Reference} */ (external[0].reference).url})` });
      else if (face.urls.length) ctx.decide({ file: doc.document, action: 'kept', reason: `${label}: no TrueType, OpenType or WOFF file of the site in its src` });
    }
  }
  if (remote.length) {
    const urls = [...new Set(remote.map((r) => r.url))];
    ctx.decide({ file: '', action: 'skipped', reason: `${urls.length} remote font${urls.length === 1 ? '' : 's'} and font style sheet${urls.length === 1 ? '' : 's'} of other origins left alone (never fetched): ${urls.slice(0, REMOTE_SHOWN).join(', ')}${urls.length > REMOTE_SHOWN ? `, and ${urls.length - REMOTE_SHOWN} more` : ''}` });
  }
  if (!candidates.length) return [];

  /** @type {Map<string, Promise<Woff2Result>>} each font file's WOFF2, made once however many faces load it */
  const results = new Map();
  const woff2Of = (/** @type {string} */ file) => {
    let result = results.get(file);
    if (!result) {
      result = (async () => /** @type {Woff2Result} */ (await ctx.compute('woff2Font', await site.read(file), {})))();
      results.set(file, result);
    }
    return result;
  };
  let done = 0;
  // A face's font is the first of its files that is a font: what a browser would have loaded.
  const chosen = await Promise.all(candidates.map(async (candidate) => {
    try {
      for (const u of candidate.local) {
        const file = /** @type {string} */ (/** @type {Reference} */ (u.reference).target);
        const result = await woff2Of(file);
        if (result.status === 'encoded') return { ...candidate, entry: u, file, result };
      }
      return null;
    } finally {
      ctx.progress(candidate.doc.document, { done: ++done, total: candidates.length });
    }
  }));
  // In path order: which job finished first does not change the report.
  for (const file of [...results.keys()].sort()) {
    const result = await /** @type {Promise<Woff2Result>} */ (results.get(file));
    if (result.status === 'not-a-font') {
      ctx.warn(file, 'font-not-a-font', `not a font (${result.reason}): left as it is, no WOFF2 made from it`);
      ctx.decide({ file, action: 'kept', reason: `not a font (${result.reason})` });
    } else if (result.status === 'failed') {
      ctx.warn(file, 'font-woff2-failed', `${result.reason}: no WOFF2 made`);
      ctx.decide({ file, action: 'kept', reason: result.reason });
    } else if (result.status === 'kept') ctx.decide({ file, action: 'kept', reason: result.reason });
  }
  for (const { doc, face } of candidates.filter((_, i) => !chosen[i])) {
    ctx.decide({ file: doc.document, action: 'kept', reason: `${faceLabel(face)}: none of its files is a font a WOFF2 can be made from` });
  }

  // The WOFF2 files, beside their fonts; fonts with the same tables (a TTF and its WOFF) share one.
  /** @type {Map<string, string>} font file → its WOFF2 */
  const woff2Paths = new Map();
  /** @type {Map<string, string>} WOFF2 bytes' hash → site path */
  const byHash = new Map();
  for (const pick of chosen) {
    if (!pick || woff2Paths.has(pick.file)) continue;
    const bytes = /** @type {Buffer} */ (/** @type {{ bytes: Buffer }} */ (pick.result).bytes);
    const hash = sha256(bytes);
    let target = byHash.get(hash);
    if (!target) {
      target = freeName(site, pick.file, '');
      await site.add(target, bytes);
      byHash.set(hash, target);
    }
    woff2Paths.set(pick.file, target);
  }

  /** @type {Converted[]} */
  const converted = [];
  /** @type {Map<string, number>} faces given each font's WOFF2 */
  const facesByFont = new Map();
  /** @type {Map<string, NonNullable<(typeof chosen)[number]>[]>} */
  const byDocument = new Map();
  for (const pick of chosen) if (pick) byDocument.set(pick.doc.document, [...(byDocument.get(pick.doc.document) ?? []), pick]);
  for (const [document, picks] of byDocument) {
    const file = site.get(document);
    const view = picks[0].doc.view;
    /** @type {import('../site/edits.js').Edit[]} */
    const edits = [];
    /** @type {typeof picks} */
    const done = [];
    for (const pick of picks) {
      const woff2 = /** @type {string} */ (woff2Paths.get(pick.file));
      const url = urlBeside(view, pick.entry.entry, woff2, { path: document, baseHref: file.baseHref });
      const insertion = url && woff2Entry(view, pick.face.rule, url);
      if (!insertion) {
        ctx.decide({ file: document, action: 'kept', reason: `${faceLabel(pick.face)}: no URL for ${woff2} that this page's <base href> keeps` });
        continue;
      }
      edits.push(insertionEdit(view, insertion));
      done.push(pick);
    }
    if (!edits.length) continue;
    written(document);
    const expected = done.map((pick) => /** @type {string} */ (woff2Paths.get(pick.file)));
    if (!(await writeResolving(site, document, applyEdits(view.bytes, edits), expected))) {
      ctx.warn(document, 'font-reference-changed', 'a reference would no longer resolve as it did with the WOFF2 entries added: kept as it is');
      continue;
    }
    for (const pick of done) {
      const woff2 = /** @type {string} */ (woff2Paths.get(pick.file));
      facesByFont.set(pick.file, (facesByFont.get(pick.file) ?? 0) + 1);
      const { characters, scripts } = /** @type {{ characters: number[] | null, scripts: string[] }} */ (pick.result);
      converted.push({ document, index: pick.face.index, family: pick.face.rule.family, source: pick.file, woff2, characters, scripts });
    }
    ctx.decide({ file: document, action: 'changed', reason: `${done.length} @font-face rule${done.length === 1 ? '' : 's'} given a WOFF2 first in src: ${done.map((p) => faceLabel(p.face)).join(', ')}` });
  }

  // A WOFF2 no document came to use (its write was refused) is not left in the output.
  const usedWoff2s = new Set([...facesByFont.keys()].map((font) => woff2Paths.get(font)));
  for (const woff2 of byHash.values()) if (!usedWoff2s.has(woff2)) site.remove(woff2);

  // Pages that preload a font now get its WOFF2 from the @font-face: the preload follows, or the font would come twice.
  /** @type {{ ref: Reference, target: string }[]} */
  const preloads = [];
  const used = new Set([...facesByFont.keys()]);
  for (const [font, refs] of site.referencesByTarget(used)) {
    for (const ref of refs) if (ref.kind === 'preload') preloads.push({ ref, target: /** @type {string} */ (woff2Paths.get(font)) });
  }
  if (preloads.length) {
    for (const document of new Set(preloads.map((p) => p.ref.source))) written(document);
    await site.retarget(preloads);
    ctx.rewrote(preloads.length);
  }

  for (const [font, faces] of facesByFont) {
    const woff2 = /** @type {string} */ (woff2Paths.get(font));
    const before = site.get(font).outputSize;
    const after = site.get(woff2).outputSize;
    const shared = [...woff2Paths].filter(([other, w]) => w === woff2 && other !== font && facesByFont.has(other)).map(([other]) => other);
    // A WOFF2 shared by two fonts (a TTF and its WOFF) is one file: counted once, with the first font.
    if (!shared.some((other) => other < font)) ctx.touched(woff2, before, after);
    ctx.decide({ file: font, action: 'changed', reason: `WOFF2 ${woff2} first in src of ${faces} @font-face rule${faces === 1 ? '' : 's'}: ${before} → ${after} B (${percent(before, after)}); decoded again, it holds the font's tables${shared.length ? `; the same font as ${shared.join(', ')}` : ''}` });
  }
  return converted;
}

/**
 * Subsets the faces given a WOFF2 to the characters pages show in them, where that saves bytes.
 * @param {Site} site
 * @param {Context} ctx
 * @param {Converted[]} converted
 * @param {(document: string) => void} written called before a document is written
 */
async function addSubsets(site, ctx, converted, written) {
  const subsettable = converted.filter((c) => {
    if (c.family && c.characters) return true;
    ctx.decide({ file: c.source, action: 'kept', reason: c.family ? 'not subset: a symbol font (no Unicode cmap)' : 'not subset: its @font-face names no font-family' });
    return false;
  });
  if (!subsettable.length) return;
  let launched;
  try {
    launched = await ctx.browser.get();
  } catch (error) {
    ctx.decide({ file: '', action: 'skipped', reason: `fonts not subset: no browser to read which characters pages show (${/** @type {Error} */ (error).message.split(':')[0]})` });
    return;
  }
  /** @type {import('../fonts/page-characters.js').FontPages | null} */
  let pagesOpen = null;
  // Nothing is written until every page has been read and every subset drawn: a page Chromium could not read, or a
  // browser that went away, leaves every font as it is.
  try {
    pagesOpen = await fontPages(launched.browser, site);
    const families = [...new Set(subsettable.map((c) => /** @type {string} */ (c.family).toLowerCase()))];
    const pages = site.pages.map((p) => p.path);
    /** @type {Map<string, Map<string, import('../fonts/page-characters.js').ShownText>>} page → family → what it shows */
    const shown = new Map();
    for (const [i, page] of pages.entries()) {
      shown.set(page, await pagesOpen.characters(page, families).catch((error) => {
        throw error instanceof PageFailed ? new PageFailed(`${page}: ${error.message}`) : error;
      }));
      ctx.progress(page, { done: i + 1, total: pages.length });
    }

    /**
     * @typedef {Converted & { subset: Buffer, subsetPath: string, characters: number[], range: string, shownCount: number,
     *   pages: string[], notInFont: Map<string, number[]> }} Subset
     */
    /** @type {Subset[]} */
    const subsets = [];
    /** @type {Map<string, Promise<Woff2Result>>} */
    const jobs = new Map();
    /** @param {string} source @param {number[]} list */
    const subsetOf = (source, list) => {
      const key = `${source}\n${list.join(',')}`;
      let job = jobs.get(key);
      if (!job) {
        job = (async () => /** @type {Woff2Result} */ (await ctx.compute('woff2Font', await site.read(source), { subset: list })))();
        jobs.set(key, job);
      }
      return job;
    };
    for (const face of subsettable) {
      const family = /** @type {string} */ (face.family).toLowerCase();
      const label = `font-family "${face.family}"`;
      const doc = /** @type {DocumentFaces} */ (await documentFaces(site, face.document));
      const rule = doc.faces[face.index].rule;
      const ranges = rule.unicodeRange ? parseUnicodeRange(doc.view.text.slice(rule.unicodeRange.valueStart, rule.unicodeRange.valueEnd)) : null;
      const has = new Set(/** @type {number[]} */ (face.characters).filter((c) => inRanges(ranges, c)));
      /** @type {Set<number>} the characters pages show in the family that the face has */
      const wanted = new Set();
      /** @type {Set<string>} */
      const words = new Set();
      /** @type {Set<number>} */
      const sizes = new Set();
      /** @type {string[]} */
      const using = [];
      /** @type {Map<string, number[]>} characters pages show in the family that the font does not have */
      const notInFont = new Map();
      for (const [page, byFamily] of shown) {
        const text = byFamily.get(family);
        if (!text?.codes.size) continue;
        using.push(page);
        const missing = [];
        for (const c of text.codes) {
          if (has.has(c)) wanted.add(c);
          else if (inRanges(ranges, c)) missing.push(c);
        }
        if (missing.length) notInFont.set(page, missing);
        for (const w of text.words) words.add(w);
        for (const size of text.sizes) sizes.add(size);
      }
      if (!rule.closed) {
        ctx.decide({ file: face.source, action: 'kept', reason: `not subset: the ${label} rule in ${face.document} is never closed` });
        continue;
      }
      if (!wanted.size) {
        ctx.decide({ file: face.source, action: 'kept', reason: `not subset: no page shows text in ${label}` });
        continue;
      }
      // The letters the auto-hinter measures come along, or the subset would be hinted, and drawn, otherwise:
      // first those of the scripts the pages show, then, if Chromium still draws the subset otherwise, those of
      // every script whose substitutions may style its glyphs.
      const attempts = [hintingCharacters(wanted), hintingCharacters(wanted, face.scripts)].map((extra) => {
        const kept = new Set(wanted);
        for (const c of extra) if (has.has(c)) kept.add(c);
        return [...kept].sort((a, b) => a - b);
      }).filter((list, i, all) => i === 0 || list.length > all[i - 1].length);
      if (attempts[0].length === has.size) {
        ctx.decide({ file: face.source, action: 'kept', reason: `not subset: the pages show every character of ${label} (${has.size})` });
        continue;
      }
      /** @type {{ bytes: Buffer, characters: number[] } | null} */
      let chosen = null;
      for (const list of attempts) {
        if (list.length === has.size) break;
        const result = await subsetOf(face.source, list);
        if (result.status !== 'encoded') {
          ctx.warn(face.source, 'font-subset-failed', `${'reason' in result ? result.reason : 'no subset'}: not subset`);
          break;
        }
        const characters = /** @type {number[]} */ (result.characters);
        ctx.progress(`${face.source}: drawing the subset of ${label} in Chromium`);
        if (await drawsAlike(launched.browser, await site.read(face.woff2), result.bytes, { characters, words, sizes })) {
          chosen = { bytes: result.bytes, characters };
          break;
        }
      }
      if (!chosen) {
        ctx.decide({ file: face.source, action: 'kept', reason: `not subset: in Chromium a subset of ${label} draws the pages' text otherwise than the full font` });
        continue;
      }
      subsets.push({ ...face, subset: chosen.bytes, subsetPath: freeName(site, face.woff2, `-subset-${sha256(chosen.bytes).slice(0, 8)}`), characters: chosen.characters, range: formatUnicodeRange(chosen.characters), shownCount: wanted.size, pages: using, notInFont });
    }
    if (!subsets.length) return;

    /**
     * Each document with the subset rules of these faces added, as bytes.
     * @param {Subset[]} chosen
     */
    const rewritten = async (chosen) => {
      /** @type {Map<string, Buffer>} */
      const out = new Map();
      for (const document of new Set(chosen.map((s) => s.document))) {
        const doc = /** @type {DocumentFaces} */ (await documentFaces(site, document));
        const file = site.get(document);
        const edits = chosen.filter((s) => s.document === document).map((s) => {
          const face = doc.faces[s.index];
          const own = face.urls.find((u) => u.reference?.target === s.woff2);
          const url = own && urlBeside(doc.view, own.entry, s.subsetPath, { path: document, baseHref: file.baseHref });
          return url ? insertionEdit(doc.view, subsetRule(doc.view, face.rule, url, s.range)) : null;
        });
        if (edits.every((e) => e)) out.set(document, applyEdits(doc.view.bytes, /** @type {import('../site/edits.js').Edit[]} */ (edits)));
      }
      return out;
    };

    // Which files each page fetches with every subset in place.
    /** @type {Map<string, Buffer>} */
    const overlay = new Map([...subsets.map((s) => /** @type {[string, Buffer]} */ ([s.subsetPath, s.subset])), ...(await rewritten(subsets))]);
    const measured = [...new Set(subsets.flatMap((s) => s.pages))].sort();
    /** @type {Map<string, Set<string>>} */
    const fetched = new Map();
    for (const [i, page] of measured.entries()) {
      ctx.progress(`${page} (with subsets)`, { done: i, total: measured.length });
      const open = /** @type {import('../fonts/page-characters.js').FontPages} */ (pagesOpen);
      fetched.set(page, await open.fetched(page, overlay).catch((error) => {
        throw error instanceof PageFailed ? new PageFailed(`${page}: ${error.message}`) : error;
      }));
    }

    /** @type {{ subset: Subset, reason: string }[]} */
    const kept = [];
    for (const s of subsets) {
      const full = site.get(s.woff2).outputSize;
      const loading = s.pages.filter((p) => fetched.get(p)?.has(s.subsetPath) || fetched.get(p)?.has(s.woff2));
      const fullToo = loading.filter((p) => fetched.get(p)?.has(s.woff2));
      const subsetLoads = loading.filter((p) => fetched.get(p)?.has(s.subsetPath)).length;
      const before = loading.length * full;
      const after = subsetLoads * s.subset.length + fullToo.length * full;
      const why = fullToo.length ? `; the full font still loads on ${fullToo.length} of ${loading.length} pages (${fullToo.slice(0, 3).map((p) => `${p}${s.notInFont.has(p) ? `: shows ${s.notInFont.get(p)?.slice(0, 5).map(codePointName).join(' ')}, not in the font` : ''}`).join('; ')})` : '';
      const figures = `${s.characters.length} characters of font-family "${s.family}" (${s.shownCount} shown, ${s.characters.length - s.shownCount} for hinting), ${full} → ${s.subset.length} B, drawn alike in Chromium; fonts loaded by the ${loading.length} pages that use it: ${before} → ${after} B${why}`;
      if (loading.length === 0 || after >= before) ctx.decide({ file: s.source, action: 'kept', reason: `not subset: it would not save bytes (${figures})` });
      else kept.push({ subset: s, reason: `subset ${s.subsetPath} in a rule after the full font's in ${s.document}: ${figures}` });
    }
    for (const file of new Set(kept.map((k) => k.subset.subsetPath))) await site.add(file, /** @type {Buffer} */ (overlay.get(file)));
    /** @type {Set<string>} documents that refused their subset rules */
    const refused = new Set();
    for (const [document, bytes] of await rewritten(kept.map((k) => k.subset))) {
      written(document);
      const expected = kept.filter((k) => k.subset.document === document).map((k) => k.subset.subsetPath);
      if (await writeResolving(site, document, bytes, expected)) continue;
      refused.add(document);
      ctx.warn(document, 'font-reference-changed', 'a reference would no longer resolve as it did with the subset rules added: kept without them');
    }
    /** @type {Set<string>} */
    const counted = new Set();
    for (const { subset: s, reason } of kept) {
      if (refused.has(s.document)) {
        ctx.decide({ file: s.source, action: 'kept', reason: `not subset: ${s.document} would not take the subset's rule` });
        continue;
      }
      ctx.decide({ file: s.source, action: 'changed', reason });
      if (!counted.has(s.subsetPath)) ctx.touched(s.subsetPath, site.get(s.woff2).outputSize, s.subset.length);
      counted.add(s.subsetPath);
    }
    // A subset whose every rule was refused is not left in the output.
    for (const { subset: s } of kept) if (!counted.has(s.subsetPath) && site.files.has(s.subsetPath)) site.remove(s.subsetPath);
  } catch (error) {
    if (!(error instanceof PageFailed) && launched.browser.isConnected()) throw error;
    const reason = error instanceof PageFailed ? error.message : `Chromium went away: ${firstLine(error)}`;
    ctx.warn('', 'layout-failed', `fonts not subset: ${reason}`);
    for (const c of subsettable) ctx.decide({ file: c.source, action: 'kept', reason: `not subset: ${reason}` });
  } finally {
    await pagesOpen?.close();
  }
}

/**
 * What an entry of a src loads: a WOFF2, a font a WOFF2 can be made from,
 * or something else (EOT, SVG fonts); by its format() hints, else by the
 * name of the file.
 * @param {{ entry: import('../fonts/font-faces.js').SourceEntry, reference: Reference | null }} u
 * @returns {'woff2' | 'font' | 'other'}
 */
function entryKind({ entry, reference }) {
  const name = (reference?.target ?? reference?.url.split(/[?#]/)[0] ?? '').toLowerCase();
  if (entry.formats.some((f) => WOFF2_FORMATS.has(f)) || (!entry.formats.length && name.endsWith('.woff2'))) return 'woff2';
  const source = entry.formats.length ? entry.formats.some((f) => SOURCE_FORMATS.has(f)) : !/\.(eot|svgz?)$/.test(name);
  return source ? 'font' : 'other';
}

/**
 * Style sheets of font services that pages link or import.
 * @param {Site} site
 * @returns {{ document: string, url: string }[]}
 */
function remoteFontStylesheets(site) {
  const found = [];
  for (const file of site.files.values()) {
    if (!file.referenceTable) continue;
    for (const ref of file.references) {
      if (ref.status !== 'external' || !['stylesheet', 'css-import', 'preload'].includes(ref.kind)) continue;
      let host = '';
      try {
        host = new URL(ref.url.startsWith('//') ? `https:${ref.url}` : ref.url).hostname;
      } catch {
        continue;
      }
      if (FONT_SERVICES.has(host)) found.push({ document: file.path, url: ref.url });
    }
  }
  return found;
}

/**
 * Writes a document and keeps the write only when every reference it had
 * still resolves as it did and the new URLs resolve to the new files.
 * @param {Site} site
 * @param {string} document
 * @param {Buffer} bytes
 * @param {string[]} targets the files the new URLs must resolve to
 */
async function writeResolving(site, document, bytes, targets) {
  const file = site.get(document);
  const resolved = () => file.references.map((r) => `${r.kind}\n${r.url}\n${r.status}\n${r.target ?? ''}`);
  const before = new Set(resolved());
  return site.writeChecked(document, bytes, () => {
    const now = resolved();
    const nowSet = new Set(now);
    const newTargets = new Set(file.references.map((r) => r.target));
    return [...before].every((r) => nowSet.has(r)) && targets.every((t) => newTargets.has(t));
  });
}

/**
 * A name for a new font beside FILE, ending in SUFFIX.woff2, that no file of the site has.
 * @param {Site} site
 * @param {string} file
 * @param {string} suffix
 */
function freeName(site, file, suffix) {
  const dir = path.posix.dirname(file);
  const base = path.posix.basename(file).replace(/\.[^.]*$/, '');
  for (let n = 1; ; n++) {
    const name = `${base}${suffix}${n === 1 ? '' : `-${n}`}.woff2`;
    const candidate = dir === '.' ? name : `${dir}/${name}`;
    if (!site.files.has(candidate)) return candidate;
  }
}

/** @param {SiteFace} face */
function faceLabel(face) {
  return face.rule.family ? `font-family "${face.rule.family}"` : `@font-face rule ${face.index + 1}`;
}

/** @param {Uint8Array} bytes */
function sha256(bytes) {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

/** @param {number} before @param {number} after */
function percent(before, after) {
  return `${after <= before ? '-' : '+'}${(Math.abs(before - after) / before * 100).toFixed(1)}%`;
}

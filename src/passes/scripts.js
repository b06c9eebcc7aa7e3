/**
 * JavaScript minified with terser: the site's .js and .mjs files, and the
 * inline <script> blocks a browser runs as JavaScript (no type, an empty
 * one, a JavaScript MIME type, or module; never JSON, import maps,
 * speculation rules or templates). A classic script keeps its top-level
 * names, which other scripts and event handler attributes use; a module
 * (type=module, .mjs, or a file only modules import) has its own top-level
 * scope, mangled. A file that names a source map in the site has the map
 * composed with the minification and written under the same name. A file
 * or block is written only when smaller; one terser cannot parse is left as
 * it is and warned about. Pages change by the byte ranges of their blocks
 * only, and a rewritten page is parsed again to check that it has the same
 * <script> elements with the texts meant. Terser runs in the worker pool
 * (src/scripts/minify-job.js); docs/scripts.md has the settings and why.
 */
import crypto from 'node:crypto';
import { DocumentView } from '../site/document-view.js';
import { applyEdits } from '../site/edits.js';
import { xmlReason } from '../markup/names.js';
import { forEachOrdered } from '../util/ordered.js';
import { pageScripts, scriptTexts } from '../scripts/page-scripts.js';
import { scriptCharset } from '../scripts/file-charset.js';
import { isInlineMap, sourceMappingUrl } from '../scripts/source-map-url.js';
import { terserSettings } from '../scripts/terser-settings.js';

/**
 * @typedef {import('../site/site.js').Site} Site
 * @typedef {import('../site/site.js').SiteFile} SiteFile
 * @typedef {import('../build/pass.js').PassContext} PassContext
 * @typedef {import('../site/edits.js').Edit} Edit
 * @typedef {import('../scripts/page-scripts.js').InlineScript} InlineScript
 * @typedef {import('../scripts/minify-job.js').MinifyScriptResult} MinifyScriptResult
 * @typedef {import('../scripts/minify-job.js').MinifyScriptOptions} MinifyScriptOptions
 *
 * @typedef {{ module: boolean, charset: string }} Use how a script file is loaded: by a page, or imported by a module
 * @typedef {Map<string, Use[]>} Uses by the file's site path
 * @typedef {{ url: string, target: string | null }} NamedMap the source map a file names, and the site file it is
 */

/** Files the pass minifies. */
const SCRIPT_FILE = /\.m?js$/i;

/** @type {import('../build/pass.js').Pass} */
export default {
  name: 'scripts',
  description: 'JavaScript files and inline <script> blocks minified with terser',
  async run(site, ctx) {
    const files = [...site.files.values()].filter((f) => f.role === 'asset' && SCRIPT_FILE.test(f.path));
    const progress = { done: 0, total: site.pages.length + files.length };
    /** @type {Uses} */
    const uses = new Map();
    /** @type {Set<string>} files loaded with an integrity attribute */
    const pinned = new Set();
    await minifyPages(site, ctx, { uses, pinned }, progress);
    await minifyFiles(site, ctx, files, { uses, pinned }, progress);
  },
};

/**
 * The inline scripts of every page, and how each page loads script files.
 * @param {Site} site
 * @param {PassContext} ctx
 * @param {{ uses: Uses, pinned: Set<string> }} found filled in: how pages load each file, and which they load with an integrity attribute
 * @param {{ done: number, total: number }} progress
 */
async function minifyPages(site, ctx, { uses, pinned }, progress) {
  /** @type {Map<string, Promise<MinifyScriptResult>>} the same block on many pages (an analytics snippet) is minified once */
  const minified = new Map();
  const minify = (/** @type {Buffer} */ text, /** @type {MinifyScriptOptions} */ options) => {
    const key = `${crypto.createHash('sha256').update(text).digest('hex')} ${options.module} ${options.charset}`;
    let result = minified.get(key);
    if (!result) {
      result = ctx.compute('minifyScript', text, options);
      minified.set(key, result);
    }
    return result;
  };
  await forEachOrdered(site.pages, async (page) => {
    const bytes = await site.read(page.path).catch(() => null);
    if (!bytes) return null;
    const charset = /** @type {string} */ (page.charset);
    const view = new DocumentView(bytes, charset, page.bomLength);
    const found = pageScripts(view, page.references);
    // In XML, a <script> holds markup (CDATA sections, entities), not raw text: its files count, its text is not read here.
    const xml = xmlReason(view, page.mime);
    const scripts = xml || found.hashPolicy ? [] : found.inline.filter((s) => /[^\t\n\f\r ]/.test(bytes.subarray(s.start, s.end).toString('latin1')));
    const results = await Promise.all(scripts.map((script) => minifyInline(minify, bytes.subarray(script.start, script.end), script, charset)));
    return { bytes, view, found, xml, scripts, results };
  }, async (entry, page) => {
    ctx.progress(page.path, { done: ++progress.done, total: progress.total });
    if (!entry) return;
    const { bytes, view, found, xml, scripts, results } = entry;
    for (const use of found.uses) addUse(uses, use.target, use);
    for (const target of found.pinned) pinned.add(target);
    if (xml && found.inline.length) ctx.decide({ file: page.path, action: 'skipped', reason: `XML document (${xml})` });
    else if (found.hashPolicy && found.inline.length) ctx.decide({ file: page.path, action: 'kept', reason: 'its Content-Security-Policy allows scripts by hash: a changed inline script would not run' });
    if (!scripts.length) return;
    /** @type {Edit[]} */
    const edits = [];
    /** @type {string[]} */
    const kept = [];
    /** @type {string[]} */
    const unparsable = [];
    /** @type {string[]} */
    const failed = [];
    scripts.forEach((script, i) => {
      const outcome = results[i];
      const where = `inline <script> at line ${script.line}`;
      if ('edit' in outcome) edits.push(outcome.edit);
      else kept.push(`${where}: ${outcome.reason}`);
      if ('unparsable' in outcome) unparsable.push(`${where}: ${outcome.unparsable}`);
      if ('failed' in outcome) failed.push(`${where}: ${outcome.failed}`);
      for (const target of importTargets(site, page, outcome.imports ?? [])) addUse(uses, target, { module: true, charset: 'utf-8' });
    });
    if (failed.length) {
      const first = failed.length === 1 ? failed[0] : `${failed.length} inline scripts failed; the first, ${failed[0]}`;
      ctx.warn(page.path, 'script-minify-failed', `${first}; copied unchanged`);
    }
    if (unparsable.length) {
      const first = unparsable.length === 1 ? unparsable[0] : `${unparsable.length} inline scripts do not parse; the first, ${unparsable[0]}`;
      ctx.warn(page.path, 'script-unparsable', `${first}; copied unchanged`);
    }
    if (!edits.length) {
      ctx.decide({ file: page.path, action: 'kept', reason: kept.length === 1 ? kept[0] : `${kept.length} inline scripts kept; the first, ${kept[0]}` });
      return;
    }
    const output = applyEdits(bytes, edits);
    if (!sameScripts(view, output, edits)) {
      ctx.warn(page.path, 'script-would-break', 'the page with its scripts minified would not have the same <script> elements: copied unchanged');
      ctx.decide({ file: page.path, action: 'kept', reason: 'the rewritten page would not have the same <script> elements' });
      return;
    }
    await site.write(page.path, output);
    ctx.touched(page.path, bytes.length, output.length);
    const note = kept.length ? `; ${kept.length} kept (${kept[0]})` : '';
    ctx.decide({ file: page.path, action: 'changed', reason: `${edits.length} inline script${edits.length === 1 ? '' : 's'} minified, ${bytes.length} → ${output.length} B${note}` });
  });
}

/**
 * One inline block: its edit, or why it stays.
 * @param {(text: Buffer, options: MinifyScriptOptions) => Promise<MinifyScriptResult>} minify the job, in the worker pool
 * @param {Buffer} text the block's bytes
 * @param {InlineScript} script
 * @param {string} charset the page's
 * @returns {Promise<{ edit: Edit, imports: string[] } | { reason: string, unparsable?: string, failed?: string, imports?: string[] }>}
 */
async function minifyInline(minify, text, script, charset) {
  // The HTML parser reads a NUL in a script as U+FFFD; terser would write it back as a NUL escape.
  if (text.includes(0)) return { reason: 'holds a NUL byte' };
  // Non-ASCII characters written as they are only where the page's charset holds them all.
  const asciiOnly = !/^utf-(8|16le|16be)$/.test(charset);
  const result = await minify(text, jobOptions({ module: script.module, charset, asciiOnly, sourceMap: null }));
  if (result.status === 'unparsable') {
    // Where terser stopped, in the page: the script's first line starts after its start tag.
    const line = script.line + result.line - 1;
    const column = result.line === 1 ? script.column + result.column - 1 : result.column;
    const message = `terser cannot parse it: ${result.message} at ${line}:${column}`;
    return { reason: message, unparsable: message };
  }
  if (result.status !== 'minified') return notMinified(result, charset);
  const imports = result.module ? result.imports : [];
  // The text must not end the element early nor start an escaped state: terser escapes these in strings, not in comments.
  if (/<\/script/i.test(result.code) || result.code.includes('<!--')) return { reason: 'the minified text would hold "</script" or "<!--"', imports };
  const worse = notSmaller(result, text.length, charset);
  if (worse) return { reason: worse, imports };
  return { edit: { start: script.start, end: script.end, bytes: /** @type {Buffer} */ (result.bytes) }, imports };
}

/**
 * Why a minified script is not worth writing, or null when it is: its
 * charset cannot hold it, or it is not smaller, or it is smaller but larger
 * gzipped (an already minified file mangled again compresses worse), which
 * is what a server sends.
 * @param {Extract<MinifyScriptResult, { status: 'minified' }>} result
 * @param {number} size the script's bytes before (a file's with its byte order mark)
 * @param {string} charset
 * @param {number} [bomLength] the byte order mark the output keeps
 * @returns {string | null}
 */
function notSmaller(result, size, charset, bomLength = 0) {
  if (!result.bytes) return `the minified text has characters ${charset} cannot hold`;
  const after = bomLength + result.bytes.length;
  if (after >= size) return `not smaller once minified (${after} B against ${size} B)`;
  if (result.gzip.after > result.gzip.before) return `larger gzipped once minified (${result.gzip.after} B against ${result.gzip.before} B)`;
  return null;
}

/**
 * Why a script's result is not minified text, with the warning it needs.
 * @param {Exclude<MinifyScriptResult, { status: 'minified' | 'unparsable' }>} result
 * @param {string} charset
 * @returns {{ reason: string, failed?: string }}
 */
function notMinified(result, charset) {
  if (result.status === 'json') return { reason: 'a JSON value, not a script' };
  if (result.status === 'charset') return { reason: `not exact ${charset} text (invalid bytes, or a multi-byte charset pagediet does not re-encode)` };
  return { reason: `terser failed (${result.reason})`, failed: `terser failed: ${result.reason}` };
}

/**
 * Whether a rewritten page has the same <script> elements as before, each
 * with its old text or the text an edit gave it.
 * @param {DocumentView} before
 * @param {Buffer} output
 * @param {Edit[]} edits
 */
function sameScripts(before, output, edits) {
  const replaced = new Map(edits.map((e) => [e.start, e.bytes]));
  const expected = scriptTexts(before).map((s) => replaced.get(s.start) ?? s.bytes);
  const actual = scriptTexts(new DocumentView(output, before.charset, before.bomLength));
  return actual.length === expected.length && actual.every((s, i) => s.bytes.equals(expected[i]));
}

/**
 * The script files: modules first, round by round as their imports reveal
 * more modules, then the others as classic scripts.
 * @param {Site} site
 * @param {PassContext} ctx
 * @param {SiteFile[]} files
 * @param {{ uses: Uses, pinned: Set<string> }} found how pages load each file, and which they load with an integrity attribute
 * @param {{ done: number, total: number }} progress
 */
async function minifyFiles(site, ctx, files, { uses, pinned }, progress) {
  const maps = await namedMaps(site, files);
  /** @type {Map<string, number>} how many scripts name each map file */
  const mapNamers = new Map();
  for (const named of maps.values()) if (named.target) mapNamers.set(named.target, (mapNamers.get(named.target) ?? 0) + 1);
  const classic = (/** @type {SiteFile} */ f) => (uses.get(f.path) ?? []).some((u) => !u.module);
  const module = (/** @type {SiteFile} */ f) => !classic(f) && (/\.mjs$/i.test(f.path) || (uses.get(f.path) ?? []).some((u) => u.module));
  /** @type {Set<string>} */
  const done = new Set();
  /** @param {SiteFile[]} batch @param {boolean} asModules */
  const minifyBatch = (batch, asModules) => forEachOrdered(batch, async (file) => {
    done.add(file.path);
    return prepareFile(site, ctx, file, { module: asModules, uses: uses.get(file.path) ?? [], pinned: pinned.has(file.path), named: maps.get(file.path) ?? null, mapNamers });
  }, async (prepared, file) => {
    ctx.progress(file.path, { done: ++progress.done, total: progress.total });
    const imports = await finishFile(site, ctx, file, prepared);
    for (const target of importTargets(site, file, imports)) addUse(uses, target, { module: true, charset: 'utf-8' });
  });
  for (let round = files.filter(module); round.length; round = files.filter((f) => !done.has(f.path) && module(f))) {
    await minifyBatch(round, true);
  }
  await minifyBatch(files.filter((f) => !done.has(f.path)), false);
}

/**
 * The source map each script file names, read from its last lines.
 * @param {Site} site
 * @param {SiteFile[]} files
 * @returns {Promise<Map<string, NamedMap>>}
 */
async function namedMaps(site, files) {
  /** @type {Map<string, NamedMap>} */
  const maps = new Map();
  for (const file of files) {
    const bytes = await site.read(file.path).catch(() => null);
    if (!bytes) continue;
    const wide = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
    const text = wide ? new TextDecoder(bytes[0] === 0xff ? 'utf-16le' : 'utf-16be').decode(bytes) : bytes.toString('latin1');
    const url = sourceMappingUrl(text);
    if (!url) continue;
    if (isInlineMap(url)) {
      maps.set(file.path, { url, target: null });
      continue;
    }
    const ref = site.resolve(file, { kind: 'link', url, start: 0, end: 0 });
    maps.set(file.path, { url, target: ref.status === 'ok' && ref.target ? ref.target : null });
  }
  return maps;
}

/**
 * @typedef {{ bytes: Buffer, bomLength: number, charset: string, result: MinifyScriptResult, map: string | null }
 *   | { bytes?: Buffer, action: 'kept' | 'skipped', reason: string, warning?: [string, string] } | null} PreparedFile
 *   map: the site path of the source map the result composes
 */

/**
 * Reads a script file and minifies it in the worker pool, or says why not.
 * @param {Site} site
 * @param {PassContext} ctx
 * @param {SiteFile} file
 * @param {{ module: boolean, uses: Use[], pinned: boolean, named: NamedMap | null, mapNamers: Map<string, number> }} how
 *   pinned: a page loads it with an integrity attribute
 * @returns {Promise<PreparedFile>}
 */
async function prepareFile(site, ctx, file, { module, uses, pinned, named, mapNamers }) {
  const bytes = await site.read(file.path).catch(() => null);
  if (!bytes) return null;
  if (!bytes.length) return { action: 'skipped', reason: 'empty' };
  if (pinned) return { bytes, action: 'kept', reason: 'a page loads it with an integrity attribute: changed bytes would not load' };
  const read = scriptCharset(bytes, uses);
  if ('reason' in read) return { bytes, action: 'kept', reason: read.reason };
  /** @type {MinifyScriptOptions['sourceMap']} */
  let sourceMap = null;
  if (named && isInlineMap(named.url)) sourceMap = { inline: true };
  else if (named && !named.target) return { bytes, action: 'kept', reason: `names a source map that is not in the site (${named.url})` };
  else if (named?.target && (mapNamers.get(named.target) ?? 0) > 1) return { bytes, action: 'kept', reason: `names a source map other scripts name too (${named.target})` };
  else if (named?.target) {
    const content = (await site.read(named.target)).toString('utf8');
    if (!isJsonObject(content)) return { bytes, action: 'kept', reason: `its source map ${named.target} is not JSON`, warning: ['script-source-map-invalid', `its source map ${named.target} is not a JSON object: copied unchanged`] };
    sourceMap = { content, url: named.url };
  }
  /** @type {MinifyScriptOptions} */
  const options = jobOptions({ module, charset: read.charset, asciiOnly: read.asciiOnly, sourceMap });
  const result = /** @type {MinifyScriptResult} */ (await ctx.compute('minifyScript', bytes.subarray(read.bomLength), options));
  return { bytes, bomLength: read.bomLength, charset: read.charset, result, map: named?.target ?? null };
}

/**
 * Writes a minified file (and its composed source map) when smaller, and records the decision.
 * @param {Site} site
 * @param {PassContext} ctx
 * @param {SiteFile} file
 * @param {PreparedFile} prepared
 * @returns {Promise<string[]>} what the file imports, when it is a module
 */
async function finishFile(site, ctx, file, prepared) {
  if (!prepared) return [];
  if ('action' in prepared) {
    if (prepared.warning) ctx.warn(file.path, ...prepared.warning);
    ctx.decide({ file: file.path, action: prepared.action, reason: prepared.reason });
    return [];
  }
  const { bytes, bomLength, charset, result, map } = prepared;
  if (result.status === 'unparsable') {
    const message = `terser cannot parse it: ${result.message} at ${result.line}:${result.column}`;
    ctx.warn(file.path, 'script-unparsable', `${message}; copied unchanged`);
    ctx.decide({ file: file.path, action: 'kept', reason: message });
    return [];
  }
  if (result.status !== 'minified') {
    const outcome = notMinified(result, charset);
    if (outcome.failed) ctx.warn(file.path, 'script-minify-failed', `${outcome.failed}; copied unchanged`);
    ctx.decide({ file: file.path, action: result.status === 'json' ? 'skipped' : 'kept', reason: outcome.reason });
    return [];
  }
  const imports = result.module ? result.imports : [];
  const worse = notSmaller(result, bytes.length, charset, bomLength);
  if (worse) {
    ctx.decide({ file: file.path, action: 'kept', reason: worse });
    return imports;
  }
  const output = Buffer.concat([bytes.subarray(0, bomLength), /** @type {Buffer} */ (result.bytes)]);
  await site.write(file.path, output);
  ctx.touched(file.path, bytes.length, output.length);
  const as = result.module ? ' as a module' : '';
  if (map && result.map) {
    const before = site.get(map).outputSize;
    const mapBytes = Buffer.from(result.map, 'utf8');
    await site.write(map, mapBytes);
    ctx.touched(map, before, mapBytes.length);
    ctx.decide({ file: map, action: 'changed', reason: `composed with the minification of ${file.path}, ${before} → ${mapBytes.length} B` });
  }
  ctx.decide({ file: file.path, action: 'changed', reason: `${bytes.length} → ${output.length} B${as}${map ? `, source map ${map} composed` : ''}` });
  return imports;
}

/**
 * What the job needs to minify one script: terser's settings for it as a
 * classic script and as a module (it finds out which when a classic one has
 * import or export declarations).
 * @param {{ module: boolean, charset: string, asciiOnly: boolean, sourceMap: MinifyScriptOptions['sourceMap'] }} script
 * @returns {MinifyScriptOptions}
 */
function jobOptions({ module, charset, asciiOnly, sourceMap }) {
  return { module, charset, sourceMap, settings: { classic: terserSettings({ module: false, asciiOnly }), module: terserSettings({ module: true, asciiOnly }) } };
}

/**
 * The script files a module imports, by the URLs it imports them by
 * (relative or absolute; bare specifiers go through an import map, which is
 * not read, and stay unknown).
 * @param {Site} site
 * @param {SiteFile} from the module's file, or the page of an inline module
 * @param {string[]} specifiers
 */
function importTargets(site, from, specifiers) {
  /** @type {string[]} */
  const targets = [];
  for (const url of specifiers) {
    if (!/^(\.{0,2}\/|[a-z][a-z0-9+.-]*:)/i.test(url)) continue;
    const ref = site.resolve(from, { kind: 'script', url, start: 0, end: 0 });
    if (ref.status === 'ok' && ref.target && SCRIPT_FILE.test(ref.target)) targets.push(ref.target);
  }
  return targets;
}

/** @param {Uses} uses @param {string} target @param {Use} use */
function addUse(uses, target, use) {
  const list = uses.get(target);
  if (list) list.push({ module: use.module, charset: use.charset });
  else uses.set(target, [{ module: use.module, charset: use.charset }]);
}

/** @param {string} text */
function isJsonObject(text) {
  try {
    const value = JSON.parse(text);
    return Boolean(value) && typeof value === 'object' && !Array.isArray(value);
  } catch {
    return false;
  }
}

/**
 * The worker job that minifies one script with terser (src/build/jobs.js exports
 * it): the bytes of a JavaScript file or of an inline <script> block, read in
 * the charset the pass chose, parsed once to tell a module from a classic
 * script and to list its imports, then minified with the settings the pass
 * gives (src/scripts/terser-settings.js), and written in the same charset.
 * The pass decides what to keep; the job only reports, with the gzipped sizes
 * before and after, so its cached result does not depend on thresholds.
 */
import zlib from 'node:zlib';
import { minify } from 'terser';
import { decodeExact, encodeExact } from '../markup/codec.js';

/**
 * @typedef {object} MinifyScriptOptions
 * @property {boolean} module the script is a module (type=module, .mjs, imported by a module); otherwise classic,
 *   unless it has import or export declarations, which only a module can have
 * @property {string} charset how its bytes are read (without a byte order mark)
 * @property {{ classic: import('terser').MinifyOptions, module: import('terser').MinifyOptions }} settings terser's, for
 *   either kind of script (terser-settings.js)
 * @property {{ content: string, url: string } | { inline: true } | null} sourceMap the source map the file names: its JSON
 *   text and the URL the file names it by (the updated map goes to the same URL), or a map inline in a data: URL
 *
 * @typedef {{ status: 'minified', code: string, bytes: Buffer | null, gzip: { before: number, after: number }, map: string | null, module: boolean, imports: string[] }
 *   | { status: 'unparsable', message: string, line: number, column: number }
 *   | { status: 'json' }
 *   | { status: 'charset' }
 *   | { status: 'failed', reason: string }} MinifyScriptResult
 *   minified: the code, its bytes in the charset (null when the charset cannot hold a character of it), the sizes
 *   of the input and output bytes gzipped (zlib level 9), the composed source map when one was given as content;
 *   unparsable: terser's message, with line and column (1-based) in the script's text
 */

/**
 * @param {{ bytes: Uint8Array, options: MinifyScriptOptions }} input
 * @returns {Promise<MinifyScriptResult>}
 */
export async function minifyScript({ bytes, options }) {
  const text = decodeExact(bytes, options.charset);
  if (text === null) return { status: 'charset' };
  if (isJson(text)) return { status: 'json' };
  /** @type {{ body: { TYPE: string }[], to_mozilla_ast(): object }} terser's tree (format.ast, which its types do not list) */
  let ast;
  try {
    const parseOnly = /** @type {import('terser').MinifyOptions} */ ({ module: options.module, compress: false, mangle: false, format: { ast: true, code: false } });
    ast = /** @type {any} */ (await minify(text, parseOnly)).ast;
  } catch (error) {
    return failure(error);
  }
  const module = options.module || ast.body.some((statement) => statement.TYPE === 'Import' || statement.TYPE === 'Export');
  try {
    /** @type {import('terser').MinifyOptions} */
    const settings = { ...options.settings[module ? 'module' : 'classic'] };
    const given = options.sourceMap;
    /** @type {Record<string, any> | null} */
    let inputMap = null;
    if (given && 'content' in given) {
      inputMap = JSON.parse(given.content);
      settings.sourceMap = { content: /** @type {any} */ (withoutSourceRoot(/** @type {Record<string, any>} */ (inputMap))), url: given.url, includeSources: Array.isArray(inputMap?.sourcesContent) };
    } else if (given) {
      settings.sourceMap = { content: 'inline', url: 'inline', includeSources: true };
    }
    const result = await minify(text, settings);
    const map = inputMap && typeof result.map === 'string' ? restoreMapFields(result.map, inputMap) : null;
    const code = result.code ?? '';
    const output = encodeExact(code, options.charset);
    const gzip = { before: gzipSize(bytes), after: output ? gzipSize(output) : 0 };
    return { status: 'minified', code, bytes: output, gzip, map, module, imports: module ? importSpecifiers(ast.to_mozilla_ast()) : [] };
  } catch (error) {
    return failure(error);
  }
}

/** What a server's gzip would send (at its strongest level). @param {Uint8Array} bytes */
function gzipSize(bytes) {
  return zlib.gzipSync(bytes, { level: 9 }).length;
}

/** JSON that a .js file holds (data fetched by name), which is not a script to minify. @param {string} text */
function isJson(text) {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * A syntax error as terser reports it, or any other failure.
 * @param {unknown} error
 * @returns {MinifyScriptResult}
 */
function failure(error) {
  const e = /** @type {{ name?: string, message?: string, line?: number, col?: number }} */ (error);
  if (e?.name === 'SyntaxError' && typeof e.line === 'number' && typeof e.col === 'number') {
    return { status: 'unparsable', message: String(e.message).split('\n')[0], line: e.line, column: e.col + 1 };
  }
  return { status: 'failed', reason: String(e?.message ?? error).split('\n')[0] };
}

/**
 * The input map without its sourceRoot: terser would join the root to each
 * source (a root of "/" makes "//src/a.js", a host name); restoreMapFields
 * puts it back on the map it writes.
 * @param {Record<string, any>} map
 */
function withoutSourceRoot(map) {
  const { sourceRoot: _root, ...rest } = map;
  return rest;
}

/**
 * The composed map with the input map's `file` and `sourceRoot`, which terser does not carry over.
 * @param {string} composed
 * @param {Record<string, any>} input
 */
function restoreMapFields(composed, input) {
  const map = JSON.parse(composed);
  /** @type {Record<string, any>} */
  const out = { version: map.version };
  if (typeof input.file === 'string') out.file = input.file;
  if (typeof input.sourceRoot === 'string') out.sourceRoot = input.sourceRoot;
  return JSON.stringify({ ...out, ...map, ...out });
}

/**
 * The module specifiers a module imports: import and export-from
 * declarations, and import() of a string, in source order.
 * @param {object} program an ESTree Program
 */
function importSpecifiers(program) {
  /** @type {string[]} */
  const found = [];
  /** @type {unknown[]} */
  const stack = [program];
  while (stack.length) {
    const node = /** @type {Record<string, any>} */ (stack.pop());
    if (!node || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push(node[i]);
      continue;
    }
    const source = node.source;
    if (/^(ImportDeclaration|ExportAllDeclaration|ExportNamedDeclaration|ImportExpression)$/.test(node.type) && source?.type === 'Literal' && typeof source.value === 'string') {
      found.push(source.value);
    }
    for (const key of Object.keys(node).reverse()) {
      if (key !== 'loc' && key !== 'range') stack.push(node[key]);
    }
  }
  return found;
}

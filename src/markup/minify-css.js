/**
 * csso, with the checks that let the css pass trust its output. Property
 * names are lowered first (1990s style sheets wrote COLOR: and csso only
 * knows color:). CSS that
 * csso's parser (css-tree) reports errors in is not minified (css-tree would
 * keep the broken part as raw text and csso may then fail or drop it), and a
 * result is refused when it would lose a URL, a `/*! ... *\/` comment or the
 * `@charset` rule.
 */
import { syntax as csso } from 'csso';
import { string as cssString } from 'css-tree';
import { cssUrls } from '../site/css-refs.js';

/**
 * @typedef {'stylesheet' | 'declarationList'} CssContext a style sheet or <style> block; a style attribute
 * @typedef {{ ok: true, css: string } | { ok: false, code: 'css-invalid' | 'css-csso-failed' | 'css-would-lose', reason: string }} MinifyResult
 * @typedef {import('csso').ParseError} ParseError
 */

/**
 * Minifies CSS as csso.minify (a style sheet, structural optimisations on) or
 * csso.minifyBlock (the declarations of a style attribute) would.
 * @param {string} source decoded CSS, without a byte order mark
 * @param {CssContext} context
 * @returns {MinifyResult}
 */
export function minifyCss(source, context) {
  /** @type {ParseError[]} */
  const errors = [];
  let css;
  try {
    const ast = csso.parse(source, { context, onParseError: (error) => errors.push(error) });
    if (errors.length) {
      const e = errors[0];
      return { ok: false, code: 'css-invalid', reason: `csso cannot parse it (line ${e.line}, column ${e.column}: ${e.message}${errors.length > 1 ? `; ${errors.length - 1} more` : ''})` };
    }
    // Property names are ASCII case-insensitive (custom properties excepted); csso only recognizes them in lower case.
    csso.walk(ast, { visit: 'Declaration', enter: (node) => { if (node.property && !node.property.startsWith('--')) node.property = node.property.replace(/[A-Z]+/g, (m) => m.toLowerCase()); } });
    css = csso.generate(csso.compress(ast, { restructure: true, comments: 'exclamation' }).ast);
  } catch (error) {
    return { ok: false, code: 'css-csso-failed', reason: `csso failed: ${String(/** @type {Error} */ (error).message).split('\n')[0]}` };
  }
  const lost = lostContent(source, css);
  if (lost) return { ok: false, code: 'css-would-lose', reason: `csso would ${lost}` };
  return { ok: true, css };
}

/**
 * What the minified CSS lost that must stay, or null.
 * @param {string} before
 * @param {string} after
 */
function lostContent(before, after) {
  const urlsBefore = new Set(urlValues(before));
  const urlsAfter = new Set(urlValues(after));
  for (const url of urlsBefore) if (!urlsAfter.has(url)) return `drop the reference ${JSON.stringify(url)}`;
  for (const url of urlsAfter) if (!urlsBefore.has(url)) return `add the reference ${JSON.stringify(url)}`;
  for (const comment of before.match(/\/\*![\s\S]*?\*\//g) ?? []) {
    if (!after.includes(comment)) return `drop the comment ${JSON.stringify(comment.slice(0, 40))}`;
  }
  const charset = /^@charset "[^"]*";/.exec(before)?.[0];
  if (charset && !after.startsWith(charset)) return `move or change ${charset}`;
  return null;
}

/**
 * Every URL of CSS text, decoded as the site model reads them.
 * @param {string} css
 */
function urlValues(css) {
  return cssUrls(css).map((u) => {
    const raw = css.slice(u.start, u.end);
    return u.escaped ? cssString.decode(`"${raw}"`) : raw;
  });
}

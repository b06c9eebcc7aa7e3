/**
 * CSS minified with csso: style sheets and <style> blocks with csso's
 * structural optimisations (merged rules and declarations), style attributes
 * declarations only (csso.minifyBlock). Text is decoded with the file's
 * charset and written back in it, a byte order mark kept. CSS that csso
 * cannot parse, or whose result would lose a URL, a `/*! ... *\/` comment or
 * the @charset rule, is kept as it was and reported. After a file is
 * rewritten, the site model reads its references again; if one no longer
 * resolves to the same file, the file is put back.
 */
import { DocumentView } from '../site/document-view.js';
import { applyEdits } from '../site/edits.js';
import { decodeExact, encodeExact } from '../markup/codec.js';
import { minifyCss } from '../markup/minify-css.js';
import { pageCssEdits } from '../markup/page-css.js';
import { xmlReason } from '../markup/names.js';

/**
 * @typedef {import('../site/site.js').Site} Site
 * @typedef {import('../site/site.js').SiteFile} SiteFile
 * @typedef {import('../pipeline.js').PassContext} PassContext
 */

/** Codes of CSS pagediet keeps because it is broken or csso would damage it: warned about. Others are only decisions. */
const WARNED = new Set(['css-invalid', 'css-csso-failed', 'css-would-lose']);

/** @type {import('../pass.js').Pass} */
export default {
  name: 'css',
  description: 'style sheets, <style> blocks and style attributes minified with csso',
  async run(site, ctx) {
    for (const file of site.stylesheets) await minifyStylesheet(site, ctx, file);
    for (const page of site.pages) await minifyPageCss(site, ctx, page);
  },
};

/**
 * @param {Site} site
 * @param {PassContext} ctx
 * @param {SiteFile} file
 */
async function minifyStylesheet(site, ctx, file) {
  const bytes = await site.read(file.path);
  const charset = /** @type {string} */ (file.charset);
  const bom = bytes.subarray(0, file.bomLength);
  const keep = (/** @type {string} */ code, /** @type {string} */ reason) => {
    if (WARNED.has(code)) ctx.warn(file.path, code, `${reason}: kept as it is`);
    ctx.decide({ file: file.path, action: 'kept', reason });
  };
  const text = decodeExact(bytes.subarray(file.bomLength), charset);
  if (text === null) return keep('css-charset', `not exact ${charset} text (invalid bytes, or a multi-byte charset pagediet does not re-encode)`);
  const minified = minifyCss(text, 'stylesheet');
  if (!minified.ok) return keep(minified.code, minified.reason);
  const encoded = encodeExact(minified.css, charset);
  if (!encoded) return keep('css-charset', `the minified CSS has characters ${charset} cannot hold`);
  const output = Buffer.concat([bom, encoded]);
  if (output.length >= bytes.length) return keep('css-not-smaller', `csso's result not smaller (${output.length} B against ${bytes.length} B)`);
  if (!(await writeKeepingReferences(site, file, output))) return keep('css-would-lose', 'a reference would no longer resolve to the same file after minifying');
  ctx.touched(file.path, bytes.length, output.length);
  ctx.decide({ file: file.path, action: 'changed', reason: `${bytes.length} → ${output.length} B${bom.length ? ', byte order mark kept' : ''}` });
}

/**
 * @param {Site} site
 * @param {PassContext} ctx
 * @param {SiteFile} page
 */
async function minifyPageCss(site, ctx, page) {
  const bytes = await site.read(page.path);
  const view = new DocumentView(bytes, /** @type {string} */ (page.charset), page.bomLength);
  // In XML, <style> holds markup (CDATA sections, entities), not raw text: not read as HTML here.
  const xml = xmlReason(view, page.mime);
  if (xml) {
    ctx.decide({ file: page.path, action: 'skipped', reason: `XML document (${xml})` });
    return;
  }
  const found = pageCssEdits(view);
  const broken = found.kept.filter((k) => WARNED.has(k.code));
  if (broken.length) {
    const first = broken[0];
    ctx.warn(page.path, first.code, `${broken.length === 1 ? '' : `${broken.length} pieces of CSS kept as they are; first: `}${first.what}: ${first.reason}${broken.length === 1 ? ': kept as it is' : ''}`);
  }
  if (found.edits.length === 0) {
    if (found.kept.length) ctx.decide({ file: page.path, action: 'kept', reason: `CSS kept: ${found.kept[0].what}: ${found.kept[0].reason}` });
    return;
  }
  const output = applyEdits(bytes, found.edits);
  if (!(await writeKeepingReferences(site, page, output))) {
    ctx.warn(page.path, 'css-would-lose', 'a reference would no longer resolve to the same file after minifying its CSS: kept as it is');
    ctx.decide({ file: page.path, action: 'kept', reason: 'a reference would no longer resolve to the same file' });
    return;
  }
  ctx.touched(page.path, bytes.length, output.length);
  const kept = found.kept.length ? `; ${found.kept.length} kept` : '';
  ctx.decide({ file: page.path, action: 'changed', reason: `${found.blocks} <style> blocks and ${found.attributes} style attributes minified${kept}, ${bytes.length} → ${output.length} B` });
}

/**
 * Writes a file and keeps the write only when its references still resolve as they did.
 * @param {Site} site
 * @param {SiteFile} file
 * @param {Buffer} after
 */
async function writeKeepingReferences(site, file, after) {
  const resolved = () => new Set(file.references.map((r) => `${r.kind}\n${r.url}\n${r.status}\n${r.target ?? ''}`));
  const old = resolved();
  return site.writeChecked(file.path, after, () => {
    const now = resolved();
    return old.size === now.size && [...old].every((r) => now.has(r));
  });
}

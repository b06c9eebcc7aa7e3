/**
 * CSS minified with csso: style sheets and <style> blocks with csso's
 * structural optimisations (merged rules and declarations), style attributes
 * declarations only (csso.minifyBlock). Text is decoded with the file's
 * charset and written back in it, a byte order mark kept. CSS that csso
 * cannot parse, or whose result would lose a URL, a `/*! ... *\/` comment or
 * the @charset rule, is kept as it was and reported. After a file is
 * rewritten, the site model reads its references again; if one no longer
 * resolves to the same file, the file is put back. Pages are minified, and
 * the minified pages parsed, in the worker pool (the pageCss job, and the
 * site model's parsePage).
 */
import { decodeExact, encodeExact } from '../markup/codec.js';
import { minifyCss } from '../markup/minify-css.js';
import { pageCss } from '../markup/page-css-job.js';
import { forEachOrdered } from '../util/ordered.js';

/**
 * @typedef {import('../site/site.js').Site} Site
 * @typedef {import('../site/site.js').SiteFile} SiteFile
 * @typedef {import('../build/pipeline.js').PassContext} PassContext
 * @typedef {import('../markup/page-css-job.js').PageCssJobResult} PageCssJobResult
 */

/** Codes of CSS pagediet keeps because it is broken or csso would damage it: warned about. Others are only decisions. */
const WARNED = new Set(['css-invalid', 'css-csso-failed', 'css-would-lose']);

/** @type {import('../build/pass.js').Pass} */
export default {
  name: 'css',
  description: 'style sheets, <style> blocks and style attributes minified with csso',
  async run(site, ctx) {
    for (const file of site.stylesheets) await minifyStylesheet(site, ctx, file);
    // Pages are minified, and the minified pages parsed, in the worker pool (when they are worth its start), a window
    // at a time; written in page order.
    await forEachOrdered(site.pages, async (page) => {
      const bytes = await site.read(page.path);
      /** @type {import('../markup/page-css-job.js').PageCssOptions} */
      const options = { charset: /** @type {string} */ (page.charset), bomLength: page.bomLength, mime: page.mime };
      /** @type {PageCssJobResult | { status: 'failed', reason: string }} */
      const result = site.pagesWorthThePool ? await ctx.compute('pageCss', bytes, options) : pageCss({ bytes, options });
      if (!('outcome' in result) || result.outcome !== 'minified') return { size: bytes.length, result, minified: null };
      const output = Buffer.from(result.output.buffer, result.output.byteOffset, result.output.byteLength);
      return { size: bytes.length, result, minified: { output, parsed: await site.parsePage(output) } };
    }, ({ size, result, minified }, page) => takePageCss(site, ctx, page, size, result, minified));
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
 * @param {number} size its bytes before
 * @param {PageCssJobResult | { status: 'failed', reason: string }} result
 * @param {{ output: Buffer, parsed: import('../site/parse.js').ParsedPage } | null} minified the page minified, and what parsing it found
 */
async function takePageCss(site, ctx, page, size, result, minified) {
  if ('status' in result) {
    ctx.warn(page.path, 'job-failed', `kept as it is: ${result.reason}`);
    ctx.decide({ file: page.path, action: 'kept', reason: result.reason });
    return;
  }
  if (result.outcome === 'xml') {
    ctx.decide({ file: page.path, action: 'skipped', reason: `XML document (${result.xml})` });
    return;
  }
  const broken = result.kept.filter((k) => WARNED.has(k.code));
  if (broken.length) {
    const first = broken[0];
    ctx.warn(page.path, first.code, `${broken.length === 1 ? '' : `${broken.length} pieces of CSS kept as they are; first: `}${first.what}: ${first.reason}${broken.length === 1 ? ': kept as it is' : ''}`);
  }
  if (result.outcome === 'unchanged') {
    if (result.kept.length) ctx.decide({ file: page.path, action: 'kept', reason: `CSS kept: ${result.kept[0].what}: ${result.kept[0].reason}` });
    return;
  }
  const { output, parsed } = /** @type {NonNullable<typeof minified>} */ (minified);
  if (!(await writeKeepingReferences(site, page, output, parsed))) {
    ctx.warn(page.path, 'css-would-lose', 'a reference would no longer resolve to the same file after minifying its CSS: kept as it is');
    ctx.decide({ file: page.path, action: 'kept', reason: 'a reference would no longer resolve to the same file' });
    return;
  }
  ctx.touched(page.path, size, output.length);
  const kept = result.kept.length ? `; ${result.kept.length} kept` : '';
  ctx.decide({ file: page.path, action: 'changed', reason: `${result.blocks} <style> blocks and ${result.attributes} style attributes minified${kept}, ${size} → ${output.length} B` });
}

/**
 * Writes a file and keeps the write only when its references still resolve as they did.
 * @param {Site} site
 * @param {SiteFile} file
 * @param {Buffer} after
 * @param {import('../site/parse.js').ParsedPage} [parsed] what parsing `after` found, for a page parsed elsewhere
 */
async function writeKeepingReferences(site, file, after, parsed) {
  const resolved = () => new Set(file.references.map((r) => `${r.kind}\n${r.url}\n${r.status}\n${r.target ?? ''}`));
  const old = resolved();
  return site.writeChecked(file.path, after, () => {
    const now = resolved();
    return old.size === now.size && [...old].every((r) => now.has(r));
  }, parsed);
}

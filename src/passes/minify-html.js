/**
 * Optional safe HTML minification (--minify-html, off by default): comments
 * removed, except conditional comments and `<!--! ... -->`, and whitespace
 * removed only where it cannot render (between block-level elements, never
 * in pre or textarea or inline content). A page whose CSS or scripts could
 * make whitespace visible (white-space, an inline display) keeps its
 * whitespace. Byte-range removals only; XML documents are left alone.
 */
import { DocumentView } from '../site/document-view.js';
import { applyEdits } from '../site/edits.js';
import { decodeBytes } from '../site/charset.js';
import { SHOWS_WHITESPACE, minifyHtmlEdits } from '../markup/minify-html.js';
import { xmlReason } from '../markup/names.js';

/** @type {import('../build/pass.js').Pass} */
export default {
  name: 'minify-html',
  description: 'comments and whitespace that cannot render removed (off by default)',
  enabledByDefault: false,
  async run(site, ctx) {
    /** @type {Map<string, RegExpExecArray | null>} what each style sheet says, read once however many pages load it */
    const sheets = new Map();
    for (const page of site.pages) {
      const bytes = await site.read(page.path);
      const view = new DocumentView(bytes, /** @type {string} */ (page.charset), page.bomLength);
      const xml = xmlReason(view, page.mime);
      if (xml) {
        ctx.decide({ file: page.path, action: 'skipped', reason: `XML document (${xml})` });
        continue;
      }
      const found = minifyHtmlEdits(view, { whitespaceShown: await whitespaceShownBySheets(site, page.path, sheets) });
      const note = found.whitespaceShown ? `; whitespace kept (${found.whitespaceShown})` : '';
      if (found.edits.length === 0) {
        ctx.decide({ file: page.path, action: 'kept', reason: `nothing to remove${note}` });
        continue;
      }
      let output;
      try {
        output = applyEdits(bytes, found.edits);
      } catch (error) {
        // Edits that do not fit the page (found by fuzzing: a comment left open at the end): the page stays as it is.
        ctx.warn(page.path, 'minify-html-failed', `kept as it is: ${/** @type {Error} */ (error).message}`);
        ctx.decide({ file: page.path, action: 'kept', reason: /** @type {Error} */ (error).message });
        continue;
      }
      await site.write(page.path, output);
      ctx.touched(page.path, bytes.length, output.length);
      ctx.decide({ file: page.path, action: 'changed', reason: `${found.comments} comments and ${found.whitespace} whitespace runs removed${note}, ${bytes.length} → ${output.length} B` });
    }
  },
};

/**
 * Why whitespace between blocks could render on a page because of a style
 * sheet it loads (one that mentions white-space or an inline display), or null.
 * @param {import('../site/site.js').Site} site
 * @param {string} pagePath
 * @param {Map<string, RegExpExecArray | null>} sheets findings by style sheet, filled as they are read
 * @returns {Promise<string | null>}
 */
async function whitespaceShownBySheets(site, pagePath, sheets) {
  const seen = new Set([pagePath]);
  const queue = [pagePath];
  while (queue.length) {
    const file = site.get(/** @type {string} */ (queue.shift()));
    for (const ref of file.references) {
      if ((ref.kind !== 'stylesheet' && ref.kind !== 'css-import') || ref.status !== 'ok' || !ref.target || seen.has(ref.target)) continue;
      seen.add(ref.target);
      queue.push(ref.target);
      let found = sheets.get(ref.target);
      if (found === undefined) {
        found = SHOWS_WHITESPACE.exec(decodeBytes(await site.read(ref.target), site.get(ref.target).charset ?? 'windows-1252'));
        sheets.set(ref.target, found);
      }
      if (found) return `${ref.target} says ${JSON.stringify(found[0])}`;
    }
  }
  return null;
}

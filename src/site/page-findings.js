/**
 * What parsing a page finds: its references, its `<base href>`, where its
 * head ends (for a pass that adds to it), and the markup the parser had to
 * repair. A pure function of the page's bytes and
 * charset: the site model runs it in the worker pool (src/build/jobs.js), pages on
 * every core at once, when the build gives it one, and in its own thread
 * otherwise; either way it is cached by the bytes.
 */
import { DocumentView } from './document-view.js';
import { htmlReferences } from './html-refs.js';
import { markupRepairs } from './checks.js';
import { headEnd } from './html-tree.js';
import { packFound } from './reference-table.js';

/**
 * @typedef {{ references: import('./reference-table.js').FoundTable, baseHref: string | null, headEnd: number | null, repairs: string | null }} PageFindings
 *   headEnd: the byte offset where content may be added at the end of the head (html-tree.js)
 *
 * @typedef {object} PageFindingsOptions
 * @property {string} charset
 * @property {number} bomLength
 * @property {boolean} withRepairs whether to look for markup the parser had to repair (the first parse of an input page)
 */

/**
 * @param {{ bytes: Uint8Array, options: PageFindingsOptions }} input
 * @returns {PageFindings}
 */
export function findInPage({ bytes, options: { charset, bomLength, withRepairs } }) {
  const view = new DocumentView(Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), charset, bomLength);
  const found = htmlReferences(view);
  return {
    references: packFound(found.references),
    baseHref: found.baseHref,
    headEnd: headEnd(found.root, view),
    repairs: withRepairs ? markupRepairs(view, found.root, found.parseErrors) : null,
  };
}

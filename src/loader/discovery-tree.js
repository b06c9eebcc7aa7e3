/**
 * The tree the robot's discovery parses a page into: the site model's parse
 * (cheerio's parse5 with its htmlparser2 tree adapter, source locations and
 * scripting enabled, as cheerio.load calls it), walked with the site model's
 * own walk (referencesInTree in src/site/html-refs.js). parse5 is called
 * directly because cheerio.load defines a new Cheerio class on every call,
 * which made a page's discovery about twice as costly as the parse itself
 * (microscape's page: 6 to 8 ms against 3.5 to 4 ms, 2026-11-21).
 * test/loader.test.js holds the references found this way equal to the site
 * model's on every fixture page and on markup that exercises tree
 * construction.
 */
import { createRequire } from 'node:module';

// parse5 and the adapter as cheerio resolves them: the same packages and versions as the site model's parses.
const fromCheerio = createRequire(createRequire(import.meta.url).resolve('cheerio'));
/** @type {{ parse: (html: string, options: { sourceCodeLocationInfo: boolean, scriptingEnabled: boolean, treeAdapter: object }) => import('domhandler').Document }} */
const parse5 = fromCheerio('parse5');
/** @type {{ adapter: object }} */
const { adapter } = fromCheerio('parse5-htmlparser2-tree-adapter');

/**
 * @param {string} text the page's decoded text (a DocumentView's)
 * @returns {import('domhandler').Document}
 */
export function parseForDiscovery(text) {
  return parse5.parse(text, { sourceCodeLocationInfo: true, scriptingEnabled: true, treeAdapter: adapter });
}

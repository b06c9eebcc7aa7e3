/**
 * The files a site's scripts name. pagediet does not run scripts, so it
 * cannot know the URLs they build, but a name written whole in a script
 * (`src:"img/logo.png"`, `new Image().src = 'over.gif'`, a manifest's icon
 * list) is one the script may ask for: a pass that renames a file should
 * leave such a file its name, or the page fetches it twice, once by each.
 *
 * Read: script files (`.js`, `.mjs`, `.cjs`), JSON files (manifests, route
 * data), and in pages the text of `<script>` elements, event-handler
 * attributes and `javascript:` URLs. A name is a run of characters between
 * the delimiters of JavaScript, JSON and URLs (quotes, brackets, white
 * space...), compared with the paths asked about, as written and
 * percent-decoded. A name a script assembles from parts is not found.
 * Hand-written: a tokenizer of JavaScript would find the same string
 * literals and miss names in comments and JSON, and parsing every script of
 * a large site costs far more than this scan.
 */
import { decodeBytes } from './charset.js';

/** Extensions of files that are script or data text. */
const SCRIPT_FILE = /\.(?:m?js|cjs|json|webmanifest)$/i;

/** A run of characters that may be a URL path: everything but the other delimiters of scripts, JSON and URLs. */
const NAME_RUN = /[^\s"'`\\()<>,;=?#&{}[\]|^*!:]+/g;

/** Where a page holds script: `<script>` text, event-handler attributes, `javascript:` URLs. */
const PAGE_SCRIPT = /<script\b[^>]*>([\s\S]*?)<\/script\s*>|\son[a-z]+\s*=\s*(?:"([^"]*)"|'([^']*)')|javascript:([^"'>]*)/gi;

/**
 * Which of the files asked about the site's scripts name: a path a script
 * holds names a file when the file's site path ends with it, after its
 * leading `/`, `./` and `../` (a script's relative URL resolves against the
 * page that runs it, which pagediet cannot always know). A script file's
 * own name in its text does not count: that is a header comment far more
 * often than a script loading itself.
 * @param {import('./site.js').Site} site
 * @param {Iterable<string>} sitePaths
 * @returns {Promise<Set<string>>} the site paths named
 */
export async function namedInScripts(site, sitePaths) {
  /** @type {Map<string, string[]>} file name → the site paths asked about with that name */
  const byName = new Map();
  for (const sitePath of sitePaths) {
    const name = sitePath.slice(sitePath.lastIndexOf('/') + 1);
    const same = byName.get(name);
    if (same) same.push(sitePath);
    else byName.set(name, [sitePath]);
  }
  /** @type {Set<string>} */
  const found = new Set();
  if (byName.size === 0) return found;
  /** The file whose text is read: its own name there (a header comment, mostly) does not count. */
  let reading = '';
  const match = (/** @type {string} */ run) => {
    const tail = run.replace(/^(?:\.{0,2}\/)+/, '');
    const files = byName.get(tail.slice(tail.lastIndexOf('/') + 1));
    if (!files) return false;
    for (const sitePath of files) if (sitePath !== reading && (sitePath === tail || sitePath.endsWith(`/${tail}`))) found.add(sitePath);
    return true;
  };
  const look = (/** @type {string} */ text) => {
    for (const [run] of text.matchAll(NAME_RUN)) {
      if (!run.includes('.') || match(run) || !run.includes('%')) continue;
      try {
        match(decodeURIComponent(run));
      } catch {
        // not percent-encoded after all
      }
    }
  };
  for (const file of [...site.files.values()]) {
    const isPage = file.role === 'page';
    if (!isPage && !SCRIPT_FILE.test(file.path)) continue;
    let bytes;
    try {
      bytes = await site.read(file.path);
    } catch {
      continue; // unreadable: the site model has warned
    }
    const text = decodeBytes(bytes, isPage && file.charset ? file.charset : 'utf-8');
    reading = file.path;
    if (!isPage) {
      look(text);
      continue;
    }
    // Most pages of an old site have no script: one test before the scan.
    if (!/<script|\son[a-z]+\s*=|javascript:/i.test(text)) continue;
    for (const match of text.matchAll(PAGE_SCRIPT)) look(match[1] ?? match[2] ?? match[3] ?? match[4] ?? '');
  }
  return found;
}


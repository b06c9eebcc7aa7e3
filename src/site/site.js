/**
 * The site model: the files of an input directory, its pages and style sheets,
 * and the reference graph between them, with each reference's exact byte range.
 * Passes read it, change files through it, and it writes the output.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { DocumentView } from './document-view.js';
import { decodeBytes, detectCssCharset, detectHtmlCharset, encodeText } from './charset.js';
import { findInPage } from './page-findings.js';
import { stylesheetReferences } from './css-refs.js';
import { baseDirectory, resolveReference } from './resolve.js';
import { isHtmlPath, mimeType, extensionOf } from './mime.js';
import { walkSite, errorCode } from './walk.js';
import { applyEdits, encodePath } from './edits.js';
import { ByteStore, sha256 } from './byte-store.js';
import { ReferenceTable, StringTable, isFoundTable, packFound } from './reference-table.js';
import { forEachOrdered } from '../util/ordered.js';
import { POOL_WORTHWHILE_BYTES } from '../util/pool.js';
import { cacheKey } from '../util/cache.js';
import { codeFingerprint } from '../util/code-fingerprint.js';
import { messageCode } from '../build/messages.js';
import { fileProblem, headBytesFor, notHtmlReason, referenceCycles, unterminatedComment } from './checks.js';

/**
 * @typedef {import('./reference-kinds.js').ReferenceKind} ReferenceKind
 * @typedef {import('./resolve.js').ResolveStatus} ResolveStatus
 * @typedef {import('./walk.js').SkippedEntry} SkippedEntry
 *
 * @typedef {object} Reference
 * @property {string} source site path of the page or style sheet that holds it
 * @property {ReferenceKind} kind
 * @property {string} url the URL as written, decoded as a browser reads it
 * @property {number} start byte offset of the URL in the source
 * @property {number} end byte offset after it
 * @property {string} [element]
 * @property {string} [attribute]
 * @property {number} [tagStart] for an <img src>: byte range of the element's start tag
 * @property {number} [tagEnd]
 * @property {boolean} [inPicture] for an <img src>: whether its parent is a <picture>
 * @property {number} [choice] references of one image choice share it (html-refs.js: FoundReference)
 * @property {string} [type] a <picture> source's type, an image-set() entry's type()
 * @property {boolean} [media] a <picture> source with a media condition
 * @property {boolean} [overridden] the url() of a declaration an image-set() after it overrides
 * @property {{ width: number, wanted: number }} [fit] a srcset candidate's width descriptor and the width its sizes asks for
 * @property {ResolveStatus} status
 * @property {string} [target] the site path it resolves to, when status is 'ok'
 * @property {'exact' | 'index' | 'extensionless'} [via]
 * @property {string} [note]
 *
 * @typedef {object} Warning a message of the build: an error, a warning or information (src/build/messages.js)
 * @property {string} file site path, or '' for the whole build
 * @property {string} code short stable identifier, e.g. 'reference-escapes'
 * @property {import('../build/messages.js').Severity} severity
 * @property {string} message one line for people
 *
 * @typedef {object} SiteOptions
 * @property {string[]} [origins] absolute origins that are this site, e.g. https://www.example.com
 * @property {(absPath: string) => boolean} [exclude] files and folders to leave out of the site
 * @property {{ get(key: string): Promise<unknown>, set(key: string, value: unknown): Promise<void> }} [cache] keeps what
 *   parsing a page found (its references, its base, its repairs) by the page's bytes, so the next build of the same
 *   page does not parse it again
 * @property {number} [memoryBudget] bytes of files kept in memory; the rest wait in a scratch directory (byte-store.js)
 * @property {(bytes: Buffer, options: import('./page-findings.js').PageFindingsOptions) => Promise<PageFindings>} [findInPage]
 *   parses pages elsewhere (the build's worker pool): findInPage of page-findings.js, which runs in this thread without it
 *
 * @typedef {import('./page-findings.js').PageFindings} PageFindings
 *
 * @typedef {{ charset: string, bomLength: number, found: PageFindings }} ParsedPage what parsing a page's bytes finds:
 *   detectHtmlCharset's charset and byte order mark, and findInPage's findings (without repairs)
 * @typedef {null | { unreadable: string } | { bytes: Buffer, first: boolean, notHtml?: string, page?: ParsedPage }} ReadForParse
 *   what readForParse found for applyParse: null when the file has no bytes to read
 * @typedef {object} PendingParse a replayed write not parsed yet
 * @property {number} epoch how many indexChanges there were when it was written
 * @property {string} [charset] a page's charset (with bomLength, its parse then needs only its findings from the cache);
 *   a style sheet's fallback charset
 * @property {number} [bomLength]
 */

/** Extensions tried, in order, when an extensionless URL matches several files. */
const PREFERRED_EXTENSIONS = /** @type {Partial<Record<ReferenceKind, string[]>>} */ ({
  img: ['gif', 'png', 'jpg', 'jpeg', 'webp', 'svg'],
  'input-image': ['gif', 'png', 'jpg', 'jpeg'],
  background: ['gif', 'png', 'jpg', 'jpeg'],
  stylesheet: ['css'],
  'css-import': ['css'],
  script: ['js', 'mjs'],
  iframe: ['html', 'htm'],
  frame: ['html', 'htm'],
  anchor: ['html', 'htm'],
});

export class SiteFile {
  /**
   * @param {string} sitePath
   * @param {string | null} absPath the input file, or null for a file a pass created
   * @param {number} size
   * @param {number} mtimeMs
   */
  constructor(sitePath, absPath, size, mtimeMs) {
    this.path = sitePath;
    this.absPath = absPath;
    /** Size of the input file. */
    this.size = size;
    this.mtimeMs = mtimeMs;
    this.mime = mimeType(sitePath);
    /** @type {'page' | 'stylesheet' | 'asset'} */
    this.role = isHtmlPath(sitePath) ? 'page' : extensionOf(sitePath) === 'css' ? 'stylesheet' : 'asset';
    /** @type {string | null} */
    this.charset = null;
    this.bomLength = 0;
    /** The file's references, compactly (reference-table.js); `references` gives them as objects. @type {ReferenceTable | null} */
    this.referenceTable = null;
    /** The strings its references share with the rest of the site (set when the file joins one). @type {StringTable | null} */
    this.strings = null;
    /** The page's <base href>, if any. @type {string | null} */
    this.baseHref = null;
    /** Where content may be added at the end of the page's head: a byte offset, null when no head, body or content is written. @type {number | null} */
    this.headEnd = null;
    /** The input bytes of a page or style sheet in the site's byte store, kept because passes edit them. @type {string | null} */
    this.sourceKey = null;
    /** The output bytes in the byte store when a pass changed or created the file; null: the output is the input. @type {string | null} */
    this.outputKey = null;
    this.outputLength = 0;
    /** How many times a pass wrote the file: pass replay records every write, even of the same bytes (it parses the file again). */
    this.writes = 0;
  }

  /**
   * The references of a page or style sheet, in byte order, made anew on each
   * call from the compact table: hold on to the array when using it twice.
   * @returns {Reference[]}
   */
  get references() {
    return this.referenceTable ? this.referenceTable.toArray() : [];
  }

  /** @param {Reference[]} list */
  set references(list) {
    this.referenceTable = list.length ? new ReferenceTable(list, (this.strings ??= new StringTable())) : null;
  }

  get outputSize() {
    return this.outputKey ? this.outputLength : this.size;
  }
}

export class Site {
  /**
   * @param {string} root absolute real path of the input directory
   * @param {SiteOptions} options
   */
  constructor(root, options = {}) {
    this.root = root;
    this.options = options;
    /** The bytes of pages, style sheets and files passes wrote. */
    this.bytes = new ByteStore({ budget: options.memoryBudget });
    /** The strings of every reference (URLs, targets), each kept once. */
    this.strings = new StringTable();
    /**
     * Whether the pages come to POOL_WORTHWHILE_BYTES (set by parseAll): they are then parsed by options.findInPage,
     * and passes send their per-page work to the worker pool.
     */
    this.pagesWorthThePool = false;
    /** @type {Map<string, SiteFile>} in site-path order */
    this.files = new Map();
    /**
     * Pages and style sheets a replayed pass wrote or added (pass-memo.js) and
     * that are not parsed yet (parsePending), each with the number of
     * indexChanges when it was written: its references resolve against the
     * files there were then, as they did when the pass ran.
     * @type {Map<SiteFile, PendingParse>}
     */
    this.unparsed = new Map();
    /** Files added and removed while some are unparsed, in order. @type {{ path: string, op: 'add' | 'remove' }[]} */
    this.indexChanges = [];
    /**
     * What each URL resolved to, by index (the site's own until a file is added or removed, or a view of indexAt):
     * the pages of a site share most of their URLs, and a parse resolves each of them.
     * Keyed by the base directory, the kind and the URL, map in map: a URL's string is hashed once, not joined to a new key.
     * @type {WeakMap<import('./resolve.js').SiteIndex, Map<string, Map<string, Map<string, import('./resolve.js').Resolution>>>>}
     */
    this.resolutions = new WeakMap();
    /** @type {Set<string>} */
    this.directories = new Set();
    /** Symlinks out of the root and the like: never read. @type {Map<string, SkippedEntry>} */
    this.skipped = new Map();
    /** @type {Warning[]} */
    this.warnings = [];
    /** Files the build writes beside the site but that are not part of it (server configs), by absolute path. @type {Map<string, Buffer>} */
    this.artifacts = new Map();
    /** File names by directory, for extensionless lookup: sets, as a pass may remove 10,000 files of one directory. @type {Map<string, Set<string>>} */
    this.filesByDirectory = new Map();
    /** @type {import('./resolve.js').SiteIndex} */
    this.index = {
      isFile: (p) => this.files.has(p),
      isDirectory: (p) => this.directories.has(p),
      filesIn: (dir) => this.filesByDirectory.get(dir) ?? [],
      isOutside: (p) => this.skipped.get(p)?.reason === 'outside-root',
    };
  }

  /**
   * Reads a site: lists its files, parses its pages and the style sheets they
   * use, and resolves every reference.
   * @param {string} root
   * @param {SiteOptions} [options]
   */
  static async read(root, options = {}) {
    const realRoot = await fs.realpath(root);
    const site = new Site(realRoot, options);
    const walked = await walkSite(realRoot, { exclude: options.exclude });
    for (const dir of walked.directories) site.directories.add(dir);
    for (const entry of walked.skipped) {
      site.skipped.set(entry.path, entry);
      site.warn(entry.path, `skipped-${entry.reason}`, entry.message);
    }
    for (const f of walked.files) site.addEntry(new SiteFile(f.path, f.absPath, f.size, f.mtimeMs));
    await site.checkFiles();
    await site.parseAll();
    for (const cycle of referenceCycles(site.pages, (kind) => kind === 'iframe' || kind === 'frame')) {
      site.warn(cycle[0], 'frame-loop', `frames that contain each other: ${cycle.join(' → ')}; browsers stop nesting them, pagediet counts each page once`);
    }
    for (const cycle of referenceCycles(site.stylesheets, (kind) => kind === 'css-import')) {
      site.warn(cycle[0], 'import-cycle', `@import cycle: ${cycle.join(' → ')}; browsers load each style sheet once`);
    }
    return site;
  }

  /** Warns about files that are not what their names say (checks.js): empty, mislabelled images, SVG with scripts. */
  async checkFiles() {
    const checked = [...this.files.values()].filter((file) => file.absPath && (file.size === 0 || /\.(gif|png|apng|jpe?g|jpe|webp|svg)$/i.test(file.path)));
    // A window of files read at once; the warnings come in the files' order.
    await forEachOrdered(checked, (file) => headOf(file), (head, file) => {
      // null: unreadable, which parse or the passes warn about when they need the file.
      const problem = head && fileProblem(file, head);
      if (problem) this.warn(file.path, problem.code, problem.message);
    });
  }

  /** @param {SiteFile} file */
  addEntry(file) {
    file.strings = this.strings;
    this.files.set(file.path, file);
    this.resolutions.delete(this.index);
    if (this.unparsed.size) this.indexChanges.push({ path: file.path, op: 'add' });
    const dir = path.posix.dirname(file.path) === '.' ? '' : path.posix.dirname(file.path);
    const names = this.filesByDirectory.get(dir) ?? new Set();
    names.add(path.posix.basename(file.path));
    this.filesByDirectory.set(dir, names);
  }

  /** Parses every page, then every style sheet (by extension or because a page links it as one). */
  async parseAll() {
    // Pages are read and parsed a window at a time, and taken in page order; in the worker pool when there is one
    // and the pages are worth its start (a worker takes about as long to start as parsing 1 MB of HTML).
    const pages = this.pages;
    this.pagesWorthThePool = pages.reduce((sum, page) => sum + page.size, 0) >= POOL_WORTHWHILE_BYTES;
    await forEachOrdered(pages, (file) => this.readForParse(file, this.pagesWorthThePool), async (read, file) => this.applyParse(file, read));
    /** @type {Map<string, string>} style sheet → charset of the first document that uses it */
    const cssFallback = new Map();
    const queue = [...this.files.values()].filter((f) => f.role === 'stylesheet');
    const noteStylesheets = (/** @type {SiteFile} */ from) => {
      const table = from.referenceTable;
      if (!table) return;
      for (let i = 0; i < table.length; i++) {
        const kind = table.kindAt(i);
        const targetPath = table.targetAt(i);
        if ((kind !== 'stylesheet' && kind !== 'css-import') || !targetPath || table.statusAt(i) !== 'ok') continue;
        const target = /** @type {SiteFile} */ (this.files.get(targetPath));
        if (!cssFallback.has(target.path) && from.charset) cssFallback.set(target.path, from.charset);
        if (target.role === 'asset') {
          target.role = 'stylesheet';
          queue.push(target);
        }
      }
    };
    for (const page of this.pages) noteStylesheets(page);
    const parsed = new Set();
    while (queue.length) {
      const css = /** @type {SiteFile} */ (queue.shift());
      if (parsed.has(css.path)) continue;
      parsed.add(css.path);
      await this.parse(css, cssFallback.get(css.path));
      noteStylesheets(css);
    }
  }

  /**
   * Reads and parses one page or style sheet, replacing its references.
   * @param {SiteFile} file
   * @param {string} [cssFallbackCharset]
   */
  async parse(file, cssFallbackCharset) {
    this.applyParse(file, await this.readForParse(file), cssFallbackCharset);
  }

  /**
   * The half of a parse that may run for many pages at once: reading the
   * bytes and, for a page, finding its references. What it finds changes the
   * site model only in applyParse, in the order the pages are taken.
   * @param {SiteFile} file
   * @param {boolean} [elsewhere] a page is parsed by options.findInPage (when given)
   * @returns {Promise<ReadForParse>}
   */
  async readForParse(file, elsewhere = false) {
    // The first parse of an input file also checks it (checks.js); parses after a pass wrote it do not.
    let first = false;
    /** @type {Buffer} */
    let bytes;
    let key = this.contentKey(file);
    if (key) {
      bytes = await this.bytes.get(key);
    } else {
      const read = await this.readInputOrWhy(file);
      if (!read || 'unreadable' in read) return read;
      key = file.sourceKey = this.bytes.put(read);
      bytes = read;
      first = true;
    }
    if (file.role !== 'page') return { bytes, first };
    const { charset, bomLength } = detectHtmlCharset(bytes);
    const notHtml = first ? notHtmlReason(bytes, charset) : null;
    if (notHtml) return { bytes, first, notHtml };
    return { bytes, first, page: { charset, bomLength, found: await this.pageFindings(bytes, key, charset, bomLength, first, elsewhere) } };
  }

  /**
   * @param {SiteFile} file
   * @param {ReadForParse} read
   * @param {string} [cssFallbackCharset]
   * @param {import('./resolve.js').SiteIndex} [index] the files its references resolve against (default: the site's now)
   */
  applyParse(file, read, cssFallbackCharset, index = this.index) {
    if (!read) return;
    if ('unreadable' in read) {
      this.warnUnreadable(file, read.unreadable);
      return;
    }
    const { bytes, first } = read;
    if (read.notHtml) {
      // Parsed as HTML, its bytes could be edited as markup: it is kept out of the page passes.
      file.role = 'asset';
      this.warn(file.path, 'not-html', `named as a page but is ${read.notHtml}: not parsed as HTML, copied as it is`);
      return;
    }
    if (read.page) {
      this.applyPage(file, read.page, index);
    } else if (file.role === 'stylesheet') {
      const { charset, bomLength } = detectCssCharset(bytes, cssFallbackCharset);
      file.charset = charset;
      file.bomLength = bomLength;
      const view = new DocumentView(bytes, charset, bomLength);
      const open = first ? unterminatedComment(view.text) : -1;
      if (open >= 0) {
        const at = view.byteOffset(open);
        this.warn(file.path, 'css-unterminated-comment', `a comment opened at byte ${at} is never closed: browsers read the rest of the file (${bytes.length - at} bytes) as a comment`);
      }
      const resolve = this.resolverOf(file, index);
      file.references = stylesheetReferences(view).map((found) => referenceOf(file, found, resolve(found.kind, found.url)));
    }
  }

  /**
   * @param {SiteFile} file a page
   * @param {ParsedPage} page what parsing its bytes found
   * @param {import('./resolve.js').SiteIndex} [index]
   */
  applyPage(file, { charset, bomLength, found }, index = this.index) {
    file.charset = charset;
    file.bomLength = bomLength;
    if (found.repairs) this.warn(file.path, 'markup-repaired', found.repairs);
    file.baseHref = found.baseHref;
    file.headEnd = found.headEnd;
    const strings = (file.strings ??= new StringTable());
    file.referenceTable = found.references.length ? ReferenceTable.fromFound(found.references, strings, file.path, this.resolverOf(file, index)) : null;
  }

  /**
   * What parsing a page finds, from the cache when these bytes were parsed before.
   * @param {Buffer} bytes
   * @param {string} key their key in the byte store (their SHA-256)
   * @param {string} charset
   * @param {number} bomLength
   * @param {boolean} withRepairs whether to look for markup the parser had to repair (the first parse of an input page)
   * @param {boolean} [elsewhere] parsed by options.findInPage (when given), not in this thread
   * @returns {Promise<PageFindings>}
   */
  async pageFindings(bytes, key, charset, bomLength, withRepairs, elsewhere = false) {
    const cache = this.options.cache;
    const entry = cache ? await this.findingsKey(key, charset, bomLength, withRepairs) : '';
    const known = cache ? await this.knownFindings(entry) : undefined;
    if (known) return known;
    const options = { charset, bomLength, withRepairs };
    const findings = elsewhere && this.options.findInPage ? await this.options.findInPage(bytes, options) : findInPage({ bytes, options });
    await cache?.set(entry, findings);
    return findings;
  }

  /**
   * What parsing a page's bytes found in an earlier build, if the cache has it.
   * @param {string} entry its cache key (findingsKey)
   * @returns {Promise<PageFindings | undefined>}
   */
  async knownFindings(entry) {
    const known = /** @type {PageFindings | undefined} */ (await this.options.cache?.get(entry));
    return known && isFoundTable(known.references) && known.headEnd !== undefined ? known : undefined;
  }

  /**
   * @param {string} key the page's bytes' key in the byte store (their SHA-256)
   * @param {string} charset
   * @param {number} bomLength
   * @param {boolean} withRepairs
   */
  async findingsKey(key, charset, bomLength, withRepairs) {
    return cacheKey('page-findings', { bytes: key, charset, bomLength, withRepairs }, [], await codeFingerprint(new URL(import.meta.url)));
  }

  /**
   * Keeps what a parse of a page's new bytes would find, where the site model
   * knew it without a parse: a build that replays the pass from the cache
   * (pass-memo.js) writes these bytes again and finds them there.
   * @param {SiteFile} file its output set to the new bytes
   */
  async rememberFindings(file) {
    const cache = this.options.cache;
    if (!cache || file.role !== 'page') return;
    const references = packFound(file.references.map(({ source, status, target, via, note, ...found }) => found));
    /** @type {PageFindings} */
    const findings = { references, baseHref: file.baseHref ?? null, headEnd: file.headEnd, repairs: null };
    await cache.set(await this.findingsKey(/** @type {string} */ (this.contentKey(file)), /** @type {string} */ (file.charset), file.bomLength, false), findings);
  }

  /**
   * @param {SiteFile} file
   * @returns {Promise<Buffer | null>}
   */
  async readInput(file) {
    const read = await this.readInputOrWhy(file);
    if (read && 'unreadable' in read) {
      this.warnUnreadable(file, read.unreadable);
      return null;
    }
    return read;
  }

  /**
   * readInput without its warning: why the file could not be read, for a caller that warns in its own order.
   * @param {SiteFile} file
   * @returns {Promise<Buffer | { unreadable: string } | null>}
   */
  async readInputOrWhy(file) {
    if (!file.absPath) return file.outputKey ? this.bytes.get(file.outputKey) : null;
    try {
      return await fs.readFile(file.absPath);
    } catch (error) {
      return { unreadable: errorCode(error) };
    }
  }

  /** @param {SiteFile} file @param {string} code */
  warnUnreadable(file, code) {
    this.warn(file.path, 'unreadable', `cannot read: ${code}`);
  }

  /**
   * @param {SiteFile} from
   * @param {import('./html-refs.js').FoundReference} found
   * @param {import('./resolve.js').SiteIndex} [index] the files it may resolve to (default: the site's now)
   * @returns {Reference}
   */
  resolve(from, found, index = this.index) {
    return referenceOf(from, found, this.resolverOf(from, index)(found.kind, found.url));
  }

  /**
   * What each URL of a document resolves to: the same for every reference of a kind and URL in it, and in every
   * document with the same base directory.
   * @param {SiteFile} from
   * @param {import('./resolve.js').SiteIndex} [index]
   * @returns {(kind: ReferenceKind, url: string) => import('./resolve.js').Resolution}
   */
  resolverOf(from, index = this.index) {
    const dir = path.posix.dirname(from.path) === '.' ? '' : path.posix.dirname(from.path);
    // <base href> moves the base of the page's relative URLs; a base on another site makes them external.
    const baseDir = from.baseHref === null ? dir : baseDirectory(from.baseHref, dir, this.options.origins ?? []);
    const base = baseDir ?? dir;
    let byBase = this.resolutions.get(index);
    if (!byBase) this.resolutions.set(index, (byBase = new Map()));
    let byKind = byBase.get(base);
    if (!byKind) byBase.set(base, (byKind = new Map()));
    const kinds = byKind;
    return (kind, url) => {
      if (baseDir === null && !isAbsolute(url)) return EXTERNAL;
      let byUrl = kinds.get(kind);
      if (!byUrl) kinds.set(kind, (byUrl = new Map()));
      let r = byUrl.get(url);
      if (!r) {
        r = resolveReference(url, base, index, { origins: this.options.origins, prefer: PREFERRED_EXTENSIONS[kind] });
        byUrl.set(url, r);
      }
      return r;
    };
  }

  /** @param {string} file @param {string} code @param {string} message */
  warn(file, code, message) {
    this.warnings.push({ file, code, severity: messageCode(code).severity, message });
  }

  get pages() {
    return [...this.files.values()].filter((f) => f.role === 'page');
  }

  get stylesheets() {
    return [...this.files.values()].filter((f) => f.role === 'stylesheet');
  }

  /**
   * Every file some page or style sheet refers to, read off the compact
   * tables without making reference objects.
   * @returns {Set<string>}
   */
  referencedPaths() {
    /** @type {Set<string>} */
    const paths = new Set();
    for (const { target } of this.targetedReferences()) paths.add(target);
    return paths;
  }

  /**
   * Each reference that resolves to a file, as its table, its index there and
   * its target, in file then byte order.
   * @returns {Generator<{ table: ReferenceTable, index: number, target: string }>}
   */
  *targetedReferences() {
    for (const file of this.files.values()) {
      const table = file.referenceTable;
      if (!table) continue;
      for (let index = 0; index < table.length; index++) {
        const target = table.targetAt(index);
        if (target !== undefined) yield { table, index, target };
      }
    }
  }

  /**
   * The references to some files, by file, in file then byte order: one pass
   * over the references, for passes that ask about many files (referencesTo
   * asks about one). Only these references are made into objects.
   * @param {Set<string>} targets
   * @returns {Map<string, Reference[]>}
   */
  referencesByTarget(targets) {
    /** @type {Map<string, Reference[]>} */
    const index = new Map();
    for (const { table, index: i, target } of this.targetedReferences()) {
      if (!targets.has(target)) continue;
      const list = index.get(target);
      if (list) list.push(table.at(i));
      else index.set(target, [table.at(i)]);
    }
    return index;
  }

  /**
   * The references that resolve to a file.
   * @param {string} target
   */
  referencesTo(target) {
    return this.referencesByTarget(new Set([target])).get(target) ?? [];
  }

  /**
   * Points every reference to a file of the mapping at its new file, one page
   * or style sheet at a time (only one document's references are objects at
   * once); see retarget.
   * @param {Map<string, string>} mapping old site path → new site path
   * @param {(ref: Reference) => boolean} [accept] which of the references to those files to rewrite (default: all)
   * @returns {Promise<Map<string, number>>} references rewritten, by old path
   */
  async retargetAll(mapping, accept) {
    /** @type {Map<string, number>} */
    const counts = new Map();
    for (const file of [...this.files.values()]) {
      const table = file.referenceTable;
      if (!table) continue;
      /** @type {{ ref: Reference, target: string }[]} */
      const changes = [];
      for (let i = 0; i < table.length; i++) {
        const from = table.targetAt(i);
        const to = from === undefined ? undefined : mapping.get(from);
        if (from === undefined || to === undefined) continue;
        const ref = table.at(i);
        if (accept && !accept(ref)) continue;
        changes.push({ ref, target: to });
        counts.set(from, (counts.get(from) ?? 0) + 1);
      }
      if (changes.length) await this.retarget(changes);
    }
    return counts;
  }

  /**
   * The current bytes of a file: what a pass wrote, or the input.
   * @param {string} sitePath
   * @returns {Promise<Buffer>}
   */
  async read(sitePath) {
    const file = this.get(sitePath);
    const key = this.contentKey(file);
    if (key) return this.bytes.get(key);
    const bytes = await this.readInput(file);
    if (!bytes) throw new Error(`${sitePath}: cannot read`);
    return bytes;
  }

  /** @param {string} sitePath */
  get(sitePath) {
    const file = this.files.get(sitePath);
    if (!file) throw new Error(`no file ${sitePath} in the site`);
    return file;
  }

  /**
   * What parsing a page's new bytes finds, by options.findInPage (the build's
   * worker pool) when the site's pages are worth it: a pass that writes many
   * pages parses them a window at a time with this, and writes them in page
   * order with write(sitePath, bytes, parsed).
   * @param {Buffer} bytes
   * @returns {Promise<ParsedPage>}
   */
  async parsePage(bytes) {
    const { charset, bomLength } = detectHtmlCharset(bytes);
    return { charset, bomLength, found: await this.pageFindings(bytes, sha256(bytes), charset, bomLength, false, this.pagesWorthThePool) };
  }

  /**
   * Sets the output bytes of a file; pages and style sheets are parsed again,
   * unless what parsing the page's new bytes found is given (parsePage).
   * @param {string} sitePath
   * @param {Buffer} bytes
   * @param {ParsedPage} [parsed] what parsing these bytes found, for a page
   */
  async write(sitePath, bytes, parsed) {
    const file = this.get(sitePath);
    this.setOutput(file, bytes);
    if (parsed && file.role === 'page') this.applyParse(file, { bytes, first: false, page: parsed });
    else if (file.role !== 'asset') await this.parse(file);
    await this.bytes.settle();
  }

  /**
   * A file's new output bytes, before its references are brought up to date.
   * @param {SiteFile} file
   * @param {Buffer} bytes
   */
  setOutput(file, bytes) {
    file.outputKey = this.bytes.put(bytes);
    file.outputLength = bytes.length;
    file.writes++;
  }

  /**
   * Sets the output bytes of a page whose tree and references are those of
   * its current bytes, at the same offsets: only the case of tag and
   * attribute names changed, which the HTML tokenizer undoes. The page is not
   * parsed again (a parse of a 42 KB page takes 20 to 40 ms, once per page
   * and pass on a large site).
   * @param {string} sitePath
   * @param {Buffer} bytes as long as the current bytes
   */
  async writeSameReferences(sitePath, bytes) {
    const file = this.get(sitePath);
    if (file.role !== 'page' || bytes.length !== file.outputSize) return this.write(sitePath, bytes);
    this.setOutput(file, bytes);
    await this.rememberFindings(file);
    await this.bytes.settle();
  }

  /**
   * Writes a file's new bytes, then puts the file back as it was (bytes,
   * charset, references) unless `keep` accepts it as written: for a pass
   * that can only judge a change once the site model has read it again.
   * @param {string} sitePath
   * @param {Buffer} bytes
   * @param {(file: SiteFile) => boolean | Promise<boolean>} keep
   * @param {ParsedPage} [parsed] as write() takes it
   * @returns {Promise<boolean>} whether the write was kept
   */
  async writeChecked(sitePath, bytes, keep, parsed) {
    const file = this.get(sitePath);
    const saved = { outputKey: file.outputKey, outputLength: file.outputLength, writes: file.writes, charset: file.charset, bomLength: file.bomLength, referenceTable: file.referenceTable, baseHref: file.baseHref, headEnd: file.headEnd };
    await this.write(sitePath, bytes, parsed);
    if (await keep(file)) return true;
    Object.assign(file, saved);
    return false;
  }

  /**
   * Adds a file a pass created (a converted image, a shared style sheet).
   * @param {string} sitePath
   * @param {Buffer} bytes
   * @param {number} [mtimeMs] defaults to the newest input's, so output is deterministic
   */
  async add(sitePath, bytes, mtimeMs) {
    if (this.files.has(sitePath)) throw new Error(`${sitePath} already exists in the site`);
    const file = new SiteFile(sitePath, null, 0, mtimeMs ?? this.newestMtime());
    file.outputKey = this.bytes.put(bytes);
    file.outputLength = bytes.length;
    this.addEntry(file);
    await this.bytes.settle();
    return file;
  }

  /**
   * Sets a file's output to bytes the byte store knows by their key (adopted,
   * pass-memo.js), as a replayed pass wrote them. A page or style sheet is
   * parsed later, by parsePending, against the files there are now.
   * @param {string} sitePath
   * @param {string} key
   * @param {number} length
   * @param {Omit<PendingParse, 'epoch'>} [known] for a page, its charset and byte order mark
   */
  writeReplayed(sitePath, key, length, known = {}) {
    const file = this.get(sitePath);
    file.outputKey = key;
    file.outputLength = length;
    file.writes++;
    if (file.role !== 'asset') this.unparsed.set(file, { epoch: this.indexChanges.length, ...known });
  }

  /**
   * Adds a file a replayed pass created, its bytes known by their key; one
   * already under its name is removed first (the pass replaced it).
   * @param {string} sitePath
   * @param {{ key: string, length: number, mtimeMs: number, role: SiteFile['role'] }} what
   * @param {Omit<PendingParse, 'epoch'> | null} parse null: the pass did not parse it; else for a page its charset and
   *   byte order mark, for a style sheet its fallback charset
   */
  addReplayed(sitePath, { key, length, mtimeMs, role }, parse) {
    if (this.files.has(sitePath)) this.remove(sitePath);
    const file = new SiteFile(sitePath, null, 0, mtimeMs);
    file.outputKey = key;
    file.outputLength = length;
    file.role = role;
    // Parsed right after it was added, before the pass's next file was: its own addition (logged by addEntry, as
    // there is now an unparsed file) is the last change it sees.
    if (parse && role !== 'asset') this.unparsed.set(file, { epoch: this.indexChanges.length + 1, ...parse });
    this.addEntry(file);
  }

  /**
   * Changes a file's role as a replayed pass did; a file still unparsed is
   * parsed first, in the role it was written in.
   * @param {string} sitePath
   * @param {SiteFile['role']} role
   */
  async setRoleReplayed(sitePath, role) {
    const file = this.get(sitePath);
    const pending = this.unparsed.get(file);
    if (pending) {
      await this.parsePendingFile(file, pending, this.indexAt(pending.epoch));
      this.unparsed.delete(file);
    }
    file.role = role;
  }

  /**
   * Parses the pages and style sheets replayed passes wrote (writeReplayed),
   * each against the files there were when it was written: before a pass
   * runs, and before the build's summary. A page is taken from the cache's
   * findings when it has them, without its bytes.
   */
  async parsePending() {
    if (!this.unparsed.size) return;
    const waiting = [...this.unparsed].filter(([file]) => this.files.get(file.path) === file);
    /** @type {Map<number, import('./resolve.js').SiteIndex>} */
    const views = new Map();
    const indexAt = (/** @type {number} */ epoch) => {
      const view = views.get(epoch) ?? this.indexAt(epoch);
      views.set(epoch, view);
      return view;
    };
    const pages = waiting.filter(([file]) => file.role === 'page');
    await forEachOrdered(pages, ([file, pending]) => this.readPending(file, pending), async (read, [file, pending]) => {
      if (read && 'found' in read) this.applyPage(file, read, indexAt(pending.epoch));
      else this.applyParse(file, read, undefined, indexAt(pending.epoch));
    });
    for (const [file, pending] of waiting) if (file.role === 'stylesheet') await this.parsePendingFile(file, pending, indexAt(pending.epoch));
    this.unparsed.clear();
    this.indexChanges = [];
  }

  /**
   * @param {SiteFile} file
   * @param {PendingParse} pending
   * @param {import('./resolve.js').SiteIndex} index
   */
  async parsePendingFile(file, pending, index) {
    const read = await this.readPending(file, pending);
    if (read && 'found' in read) this.applyPage(file, read, index);
    else this.applyParse(file, read, pending.charset, index);
  }

  /**
   * @param {SiteFile} file
   * @param {PendingParse} pending
   * @returns {Promise<ParsedPage | ReadForParse>}
   */
  async readPending(file, { charset, bomLength }) {
    if (file.role === 'page' && charset !== undefined && bomLength !== undefined) {
      const found = this.options.cache && await this.knownFindings(await this.findingsKey(/** @type {string} */ (file.outputKey), charset, bomLength, false));
      if (found) return { charset, bomLength, found };
    }
    return this.readForParse(file, this.pagesWorthThePool);
  }

  /**
   * The files there were when indexChanges had `epoch` entries: the site's
   * files now, with the changes since undone.
   * @param {number} epoch
   * @returns {import('./resolve.js').SiteIndex}
   */
  indexAt(epoch) {
    if (epoch >= this.indexChanges.length) return this.index;
    /** @type {Map<string, boolean>} each path changed since, and whether it was a file then */
    const was = new Map();
    for (let i = epoch; i < this.indexChanges.length; i++) {
      const { path: sitePath, op } = this.indexChanges[i];
      if (!was.has(sitePath)) was.set(sitePath, op === 'remove');
    }
    /** @type {Map<string, Map<string, boolean>>} the same by directory and name */
    const byDirectory = new Map();
    for (const [sitePath, wasFile] of was) {
      const dir = path.posix.dirname(sitePath) === '.' ? '' : path.posix.dirname(sitePath);
      const names = byDirectory.get(dir) ?? byDirectory.set(dir, new Map()).get(dir);
      /** @type {Map<string, boolean>} */ (names).set(path.posix.basename(sitePath), wasFile);
    }
    return {
      ...this.index,
      isFile: (p) => was.get(p) ?? this.files.has(p),
      filesIn: (dir) => {
        const changed = byDirectory.get(dir);
        if (!changed) return this.index.filesIn(dir);
        const names = [...this.index.filesIn(dir)].filter((name) => !changed.has(name));
        for (const [name, wasFile] of changed) if (wasFile) names.push(name);
        return names;
      },
    };
  }

  /**
   * The key of a file's current bytes in the byte store (their SHA-256), or
   * null for an input file that was not read.
   * @param {SiteFile} file
   */
  contentKey(file) {
    return file.outputKey ?? file.sourceKey;
  }

  /** Removes the scratch files; the site's bytes are gone after this. */
  async close() {
    await this.bytes.close();
  }

  /** @param {string} sitePath */
  remove(sitePath) {
    this.files.delete(sitePath);
    this.resolutions.delete(this.index);
    if (this.unparsed.size) this.indexChanges.push({ path: sitePath, op: 'remove' });
    const dir = path.posix.dirname(sitePath) === '.' ? '' : path.posix.dirname(sitePath);
    this.filesByDirectory.get(dir)?.delete(path.posix.basename(sitePath));
  }

  newestMtime() {
    let newest = 0;
    for (const f of this.files.values()) if (f.absPath && f.mtimeMs > newest) newest = f.mtimeMs;
    return newest;
  }

  /**
   * Points references at other files by editing only the bytes of their URLs.
   * The new URL keeps the old one's directory part, query and fragment when the
   * target stays in the same directory, and is relative to the source otherwise.
   * @param {{ ref: Reference, target: string }[]} changes references of one or more sources
   */
  async retarget(changes) {
    /** @type {Map<string, import('./edits.js').Edit[]>} */
    const bySource = new Map();
    /** @type {Map<string, Buffer>} each source's bytes, read once however many of its references change */
    const current = new Map();
    for (const { ref, target } of changes) {
      const source = this.get(ref.source);
      let bytes = current.get(ref.source);
      if (!bytes) {
        bytes = await this.read(ref.source);
        current.set(ref.source, bytes);
      }
      const url = retargetUrl(ref, target, bytes, /** @type {string} */ (source.charset));
      const edits = bySource.get(ref.source) ?? [];
      edits.push({ start: ref.start, end: ref.end, bytes: encodeText(url, /** @type {string} */ (source.charset)) });
      bySource.set(ref.source, edits);
    }
    for (const [sourcePath, edits] of bySource) {
      const file = this.get(sourcePath);
      const after = applyEdits(/** @type {Buffer} */ (current.get(sourcePath)), edits);
      const moved = this.movedReferences(file, edits);
      if (!moved) {
        await this.write(sourcePath, after);
        continue;
      }
      this.setOutput(file, after);
      file.references = moved.references;
      file.headEnd = moved.headEnd;
      await this.rememberFindings(file);
      await this.bytes.settle();
    }
    return [...bySource.keys()];
  }

  /**
   * A page's references after edits that each replace one reference's URL
   * whole, without parsing the page again: the tree is the same but for
   * those attribute values, so every offset moves by the edits before it and
   * the changed references are resolved again. Null where a parse is needed:
   * not a page in an ASCII-compatible charset, an edit that is not exactly a
   * reference's URL, or a new URL a browser would decode or that is not
   * ASCII (a character reference, a CSS escape, white space, a quote or a
   * bracket).
   * @param {SiteFile} file
   * @param {import('./edits.js').Edit[]} edits
   * @returns {{ references: Reference[], headEnd: number | null } | null} its references, and where its head ends
   */
  movedReferences(file, edits) {
    if (file.role !== 'page' || !file.referenceTable || /^utf-16/.test(file.charset ?? '')) return null;
    const refs = file.references;
    const byStart = new Map(refs.map((r, i) => [r.start, i]));
    const sorted = [...edits].sort((a, b) => a.start - b.start);
    /** @type {Map<number, string>} new URL by reference index */
    const urls = new Map();
    for (const edit of sorted) {
      const i = byStart.get(edit.start);
      if (i === undefined || refs[i].end !== edit.end) return null;
      const url = Buffer.from(edit.bytes).toString('latin1');
      if (/[&\\\s'"()\x00-\x1f\x7f-\xff]/.test(url)) return null;
      urls.set(i, url);
    }
    /** shifts[k]: how far the first k edits move what follows them. */
    const shifts = [0];
    for (const e of sorted) shifts.push(shifts[shifts.length - 1] + e.bytes.length - (e.end - e.start));
    /** The offset o after the edits that end at or before it (an empty edit at o is after it): a binary search, as a page has hundreds of offsets. @param {number} o */
    const moved = (o) => {
      let low = 0;
      let high = sorted.length;
      while (low < high) {
        const mid = (low + high) >> 1;
        const e = sorted[mid];
        if (e.end > o || (e.start === o && e.end === o)) high = mid;
        else low = mid + 1;
      }
      return o + shifts[low];
    };
    const references = refs.map((ref, i) => {
      const { source, status, target, via, note, ...found } = ref;
      const url = urls.get(i);
      const start = moved(ref.start);
      /** @type {import('./html-refs.js').FoundReference} */
      const next = { ...found, start, end: url === undefined ? moved(ref.end) : start + url.length, ...(url !== undefined && { url }) };
      // Offsets besides the URL's: the element's start tag, and the image choice (the offset of its element).
      if (ref.tagStart !== undefined) next.tagStart = moved(ref.tagStart);
      if (ref.tagEnd !== undefined) next.tagEnd = moved(ref.tagEnd);
      if (ref.choice !== undefined) next.choice = moved(ref.choice);
      if (url === undefined) return /** @type {Reference} */ ({ ...ref, ...next });
      return this.resolve(file, next);
    });
    return { references, headEnd: file.headEnd === null ? null : moved(file.headEnd) };
  }

  /**
   * Sets the output of a page edited only by replacing whole <img> start
   * tags and inserting at points, where the new bytes hold no reference and
   * close or move no element (a <span> with its text, a <style> of rules
   * without url()): the tree is the same but for the replaced images, so the
   * references inside a replaced tag go, the others move by the edits before
   * them, and the page is not parsed again. Falls back to a parse (write)
   * where that does not hold: a page in UTF-16, an edit that is not exactly
   * an <img>'s start tag, or a reference across an edit's edge.
   * @param {string} sitePath
   * @param {Buffer} bytes the page's bytes after the edits
   * @param {import('./edits.js').Edit[]} edits the edits that made them from its current bytes
   * @returns {Promise<boolean>} whether the references were moved (false: the page was parsed)
   */
  async writeReplacedImages(sitePath, bytes, edits) {
    const file = this.get(sitePath);
    const after = file.role === 'page' && file.referenceTable && !/^utf-16/.test(file.charset ?? '') ? this.referencesAfterImageEdits(file, edits) : null;
    if (!after) {
      await this.write(sitePath, bytes);
      return false;
    }
    this.setOutput(file, bytes);
    file.references = after.references;
    file.headEnd = after.headEnd;
    await this.rememberFindings(file);
    await this.bytes.settle();
    return true;
  }

  /**
   * writeReplacedImages' references and head's end, or null.
   * @param {SiteFile} file
   * @param {import('./edits.js').Edit[]} edits
   * @returns {{ references: Reference[], headEnd: number | null } | null}
   */
  referencesAfterImageEdits(file, edits) {
    const refs = file.references;
    const tags = new Set(refs.filter((r) => r.kind === 'img' && r.tagStart !== undefined).map((r) => `${r.tagStart} ${r.tagEnd}`));
    const sorted = [...edits].sort((a, b) => a.start - b.start || a.end - b.end);
    if (sorted.some((e) => e.start !== e.end && !tags.has(`${e.start} ${e.end}`))) return null;
    /**
     * Where an offset goes: past every edit that ends before it, and past an insertion at it when it is where
     * something starts (what was there follows the inserted bytes); an end stays before an insertion at it.
     * @param {number} o @param {boolean} isStart
     */
    const moved = (o, isStart) => {
      let shift = 0;
      for (const e of sorted) {
        if (e.end < o || (e.end === o && (e.start !== e.end || isStart))) shift += e.bytes.length - (e.end - e.start);
        else break;
      }
      return o + shift;
    };
    /** @type {Reference[]} */
    const references = [];
    for (const ref of refs) {
      const within = sorted.find((e) => e.start !== e.end && ref.start >= e.start && ref.end <= e.end);
      if (within) continue;
      if (sorted.some((e) => (e.start > ref.start && e.start < ref.end) || (e.end > ref.start && e.end < ref.end))) return null;
      /** @type {Reference} */
      const next = { ...ref, start: moved(ref.start, true), end: moved(ref.end, false) };
      if (ref.tagStart !== undefined) next.tagStart = moved(ref.tagStart, true);
      if (ref.tagEnd !== undefined) next.tagEnd = moved(ref.tagEnd, false);
      if (ref.choice !== undefined) next.choice = moved(ref.choice, true);
      references.push(next);
    }
    return { references, headEnd: file.headEnd === null ? null : moved(file.headEnd, true) };
  }
}

/**
 * The first bytes of an input file, as many as checkFiles looks at; null when it cannot be read.
 * @param {SiteFile} file
 * @returns {Promise<Buffer | null>}
 */
async function headOf(file) {
  if (file.size === 0) return Buffer.alloc(0);
  try {
    const handle = await fs.open(/** @type {string} */ (file.absPath), 'r');
    try {
      const want = Math.min(file.size, headBytesFor(file));
      const { buffer, bytesRead } = await handle.read(Buffer.alloc(want), 0, want, 0);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  } catch {
    return null;
  }
}

/**
 * @param {Reference} ref
 * @param {string} target new site path
 * @param {Buffer} bytes current bytes of the source
 * @param {string} charset
 */
function retargetUrl(ref, target, bytes, charset) {
  const raw = decodeBytes(bytes.subarray(ref.start, ref.end), charset);
  const oldTarget = /** @type {string} */ (ref.target);
  const suffix = /[?#].*$/s.exec(ref.url)?.[0] ?? '';
  const sameDir = path.posix.dirname(oldTarget) === path.posix.dirname(target);
  const lastSlash = raw.split(/[?#]/)[0].lastIndexOf('/');
  if (sameDir && ref.via !== 'index' && !/[?#&\\]/.test(raw.slice(0, lastSlash + 1))) {
    // Keep the URL's own directory prefix, as written (relative, rooted or absolute).
    return raw.slice(0, lastSlash + 1) + encodePath(path.posix.basename(target)) + encodeSuffix(suffix);
  }
  const fromDir = path.posix.dirname(ref.source);
  return encodePath(path.posix.relative(fromDir === '.' ? '' : fromDir, target)) + encodeSuffix(suffix);
}

/** @param {string} suffix a query and fragment, decoded */
function encodeSuffix(suffix) {
  return encodeURI(suffix).replace(/['()"]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** What a relative URL under a <base href> on another site resolves to. @type {import('./resolve.js').Resolution} */
const EXTERNAL = Object.freeze({ status: 'external' });

/**
 * A reference as the site model keeps it: what was found, and what it resolved to.
 * @param {SiteFile} from
 * @param {import('./html-refs.js').FoundReference} found
 * @param {import('./resolve.js').Resolution} r
 * @returns {Reference}
 */
function referenceOf(from, found, r) {
  /** @type {Reference} */
  const ref = { source: from.path, ...found, status: r.status };
  if (r.path) ref.target = r.path;
  if (r.via) ref.via = r.via;
  if (r.note) ref.note = r.note;
  return ref;
}

/** @param {string} url */
function isAbsolute(url) {
  return /^[a-zA-Z][a-zA-Z0-9+.-]*:|^\/\//.test(url.trim());
}

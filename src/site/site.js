/**
 * The site model: the files of an input directory, its pages and style sheets,
 * and the reference graph between them, with each reference's exact byte range.
 * Passes read it and change files through its methods; reading the input,
 * parsing, resolving and rewriting references are done by the modules beside it.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { detectHtmlCharset } from './charset.js';
import { isHtmlPath, mimeType, extensionOf } from './mime.js';
import { walkSite } from './walk.js';
import { ByteStore, sha256 } from './byte-store.js';
import { ReferenceTable, StringTable } from './reference-table.js';
import { messageCode } from '../build/messages.js';
import { referenceCycles } from './checks.js';
import { checkFiles, readInput } from './input.js';
import { applyParse, pageFindings, parseAll, readForParse } from './parse.js';
import { referenceOf, referencedPaths, referencesByTarget, referencesTo, resolverOf } from './reference-graph.js';
import { retarget, retargetAll, writeReplacedImages, writeSameReferences } from './reference-edits.js';
import { parsePending, setRoleReplayed } from './pending-parse.js';

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
 * @typedef {import('./parse.js').ParsedPage} ParsedPage
 * @typedef {import('./pending-parse.js').PendingParse} PendingParse
 */

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
     * Whether the pages come to POOL_WORTHWHILE_BYTES (set by parseAll, parse.js): they are then parsed by options.findInPage,
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
     * What each URL resolved to, by index (the site's own until a file is added or removed, or a view of indexAt, pending-parse.js):
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
    await checkFiles(site);
    await parseAll(site);
    for (const cycle of referenceCycles(site.pages, (kind) => kind === 'iframe' || kind === 'frame')) {
      site.warn(cycle[0], 'frame-loop', `frames that contain each other: ${cycle.join(' → ')}; browsers stop nesting them, pagediet counts each page once`);
    }
    for (const cycle of referenceCycles(site.stylesheets, (kind) => kind === 'css-import')) {
      site.warn(cycle[0], 'import-cycle', `@import cycle: ${cycle.join(' → ')}; browsers load each style sheet once`);
    }
    return site;
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

  /**
   * Reads and parses one page or style sheet, replacing its references.
   * @param {SiteFile} file
   * @param {string} [cssFallbackCharset]
   */
  async parse(file, cssFallbackCharset) {
    applyParse(this, file, await readForParse(this, file), cssFallbackCharset);
  }

  /** The bytes of an input file, or null (warned about) when it cannot be read (input.js). @param {SiteFile} file */
  readInput(file) {
    return readInput(this, file);
  }

  /**
   * @param {SiteFile} from
   * @param {import('./html-refs.js').FoundReference} found
   * @param {import('./resolve.js').SiteIndex} [index] the files it may resolve to (default: the site's now)
   * @returns {Reference}
   */
  resolve(from, found, index = this.index) {
    return referenceOf(from, found, resolverOf(this, from, index)(found.kind, found.url));
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

  /** Every file some page or style sheet refers to (reference-graph.js). @returns {Set<string>} */
  referencedPaths() {
    return referencedPaths(this);
  }

  /** The references to some files, by file, in file then byte order (reference-graph.js). @param {Set<string>} targets */
  referencesByTarget(targets) {
    return referencesByTarget(this, targets);
  }

  /** The references that resolve to a file (reference-graph.js). @param {string} target */
  referencesTo(target) {
    return referencesTo(this, target);
  }

  /**
   * Points every reference to a file of the mapping at its new file (reference-edits.js).
   * @param {Map<string, string>} mapping old site path → new site path
   * @param {(ref: Reference) => boolean} [accept] which of the references to those files to rewrite (default: all)
   */
  retargetAll(mapping, accept) {
    return retargetAll(this, mapping, accept);
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
    return { charset, bomLength, found: await pageFindings(this, bytes, sha256(bytes), charset, bomLength, false, this.pagesWorthThePool) };
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
    if (parsed && file.role === 'page') applyParse(this, file, { bytes, first: false, page: parsed });
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
   * Sets the output bytes of a page whose references are those of its current bytes, at the same offsets: only the
   * case of names changed (reference-edits.js).
   * @param {string} sitePath
   * @param {Buffer} bytes as long as the current bytes
   */
  writeSameReferences(sitePath, bytes) {
    return writeSameReferences(this, sitePath, bytes);
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
   * Changes a file's role as a replayed pass did (pending-parse.js).
   * @param {string} sitePath
   * @param {SiteFile['role']} role
   */
  setRoleReplayed(sitePath, role) {
    return setRoleReplayed(this, sitePath, role);
  }

  /** Parses the pages and style sheets replayed passes wrote, each against the files there were then (pending-parse.js). */
  parsePending() {
    return parsePending(this);
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
   * Points references at other files by editing only the bytes of their URLs (reference-edits.js).
   * @param {{ ref: Reference, target: string }[]} changes references of one or more sources
   */
  retarget(changes) {
    return retarget(this, changes);
  }

  /**
   * Sets the output of a page edited only by replacing whole <img> start tags and inserting at points, moving its
   * references without a parse where it can (reference-edits.js).
   * @param {string} sitePath
   * @param {Buffer} bytes the page's bytes after the edits
   * @param {import('./edits.js').Edit[]} edits the edits that made them from its current bytes
   */
  writeReplacedImages(sitePath, bytes, edits) {
    return writeReplacedImages(this, sitePath, bytes, edits);
  }
}

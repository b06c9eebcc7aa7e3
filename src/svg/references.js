/**
 * Which ids of an SVG something outside it may refer to, read from every
 * text file of the site: pages, style sheets, scripts, other SVGs, JSON. An
 * id is referred to when it appears after a '#' anywhere in another file
 * (`<use href="icons.svg#cup">`, `url(#clip)`, a CSS `#cup` selector, an
 * `<a href="#cup">`), when a CSS or script attribute selector on `id`
 * matches it (`[id^="icon-"]`), or when the id appears anywhere in a script
 * (an inline <script>, an event handler, a .js, .mjs or .json file): what a
 * script looks up by name is kept even when it is never written as a URL.
 * The reading errs towards keeping: a colour `#fff` keeps an id `fff`.
 */
import { extensionOf } from '../site/mime.js';

/**
 * @typedef {import('../site/site.js').Site} Site
 * @typedef {{ op: string, value: string }} IdSelector an `[id OP value]` attribute selector
 */

/** Characters a script token is made of: an id made of them appears in a script only inside one token. */
const TOKEN = /[\w\-.:\u00B7\u00C0-\uFFFF]+/g;
const ONLY_TOKEN_CHARACTERS = /^[\w\-.:\u00B7\u00C0-\uFFFF]+$/;
/** What follows a '#' in a URL or a selector, up to a character no id or URL fragment of interest holds. */
const FRAGMENT = /#([\w\-.:%\\\u00B7\u00C0-\uFFFF]+)/g;
/** An attribute selector on id, in CSS or in a script's query. */
const ID_SELECTOR = /\[\s*id\s*([~|^$*]?=)\s*(?:"([^"]*)"|'([^']*)'|([^\s\]'"]+))\s*(?:[is]\s*)?\]/gi;
/** The script inside a page: <script> contents, event handler attributes, javascript: URLs. */
const PAGE_SCRIPTS = /<script\b[^>]*>([\s\S]*?)(?:<\/script|$)|\son[a-z]+\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)|javascript:[^"'>]*/gi;

const SCRIPT_EXTENSIONS = new Set(['js', 'mjs', 'cjs', 'json', 'webmanifest']);
const OTHER_TEXT_EXTENSIONS = new Set(['svg', 'xml']);

export class SiteNames {
  constructor() {
    /** Each name found after a '#', with up to two of the files it was found in. @type {Map<string, string[]>} */
    this.fragments = new Map();
    /** Every token of every script. @type {Set<string>} */
    this.scriptTokens = new Set();
    /** @type {IdSelector[]} */
    this.idSelectors = [];
    /** The script tokens joined, for ids found inside a longer token. @type {string | null} */
    this.joined = null;
    /** @type {Map<string, boolean>} */
    this.inScripts = new Map();
  }

  /**
   * Reads every text file of the site.
   * @param {Site} site
   */
  static async read(site) {
    const names = new SiteNames();
    for (const file of site.files.values()) {
      const ext = extensionOf(file.path);
      const isScript = SCRIPT_EXTENSIONS.has(ext);
      if (file.role === 'asset' && !isScript && !OTHER_TEXT_EXTENSIONS.has(ext)) continue;
      const bytes = await site.read(file.path).catch(() => null);
      if (!bytes) continue;
      const text = new TextDecoder(file.charset ?? 'utf-8').decode(bytes);
      names.addFragments(text, file.path);
      names.addIdSelectors(text);
      if (isScript) names.addScript(text);
      else if (file.role === 'page') for (const m of text.matchAll(PAGE_SCRIPTS)) names.addScript(m[1] ?? m[2] ?? m[0]);
    }
    return names;
  }

  /**
   * @param {string} text
   * @param {string} source
   */
  addFragments(text, source) {
    for (const m of text.matchAll(FRAGMENT)) {
      for (const name of readings(m[1])) {
        const sources = this.fragments.get(name);
        if (!sources) this.fragments.set(name, [source]);
        else if (sources.length < 2 && !sources.includes(source)) sources.push(source);
      }
    }
  }

  /** @param {string} text */
  addIdSelectors(text) {
    if (!/\[\s*id\b/i.test(text)) return;
    for (const m of text.matchAll(ID_SELECTOR)) this.idSelectors.push({ op: m[1], value: m[2] ?? m[3] ?? m[4] });
  }

  /** @param {string} text */
  addScript(text) {
    for (const m of text.matchAll(TOKEN)) this.scriptTokens.add(m[0]);
    this.joined = null;
  }

  /**
   * Whether anything but `own` (the file that declares it) may refer to an id.
   * @param {string} id
   * @param {string} own
   */
  referencedFromOutside(id, own) {
    const sources = this.fragments.get(id);
    if (sources && sources.some((s) => s !== own)) return true;
    return this.selected(id) || this.inScript(id);
  }

  /** @param {string} id */
  selected(id) {
    return this.idSelectors.some(({ op, value }) => {
      switch (op) {
        case '=': return id === value;
        case '^=': return value !== '' && id.startsWith(value);
        case '$=': return value !== '' && id.endsWith(value);
        case '*=': return value !== '' && id.includes(value);
        case '~=': return id === value;
        case '|=': return id === value || id.startsWith(`${value}-`);
        default: return true;
      }
    });
  }

  /**
   * Whether an id appears in a script. An id with characters no token holds is taken as appearing.
   * @param {string} id
   */
  inScript(id) {
    if (!ONLY_TOKEN_CHARACTERS.test(id)) return true;
    if (this.scriptTokens.has(id)) return true;
    let known = this.inScripts.get(id);
    if (known === undefined) {
      this.joined ??= [...this.scriptTokens].join('\n');
      known = this.joined.includes(id);
      this.inScripts.set(id, known);
    }
    return known;
  }
}

/**
 * The names a fragment may stand for: as written, percent-decoded, with CSS
 * escapes undone, and cut before each '.' or ':' (a selector `#cup.on` or
 * `#cup:hover` names `cup`).
 * @param {string} raw
 * @returns {Set<string>}
 */
function readings(raw) {
  const out = new Set([raw]);
  if (raw.includes('%')) {
    try {
      out.add(decodeURIComponent(raw));
    } catch {
      // not percent-encoding: the name as written stands
    }
  }
  if (raw.includes('\\')) out.add(raw.replace(/\\(?:([0-9a-fA-F]{1,6})\s?|(.))/g, (_, hex, c) => (hex ? String.fromCodePoint(Math.min(parseInt(hex, 16), 0x10ffff)) : c)));
  for (const name of [...out]) {
    for (let i = 0; i < name.length; i++) if (name[i] === '.' || name[i] === ':') out.add(name.slice(0, i));
  }
  out.delete('');
  return out;
}

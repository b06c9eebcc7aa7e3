/**
 * What is wrong with an input file, as warnings: files that are not what
 * their names say, markup and CSS that browsers repair, frames and @imports
 * that loop. Checks change nothing: the file is read as browsers read it
 * and copied as it is (or optimized as it stands); the warning says why a
 * user may want to look at it (docs/reliability.md).
 */
import { tokenize, tokenTypes as T } from 'css-tree';
import { sniffImageType } from './sniff.js';
import { extensionOf } from './mime.js';

/**
 * @typedef {import('./site.js').SiteFile} SiteFile
 * @typedef {import('./document-view.js').DocumentView} DocumentView
 * @typedef {import('domhandler').AnyNode} AnyNode
 * @typedef {import('domhandler').Element} Element
 * @typedef {{ code: string, message: string }} Problem
 */

/** Extensions that promise an image of one type. */
const IMAGE_EXTENSIONS = /** @type {Record<string, string>} */ ({ gif: 'gif', png: 'png', apng: 'png', jpg: 'jpeg', jpeg: 'jpeg', jpe: 'jpeg', webp: 'webp', avif: 'avif' });
const TYPE_NAMES = /** @type {Record<string, string>} */ ({ gif: 'GIF', png: 'PNG', jpeg: 'JPEG', webp: 'WebP', avif: 'AVIF' });

/** Bytes read from the start of a file to tell what it is. */
export const HEAD_BYTES = 1024;

/** SVG files up to this size are read for scripts. */
const SVG_SCAN_BYTES = 4 * 1024 * 1024;

/**
 * Problems of a file that its first bytes show: empty images and pages,
 * images whose bytes are another type or no image, SVG with scripts.
 * @param {SiteFile} file
 * @param {Uint8Array} head the first HEAD_BYTES bytes (all of an SVG up to SVG_SCAN_BYTES)
 * @returns {Problem | null}
 */
export function fileProblem(file, head) {
  const ext = extensionOf(file.path);
  const expected = IMAGE_EXTENSIONS[ext];
  if (file.size === 0) {
    if (file.role === 'page') return { code: 'empty-file', message: 'an empty page (0 bytes): copied as it is' };
    if (expected || ext === 'svg') return { code: 'empty-file', message: 'an empty image (0 bytes): browsers show a broken image; copied as it is' };
    return null;
  }
  if (expected) {
    const actual = sniffImageType(head);
    if (actual === null) return { code: 'not-an-image', message: `named .${ext} but its bytes are no image (they start ${JSON.stringify(Buffer.from(head.subarray(0, 8)).toString('latin1'))}): copied as it is` };
    if (actual !== expected) return { code: 'image-mislabelled', message: `a ${TYPE_NAMES[actual]} named .${ext}: browsers go by its bytes, and so does pagediet; its name stays` };
    const frame = actual === 'gif' ? firstGifFrame(head) : null;
    if (frame && (frame.left > 0 || frame.top > 0 || frame.width < frame.screenWidth || frame.height < frame.screenHeight)) {
      return { code: 'gif-frame-smaller', message: `its first frame covers ${frame.width}x${frame.height} at (${frame.left}, ${frame.top}) of its ${frame.screenWidth}x${frame.screenHeight} logical screen: browsers show the rest transparent` };
    }
  }
  if (ext === 'svg' && /<script[\s>/]|\son[a-z]+\s*=/i.test(Buffer.from(head).toString('latin1'))) {
    return { code: 'svg-script', message: 'an SVG with a script or event handler: copied as it is, never rendered by pagediet; it runs when opened directly or embedded with <object> or <iframe>' };
  }
  return null;
}

/** How many bytes of a file fileProblem needs. @param {SiteFile} file */
export function headBytesFor(file) {
  return extensionOf(file.path) === 'svg' ? SVG_SCAN_BYTES : HEAD_BYTES;
}

/**
 * The logical screen and the first frame's rectangle of a GIF, when its
 * first image descriptor lies within the bytes given; null otherwise.
 * @param {Uint8Array} head
 */
function firstGifFrame(head) {
  const b = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  if (b.length < 13) return null;
  let p = 13 + (b[10] & 0x80 ? 3 * (2 << (b[10] & 7)) : 0);
  while (p < b.length) {
    if (b[p] === 0x2c) {
      if (p + 9 > b.length) return null;
      return { screenWidth: b.readUInt16LE(6), screenHeight: b.readUInt16LE(8), left: b.readUInt16LE(p + 1), top: b.readUInt16LE(p + 3), width: b.readUInt16LE(p + 5), height: b.readUInt16LE(p + 7) };
    }
    if (b[p] !== 0x21) return null;
    p += 2; // extension introducer and label, then sub-blocks up to a 0 length
    while (p < b.length && b[p] !== 0) p += b[p] + 1;
    p++;
  }
  return null;
}

/** Signatures of binary formats that are sometimes saved under an .html name. */
const BINARY_SIGNATURES = /** @type {[string, string][]} */ ([
  ['%PDF-', 'a PDF document'],
  ['PK\x03\x04', 'a ZIP archive'],
  ['\x1f\x8b', 'gzip data'],
]);

/**
 * Why bytes named as a page are not HTML, or null. A page is not HTML when
 * it is an image or a known binary format, or when its first bytes hold a
 * "binary data byte" (the WHATWG MIME Sniffing standard's test for text).
 * @param {Uint8Array} bytes
 * @param {string} charset as detected (UTF-16 text has NUL bytes)
 * @returns {string | null}
 */
export function notHtmlReason(bytes, charset) {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, HEAD_BYTES));
  const image = sniffImageType(head);
  if (image) return `a ${TYPE_NAMES[image]} image`;
  const text = head.toString('latin1');
  for (const [signature, what] of BINARY_SIGNATURES) if (text.startsWith(signature)) return what;
  if (charset === 'utf-16le' || charset === 'utf-16be') return null;
  const binary = head.findIndex((b) => b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f));
  return binary === -1 ? null : `binary data (byte 0x${head[binary].toString(16).padStart(2, '0')} at ${binary})`;
}

/** Elements whose end tag may be left out (HTML's optional tags), and void elements, which have none. */
const NO_END_TAG_NEEDED = new Set([
  'html', 'head', 'body', 'p', 'li', 'dt', 'dd', 'option', 'optgroup', 'tr', 'td', 'th', 'thead', 'tbody', 'tfoot', 'colgroup', 'caption', 'rb', 'rt', 'rp', 'rtc',
  'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr', 'param', 'keygen', 'basefont', 'bgsound', 'frame', 'image', 'isindex',
]);

/** parse5 errors that are no repair: old pages rarely have a doctype, or an HTML 5 one. */
const IGNORED_PARSE_ERRORS = new Set(['missing-doctype', 'non-conforming-doctype']);

/**
 * One line on what browsers repair in a page's markup, or null: elements
 * never closed, misnested elements (the parser's adoption agency duplicates
 * them: two elements from one start tag), and syntax errors parse5 reports.
 * @param {DocumentView} view
 * @param {AnyNode} root the tree of the page (parse5 via cheerio, with source locations)
 * @param {{ code: string, startOffset: number }[]} parseErrors
 * @returns {string | null}
 */
export function markupRepairs(view, root, parseErrors) {
  // XML (XHTML with an XML declaration) is not read by HTML's rules: its "errors" are not repairs.
  if (view.hasXmlDeclaration()) return null;
  /** @type {Map<number, string>} */
  const unclosed = new Map();
  /** @type {Map<number, number>} start offset → elements that start there */
  const starts = new Map();
  /** @type {Map<number, string>} */
  const names = new Map();
  /** @param {AnyNode} node */
  const visit = (node) => {
    if (node.type === 'tag' || node.type === 'script' || node.type === 'style') {
      const el = /** @type {Element} */ (node);
      const loc = /** @type {{ startTag?: { startOffset: number, endOffset: number }, endTag?: unknown } | null | undefined} */ (el.sourceCodeLocation);
      if (loc?.startTag) {
        const at = loc.startTag.startOffset;
        starts.set(at, (starts.get(at) ?? 0) + 1);
        names.set(at, el.name);
        // A self-closing tag (<stop/> in SVG) has no end tag and needs none.
        const selfClosing = view.text[loc.startTag.endOffset - 2] === '/';
        if (!loc.endTag && !selfClosing && !NO_END_TAG_NEEDED.has(el.name) && !el.name.includes(':')) unclosed.set(at, el.name);
      }
    }
    const children = /** @type {{ children?: AnyNode[] }} */ (node).children;
    if (children) for (const child of children) visit(child);
  };
  visit(root);
  const misnested = [...starts].filter(([, n]) => n > 1).map(([at]) => at).sort((a, b) => a - b);
  // A misnested element is repaired by cloning; its clones are not "unclosed" on their own.
  for (const at of misnested) unclosed.delete(at);
  // The view reads bytes as latin1, so a windows-1252 or UTF-8 byte from 0x80 to 0x9F looks like a C1 control character: not one.
  const c1 = (/** @type {{ code: string, startOffset: number }} */ e) => e.code === 'control-character-in-input-stream' && !view.wide && view.text.charCodeAt(e.startOffset) >= 0x80;
  const errors = parseErrors.filter((e) => !IGNORED_PARSE_ERRORS.has(e.code) && !c1(e));
  const parts = [];
  const first = (/** @type {number} */ at) => `<${names.get(at)}> at byte ${view.byteOffset(at)}`;
  if (unclosed.size) {
    const at = Math.min(...unclosed.keys());
    parts.push(`${unclosed.size} element${unclosed.size === 1 ? '' : 's'} never closed (first ${first(at)})`);
  }
  if (misnested.length) parts.push(`${misnested.length} misnested (first ${first(misnested[0])})`);
  if (errors.length) parts.push(`${errors.length} syntax error${errors.length === 1 ? '' : 's'} (first ${errors[0].code} at byte ${view.byteOffset(errors[0].startOffset)})`);
  return parts.length ? `markup browsers repair: ${parts.join(', ')}; read as browsers read it, copied or edited in place` : null;
}

/**
 * The offset of a comment that is never closed (it runs to the end of the
 * style sheet), or -1.
 * @param {string} css
 */
export function unterminatedComment(css) {
  let open = -1;
  tokenize(css, (type, start, end) => {
    if (type === T.Comment && !(end - start >= 4 && css.startsWith('*/', end - 2))) open = start;
  });
  return open;
}

/**
 * Loops in the graph of frames (pages in pages) and of @imports: each cycle
 * once, starting at its smallest path, in path order.
 * @param {SiteFile[]} files
 * @param {(kind: import('./reference-kinds.js').ReferenceKind) => boolean} follows which kinds of reference are edges
 * @returns {string[][]} each cycle's paths, the first repeated at the end
 */
export function referenceCycles(files, follows) {
  /** @type {Map<string, string[]>} */
  const edges = new Map();
  for (const f of files) {
    const table = f.referenceTable;
    if (!table) continue;
    /** @type {Set<string>} */
    const targets = new Set();
    for (let i = 0; i < table.length; i++) {
      const target = table.targetAt(i);
      if (target && table.statusAt(i) === 'ok' && follows(table.kindAt(i))) targets.add(target);
    }
    if (targets.size) edges.set(f.path, [...targets].sort());
  }
  /** @type {Map<string, string[]>} key: the cycle's paths, rotated to start at the smallest */
  const cycles = new Map();
  /** @type {Map<string, 'active' | 'done'>} */
  const state = new Map();
  /** @type {string[]} */
  const stack = [];
  /** @param {string} node */
  const visit = (node) => {
    state.set(node, 'active');
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (state.get(next) === 'active') {
        const loop = stack.slice(stack.indexOf(next));
        const min = loop.indexOf([...loop].sort()[0]);
        const rotated = [...loop.slice(min), ...loop.slice(0, min)];
        cycles.set(rotated.join('\n'), [...rotated, rotated[0]]);
      } else if (!state.has(next)) {
        visit(next);
      }
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...edges.keys()].sort()) if (!state.has(node)) visit(node);
  return [...cycles.values()].sort((a, b) => (a.join('\n') < b.join('\n') ? -1 : 1));
}

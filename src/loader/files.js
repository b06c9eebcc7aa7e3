/**
 * Maps a request's URL to a file under the server's root, and finds the file's
 * representations (itself and its precompressed sidecars).
 *
 * Like src/site/resolve.js, the path is taken apart by segments and each is
 * decoded on its own, so an encoded slash cannot join two segments and `..`
 * is refused rather than clamped. Then the real path (symlinks followed) must
 * still be inside the real root: a link that points out is not there.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { extensionOf } from '../site/mime.js';
import { SIDECAR_EXTENSIONS } from './negotiate.js';

/**
 * @typedef {object} Entry a file or directory that is really inside the root
 * @property {string} real its real path
 * @property {import('node:fs').Stats} stats
 *
 * @typedef {object} SiteFile
 * @property {string} path the site path, '/'-separated (what the Content-Type comes from)
 * @property {string} absolute where it is under the root, before following links
 * @property {Entry} entry
 *
 * @typedef {{ status: 400 | 404, reason: string } | { redirect: string } | { file: SiteFile }} Located
 */

/** Directory indexes, in the order resolve.js tries them. */
const INDEXES = ['index.html', 'index.htm'];

/**
 * Names never served: pagediet's output marker and the temporary files a
 * killed build may have left. Every other dotfile is part of the site.
 * @param {string} name
 */
export function isHidden(name) {
  return name === '.pagediet-output.json' || name.endsWith('.pagediet-tmp');
}

/**
 * Splits a request target into decoded path segments.
 * @param {string} target the request line's target (origin-form or absolute-form)
 * @returns {{ segments: string[], directory: boolean, query: string } | { status: 400, reason: string }}
 */
export function parseTarget(target) {
  // Absolute-form (GET http://host/path) is legal in HTTP/1.1; only the path counts.
  const scheme = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*/.exec(target);
  const rest = scheme ? target.slice(scheme[0].length) || '/' : target;
  if (!rest.startsWith('/')) return { status: 400, reason: 'the target is not a path' };
  const cut = rest.search(/[?#]/);
  const pathname = cut < 0 ? rest : rest.slice(0, cut);
  const query = cut < 0 || rest[cut] === '#' ? '' : rest.slice(cut).split('#')[0];
  /** @type {string[]} */
  const segments = [];
  for (const raw of pathname.split('/')) {
    let segment;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return { status: 400, reason: 'a malformed percent-escape' };
    }
    if (/[/\\\0]/.test(segment)) return { status: 400, reason: 'an encoded slash, backslash or NUL' };
    // Browsers remove dot segments before sending: one that arrives is an attack.
    if (segment === '.' || segment === '..') return { status: 400, reason: 'a dot segment' };
    // Empty segments (a//b) are merged, as nginx does.
    if (segment !== '') segments.push(segment);
  }
  return { segments, directory: pathname.endsWith('/'), query };
}

/**
 * Finds the file a request target names.
 * @param {string} root the real path of the root directory
 * @param {string} target
 * @param {string} [accept] the request's Accept header, to choose between `x.html` and `x.gif` for `x`
 * @returns {Promise<Located>}
 */
export async function locate(root, target, accept = '') {
  const parsed = parseTarget(target);
  if ('status' in parsed) return parsed;
  const { segments, directory, query } = parsed;
  if (segments.some(isHidden)) return { status: 404, reason: 'a hidden file' };
  const absolute = path.join(root, ...segments);
  const entry = await inspect(root, absolute);
  if (!entry) {
    const found = directory ? null : await byName(root, segments, accept);
    return found ? { file: found } : { status: 404, reason: 'no such file inside the root' };
  }
  if (entry.stats.isDirectory()) {
    // Relative URLs in the index resolve against the slash form; the Location
    // is rebuilt from the decoded segments so `//host` can never come out of it.
    if (!directory) return { redirect: `/${segments.map((s) => encodeURIComponent(s)).join('/')}/${query}` };
    for (const name of INDEXES) {
      const index = await inspect(root, path.join(absolute, name));
      if (index?.stats.isFile()) return { file: { path: [...segments, name].join('/'), absolute: path.join(absolute, name), entry: index } };
    }
    return { status: 404, reason: 'a directory without index.html' };
  }
  // Not a regular file (a FIFO would block the read) or a file named as a directory.
  if (!entry.stats.isFile() || directory) return { status: 404, reason: 'not a file' };
  return { file: { path: segments.join('/'), absolute, entry } };
}

/** Extensions tried for an extensionless name, images first as resolve.js does for images. */
const BY_NAME_IMAGES = ['gif', 'png', 'jpg', 'jpeg', 'webp', 'svg'];
const BY_NAME_PAGES = ['html', 'htm'];
const BY_NAME_OTHERS = ['css', 'js', 'mjs'];

/**
 * Old servers' content negotiation (Apache's MultiViews), which pages of the
 * 1990s relied on and the site model follows (resolve.js): `/images/bullet`
 * is `bullet.gif` when that is the one `bullet.<ext>` beside it. When several
 * match, a request that accepts text/html (a navigation) gets the page, any
 * other the image; sidecars (`.br`, `.gz`, `.zst`) never count.
 * @param {string} root
 * @param {string[]} segments
 * @param {string} accept
 * @returns {Promise<SiteFile | null>}
 */
async function byName(root, segments, accept) {
  const name = segments.at(-1);
  if (!name || name.includes('.')) return null;
  const dir = path.join(root, ...segments.slice(0, -1));
  const parent = await inspect(root, dir);
  if (!parent?.stats.isDirectory()) return null;
  const sidecarExtensions = /** @type {string[]} */ (Object.values(SIDECAR_EXTENSIONS));
  const names = (await fs.readdir(parent.real).catch(() => /** @type {string[]} */ ([]))).filter((n) => {
    const extension = n.slice(name.length + 1);
    return n.startsWith(`${name}.`) && extension !== '' && !extension.includes('.') && !sidecarExtensions.includes(extension.toLowerCase()) && !isHidden(n);
  });
  const order = /\btext\/html\b/i.test(accept) ? [...BY_NAME_PAGES, ...BY_NAME_IMAGES, ...BY_NAME_OTHERS] : [...BY_NAME_IMAGES, ...BY_NAME_PAGES, ...BY_NAME_OTHERS];
  const ranked = names.length === 1 ? names : order.map((e) => names.find((n) => n.slice(name.length + 1).toLowerCase() === e)).filter((n) => n !== undefined);
  for (const candidate of ranked) {
    const absolute = path.join(dir, candidate);
    const entry = await inspect(root, absolute);
    if (entry?.stats.isFile()) return { path: [...segments.slice(0, -1), candidate].join('/'), absolute, entry };
  }
  return null;
}

/**
 * The file's precompressed sidecars that exist beside it, by content coding.
 * A file that is itself compressed (`x.gz`) has none: it is served as it is.
 * @param {string} root
 * @param {SiteFile} file
 * @param {Set<string>} [beside] the names in the file's directory (lower case), when known: only those are looked at
 *   (a snapshot lists each directory once instead of asking for three files that are mostly not there)
 * @returns {Promise<Map<import('./negotiate.js').Coding, Entry>>}
 */
export async function sidecars(root, file, beside) {
  /** @type {Map<import('./negotiate.js').Coding, Entry>} */
  const found = new Map();
  const extensions = Object.values(SIDECAR_EXTENSIONS);
  if (/** @type {string[]} */ (extensions).includes(extensionOf(file.path))) return found;
  const name = path.basename(file.absolute);
  const codings = /** @type {(keyof typeof SIDECAR_EXTENSIONS)[]} */ (Object.keys(SIDECAR_EXTENSIONS)).filter((coding) => !beside || beside.has(`${name}.${SIDECAR_EXTENSIONS[coding]}`.toLowerCase()));
  const entries = await Promise.all(codings.map((coding) => inspect(root, `${file.absolute}.${SIDECAR_EXTENSIONS[coding]}`)));
  codings.forEach((coding, i) => {
    const entry = entries[i];
    if (entry?.stats.isFile()) found.set(coding, entry);
  });
  return found;
}

/**
 * Follows links and checks that the result is still inside the root.
 * @param {string} root real path of the root
 * @param {string} absolute
 * @returns {Promise<Entry | null>} null when missing, unreadable or outside
 */
async function inspect(root, absolute) {
  try {
    const real = await fs.realpath(absolute);
    const prefix = root.endsWith(path.sep) ? root : root + path.sep;
    if (real !== root && !real.startsWith(prefix)) return null;
    // A link inside the site to the marker hides nothing: the marker stays hidden.
    if (isHidden(path.basename(real))) return null;
    return { real, stats: await fs.stat(real) };
  } catch {
    return null;
  }
}

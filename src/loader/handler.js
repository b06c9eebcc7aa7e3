/**
 * The one request handler the three protocols share: node:http and the
 * compatibility API of node:http2 both call it with (req, res). It answers GET
 * and HEAD for files under the root, choosing a precompressed sidecar by
 * Accept-Encoding (or, when asked, gzipping a file that has none on the fly),
 * with validators (ETag, Last-Modified), the cache policy of pagediet's
 * server configs (Cache-Control; or none at all, as a stock server) and byte
 * ranges. A sidecar asked for
 * by its own name (x.css.gz beside x.css) is 404, and so is anything under
 * /pagediet-configs/ (the server configs older builds wrote into the site).
 */
import fs from 'node:fs/promises';
import { STATUS_CODES } from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream';
import { extensionOf, mimeType } from '../site/mime.js';
import { isNotModified, requestedRange } from './conditional.js';
import { EntityTags } from './etags.js';
import { locate, parseTarget, sidecars } from './files.js';
import { SIDECAR_EXTENSIONS, chooseEncoding } from './negotiate.js';
import { GzipCache, isCompressibleType, onTheFlyLevel } from './on-the-fly.js';
import { CACHE_CONTROL, cachePolicy } from '../configs/shared.js';

/**
 * @typedef {import('node:http').IncomingMessage | import('node:http2').Http2ServerRequest} Request
 * @typedef {import('node:http').ServerResponse | import('node:http2').Http2ServerResponse} Response
 * @typedef {Record<string, string | number>} Headers
 *
 * @typedef {object} RequestLogEntry one request, reported when its response is over
 * @property {number} connection the HTTP/1 connection or HTTP/2 session that carried it, numbered from 1 per server
 * @property {string} httpVersion '1.0', '1.1' or '2.0'
 * @property {string} method
 * @property {string} url the request target as sent
 * @property {number} status
 * @property {string | null} file the site path of the file answered, if any
 * @property {import('./negotiate.js').Coding | null} encoding the representation sent, if a file was
 * @property {number} bytes the body's length as sent in Content-Length (0 for HEAD and 304)
 * @property {boolean} aborted whether the connection closed before the response was complete
 *
 * @typedef {object} HandlerOptions
 * @property {string} root the real path of the directory to serve
 * @property {boolean} [keepAlive] false: close every HTTP/1 connection after its response
 * @property {(entry: RequestLogEntry) => void} [onRequest]
 * @property {number} [headerLimit] answer 431 to requests whose header list is larger (RFC 9113's
 *   measure: names, values and 32 bytes per field); for HTTP/2, where node does not enforce its own setting
 * @property {boolean} [snapshot] the directory does not change while served (the robot's measurements):
 *   remember where each URL leads instead of asking the file system again
 * @property {number} [maxRequestsPerSecond] requests one connection (or HTTP/2 session) may make in a
 *   second; past it, 429 (and HTTP/1 closes the connection; default 1000: a pipelined page of hundreds
 *   of images is far below it, a flood is not)
 * @property {import('./on-the-fly.js').CompressOnTheFly} [compressOnTheFly] as an ordinary server: a file of a
 *   compressible type (COMPRESSIBLE_TYPES) that has no sidecar at all is offered gzip-encoded too, gzipped once
 *   and kept in memory, with its own ETag (`-gzip`) and Vary; files with sidecars are served as without it.
 *   Default off: only what the directory holds is sent.
 * @property {CacheHeaders} [cacheHeaders] default 'policy'
 *
 * @typedef {'policy' | 'none'} CacheHeaders the Cache-Control a file's responses (200 and 304) carry: 'policy', that of
 *   pagediet's server configs (src/configs/shared.js: pages no-cache, fingerprinted names a year and immutable, other
 *   files an hour and must-revalidate); 'none', no Cache-Control at all, only ETag and Last-Modified, as stock nginx
 *   and Apache send, so browsers' heuristic freshness applies
 */

/** What each cacheHeaders setting may be. */
export const CACHE_HEADERS = /** @type {const} */ (['policy', 'none']);

/** Requests per connection and second, past which a client is flooding. */
export const DEFAULT_MAX_REQUESTS_PER_SECOND = 1000;

/**
 * @param {HandlerOptions} options
 * @returns {(req: Request, res: Response) => void}
 */
export function createHandler({ root, keepAlive = true, onRequest, headerLimit, snapshot = false, maxRequestsPerSecond = DEFAULT_MAX_REQUESTS_PER_SECOND, compressOnTheFly, cacheHeaders = 'policy' }) {
  if (!CACHE_HEADERS.includes(cacheHeaders)) throw new RangeError(`cacheHeaders must be ${CACHE_HEADERS.map((c) => `'${c}'`).join(' or ')}, not ${JSON.stringify(cacheHeaders)}`);
  const tags = new EntityTags();
  const level = onTheFlyLevel(compressOnTheFly);
  /** This server's gzip of each file it compressed on the fly. @type {GzipCache | undefined} */
  const gzipped = level === undefined ? undefined : new GzipCache(level);
  /** @type {Finder} */
  const find = snapshot ? remembered() : { locate, sidecars };
  /** A snapshot's answers, once worked out, by what decides them (see answerKey). @type {Map<string, Answer> | undefined} */
  const answers = snapshot ? new Map() : undefined;
  /** @type {WeakMap<object, number>} */
  const connections = new WeakMap();
  let counted = 0;
  /** Each connection's requests in its current one-second window. @type {WeakMap<object, { start: number, count: number }>} */
  const rates = new WeakMap();
  /** @param {object} carrier */
  const flooding = (carrier) => {
    const now = Date.now();
    let rate = rates.get(carrier);
    if (!rate || now - rate.start >= 1000) rates.set(carrier, (rate = { start: now, count: 0 }));
    return ++rate.count > maxRequestsPerSecond;
  };

  /**
   * HTTP/1 connections whose answer said Connection: close. A request pipelined behind that answer is never
   * answered: node 20's parser stops there, newer nodes hand it over and abort its response; either way it is
   * not served, read or logged.
   * @type {WeakSet<object>}
   */
  const closing = new WeakSet();

  return (req, res) => {
    const carrier = ('stream' in req ? req.stream.session : undefined) ?? req.socket;
    if (req.httpVersionMajor === 1) {
      if (closing.has(carrier)) {
        res.destroy();
        return;
      }
      if (!keepAlive) closing.add(carrier);
    }
    if (!connections.has(carrier)) connections.set(carrier, ++counted);
    /** @type {RequestLogEntry} */
    const entry = {
      connection: /** @type {number} */ (connections.get(carrier)),
      httpVersion: req.httpVersion,
      method: req.method ?? '',
      url: req.url ?? '',
      status: 0,
      file: null,
      encoding: null,
      bytes: 0,
      aborted: false,
    };
    if (onRequest) {
      res.on('close', () => {
        entry.status = res.statusCode;
        // Not 'finish': http2's compatibility response emits it for a reset stream too.
        entry.aborted = !res.writableFinished;
        try {
          onRequest(entry);
        } catch (error) {
          process.emitWarning(`pagediet server: onRequest threw: ${/** @type {Error} */ (error).message}`);
        }
      });
    }
    // HTTP/2 has no Connection header (it is an error there); "downgrade-1.0" is an HTTP/1 notion.
    if (!keepAlive && req.httpVersionMajor === 1) res.setHeader('Connection', 'close');
    if (headerLimit !== undefined && headerListSize(req.rawHeaders) > headerLimit) return sendText(req, res, entry, 431);
    if (flooding(carrier)) {
      // HTTP/1 closes the connection after this answer. HTTP/2 answers each stream past the rate with 429
      // and keeps the session: closing a session from inside its own stream's handler, under load, is
      // where node's http2 has aborted the process.
      if (req.httpVersionMajor === 1) {
        res.setHeader('Connection', 'close');
        closing.add(carrier);
      }
      return sendText(req, res, entry, 429, { 'Retry-After': 1 });
    }
    const key = answers && answerKey(req);
    const answer = key ? answers.get(key) : undefined;
    if (answer) return sendAnswer(req, res, entry, answer);
    respond(root, tags, find, gzipped, cacheHeaders, req, res, entry, key ? (a) => answers.set(key, a) : undefined).catch(() => {
      // Whatever failed (a file that vanished mid-request), the server goes on.
      try {
        if (res.headersSent) return res.destroy();
        for (const name of res.getHeaderNames()) if (name !== 'connection') res.removeHeader(name);
        sendText(req, res, entry, 500);
      } catch {
        res.destroy();
      }
    });
  };
}

/**
 * @typedef {{ locate: typeof locate, sidecars: typeof sidecars, open?: (real: string, tags: EntityTags, coding: string) => Promise<Source | null> }} Finder
 */

/**
 * File lookups that remember their answers, and small files' bytes, for a
 * directory that holds still.
 * @returns {Finder}
 */
function remembered() {
  /** @type {Map<string, ReturnType<typeof locate>>} */
  const located = new Map();
  /** @type {Map<string, ReturnType<typeof sidecars>>} */
  const found = new Map();
  /** The names (lower case) in each directory a file was found in. @type {Map<string, Promise<Set<string> | undefined>>} */
  const listings = new Map();
  /** @type {Map<string, Promise<Source | null | 'large'>>} */
  const sources = new Map();
  return {
    /** @type {(real: string, tags: EntityTags, coding: string) => Promise<Source | null>} */
    open: (real, tags, coding) => {
      const key = `${coding}\n${real}`;
      let source = sources.get(key);
      if (!source) {
        source = (async () => {
          const opened = await openFile(real, tags, coding);
          if (!opened?.handle) return opened;
          try {
            if (opened.stats.size > SNAPSHOT_FILE_LIMIT) return 'large';
            return { stats: opened.stats, etag: opened.etag, bytes: await opened.handle.readFile() };
          } finally {
            await opened.handle.close();
          }
        })();
        sources.set(key, source);
      }
      // Large files are streamed from a handle of their own, each time.
      return source.then((s) => (s === 'large' ? openFile(real, tags, coding) : s));
    },
    locate: (r, target, accept = '') => {
      const key = `${accept}\n${target}`;
      let answer = located.get(key);
      if (!answer) located.set(key, (answer = locate(r, target, accept)));
      return answer;
    },
    sidecars: (r, file) => {
      let answer = found.get(file.absolute);
      if (!answer) {
        const dir = path.dirname(file.absolute);
        let names = listings.get(dir);
        // Lower case: on a case-insensitive file system x.BR answers for x.br. Unlistable: look at all three.
        if (!names) listings.set(dir, (names = fs.readdir(dir).then((n) => new Set(n.map((f) => f.toLowerCase())), () => undefined)));
        found.set(file.absolute, (answer = names.then((beside) => sidecars(r, file, beside))));
      }
      return answer;
    },
  };
}

/**
 * A file's answer to GET and HEAD without Range, ready to send again: in a
 * snapshot, a request with the same URL, Accept and Accept-Encoding gets the
 * same file, representation and headers, so it is answered at once, without
 * looking anything up; only If-None-Match or If-Modified-Since, which differ
 * per request, are checked each time.
 * @typedef {object} Answer
 * @property {string} file
 * @property {import('./negotiate.js').Coding} coding
 * @property {string} etag
 * @property {Date} modified
 * @property {Headers} validators the headers of a 304
 * @property {Headers} headers the headers of the 200
 * @property {Buffer} bytes the body
 */

/**
 * What decides a snapshot's answer, or null when the request needs the full
 * path (another method, a Range).
 * @param {Request} req
 * @returns {string | null}
 */
function answerKey(req) {
  if ((req.method !== 'GET' && req.method !== 'HEAD') || req.headers.range !== undefined) return null;
  const { accept = '', 'accept-encoding': acceptEncoding = '' } = req.headers;
  return `${accept}\n${acceptEncoding}\n${req.url}`;
}

/**
 * @param {Request} req
 * @param {Response} res
 * @param {RequestLogEntry} entry
 * @param {Answer} answer
 */
function sendAnswer(req, res, entry, answer) {
  entry.file = answer.file;
  entry.encoding = answer.coding;
  if (isNotModified(req.headers, answer.etag, answer.modified)) {
    writeHead(res, 304, answer.validators);
    res.end();
    return;
  }
  writeHead(res, 200, answer.headers);
  if (req.method === 'HEAD' || answer.bytes.length === 0) {
    res.end();
    return;
  }
  if ('stream' in res ? res.stream.destroyed : res.destroyed) return;
  entry.bytes = answer.bytes.length;
  res.end(answer.bytes);
}

/**
 * @param {string} root
 * @param {EntityTags} tags
 * @param {Finder} find
 * @param {GzipCache | undefined} gzipped when on, compresses files without sidecars on the fly
 * @param {CacheHeaders} cacheHeaders
 * @param {Request} req
 * @param {Response} res
 * @param {RequestLogEntry} entry filled in as the answer is decided
 * @param {(answer: Answer) => void} [remember] takes the answer of a GET or HEAD of a file in memory, without Range
 */
async function respond(root, tags, find, gzipped, cacheHeaders, req, res, entry, remember) {
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendText(req, res, entry, 405, { Allow: 'GET, HEAD' });
  const accept = req.headers.accept;
  // The server configs an older build wrote into the site are not part of it.
  const parsed = parseTarget(req.url ?? '');
  if (!('status' in parsed) && parsed.segments[0]?.toLowerCase() === CONFIGS_DIR) return sendText(req, res, entry, 404);
  const located = await find.locate(root, req.url ?? '', typeof accept === 'string' ? accept : '');
  if ('status' in located) return sendText(req, res, entry, located.status);
  if ('redirect' in located) return sendText(req, res, entry, 301, { Location: located.redirect });
  const { file } = located;
  // A sidecar is a representation of the file beside it, sent by Accept-Encoding, never a file of its own:
  // x.css.gz asked for by name is 404 (a x.tar.gz with no x.tar beside it is a file like any other).
  if (await isSidecarOfFile(file.absolute)) return sendText(req, res, entry, 404);

  const representations = new Map([[/** @type {import('./negotiate.js').Coding} */ ('identity'), file.entry], ...(await find.sidecars(root, file))]);
  const available = [...representations.keys()];
  // A file without sidecars of its own, of a type servers compress, is gzipped here if the client takes gzip
  // (an empty one is not: it would only grow).
  const onTheFly = gzipped !== undefined && representations.size === 1 && file.entry.stats.size > 0 && isCompressibleType(contentType(file.path));
  if (onTheFly) available.push('gzip');
  // Caches must key every response of a negotiated file by Accept-Encoding, identity too.
  /** @type {Headers} */
  const vary = available.length > 1 ? { Vary: 'Accept-Encoding' } : {};
  const acceptEncoding = req.headers['accept-encoding'];
  const coding = chooseEncoding(typeof acceptEncoding === 'string' ? acceptEncoding : undefined, available);
  if (!coding) return sendText(req, res, entry, 406, vary);
  /** The gzip is made from the identity bytes. */
  const made = onTheFly && coding === 'gzip';
  const real = /** @type {import('./files.js').Entry} */ (representations.get(made ? 'identity' : coding)).real;

  let source = await (find.open ?? openFile)(real, tags, made ? 'identity' : coding);
  if (!source) return sendText(req, res, entry, 404);
  let streaming = false;
  try {
    if (made && gzipped) {
      // Validators of the identity file, with the coding in the tag: a distinct representation (as Apache's "-gzip").
      const identity = source;
      const bytes = await gzipped.get(real, identity.stats, async () => identity.bytes ?? /** @type {import('node:fs/promises').FileHandle} */ (identity.handle).readFile());
      await identity.handle?.close();
      source = { stats: identity.stats, etag: identity.etag.replace(/"$/, '-gzip"'), bytes };
    }
    const { stats, etag } = source;
    /** The representation's length: a gzip made here is not the file's. */
    const size = source.bytes ? source.bytes.length : stats.size;
    entry.file = file.path;
    entry.encoding = coding;
    /** @type {Headers} */
    const validators = {
      ...vary,
      ETag: etag,
      'Last-Modified': stats.mtime.toUTCString(),
      // The configs' policy: a page is revalidated on every use, so a rebuilt site shows on the next load.
      ...(cacheHeaders === 'policy' ? { 'Cache-Control': CACHE_CONTROL[cachePolicy(file.path)] } : {}),
    };
    /** @type {Headers} */
    const headers = { 'Content-Type': contentType(file.path), ...validators };
    if (coding === 'identity') headers['Accept-Ranges'] = 'bytes';
    else headers['Content-Encoding'] = coding;
    if (remember && source.bytes) {
      // A whole file from a snapshot, no Range: answered as every later request with the same key will be.
      const answer = { file: file.path, coding, etag, modified: stats.mtime, validators, headers: { ...headers, 'Content-Length': size }, bytes: source.bytes };
      remember(answer);
      sendAnswer(req, res, entry, answer);
      return;
    }
    if (isNotModified(req.headers, etag, stats.mtime)) {
      writeHead(res, 304, validators);
      res.end();
      return;
    }
    // Ranges are of the identity bytes only: a range of a compressed body cannot be decoded.
    const range = coding === 'identity' ? requestedRange(req.headers, size, etag, stats.mtime) : null;
    if (range === 'unsatisfiable') {
      return sendText(req, res, entry, 416, { ...vary, 'Accept-Ranges': 'bytes', 'Content-Range': `bytes */${size}` });
    }
    const start = range ? range.start : 0;
    const length = range ? range.end - range.start + 1 : size;
    if (range) headers['Content-Range'] = `bytes ${range.start}-${range.end}/${size}`;
    headers['Content-Length'] = length;
    writeHead(res, range ? 206 : 200, headers);
    if (req.method === 'HEAD' || length === 0) {
      res.end();
      return;
    }
    // The client may have left while the file was looked up: an HTTP/2 response
    // whose stream is gone never tells pipeline() so, and the file would stay open.
    if ('stream' in res ? res.stream.destroyed : res.destroyed) return;
    entry.bytes = length;
    if (source.bytes) {
      res.end(source.bytes.subarray(start, start + length));
      return;
    }
    streaming = true;
    // The stream owns the handle now and closes it at the end or when the
    // client leaves (pipeline destroys both sides; the error is the client's).
    const body = /** @type {import('node:fs/promises').FileHandle} */ (source.handle).createReadStream({ start, end: start + length - 1 });
    res.once('close', () => body.destroy());
    pipeline(body, res, () => {});
  } finally {
    if (!streaming) await source.handle?.close();
  }
}

/** Where older builds wrote the server configs, in the site's root (src/configs/shared.js: CONFIGS_DIR). */
const CONFIGS_DIR = 'pagediet-configs';

/**
 * Whether a file is a precompressed sidecar: its extension is a coding's (.br, .gz, .zst) and the file
 * without it exists beside it.
 * @param {string} absolute
 */
async function isSidecarOfFile(absolute) {
  const extension = extensionOf(absolute);
  if (!(/** @type {string[]} */ (Object.values(SIDECAR_EXTENSIONS))).includes(extension)) return false;
  const source = absolute.slice(0, -(extension.length + 1));
  return fs.stat(source).then((s) => s.isFile(), () => false);
}

/**
 * @typedef {object} Source a representation ready to send
 * @property {import('node:fs').Stats} stats of the open file, so headers describe the bytes sent
 * @property {string} etag
 * @property {import('node:fs/promises').FileHandle} [handle] to stream from (the caller closes it)
 * @property {Buffer} [bytes] the whole file, from a snapshot
 */

/**
 * Opens a representation for one response.
 * @param {string} real
 * @param {EntityTags} tags
 * @param {string} coding
 * @returns {Promise<Source | null>}
 */
async function openFile(real, tags, coding) {
  let handle;
  try {
    handle = await fs.open(real, 'r');
  } catch {
    return null;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) {
      await handle.close();
      return null;
    }
    return { stats, etag: await tags.get(real, handle, stats, coding), handle };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Files up to this size are kept in memory by a snapshot; larger ones are streamed each time. */
const SNAPSHOT_FILE_LIMIT = 1024 * 1024;

/**
 * A short text/plain answer: errors, redirects, 416.
 * @param {Request} req
 * @param {Response} res
 * @param {RequestLogEntry} entry
 * @param {number} status
 * @param {Headers} [headers]
 */
function sendText(req, res, entry, status, headers = {}) {
  const body = Buffer.from(`${status} ${STATUS_CODES[status]}\n`);
  writeHead(res, status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': body.length, ...headers });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  entry.bytes = body.length;
  res.end(body);
}

/**
 * Sets the status and headers (written with the first byte of the body or at end()).
 * @param {Response} res
 * @param {number} status
 * @param {Headers} headers
 */
function writeHead(res, status, headers) {
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
}

/**
 * @param {string[]} rawHeaders names and values, alternating
 */
function headerListSize(rawHeaders) {
  let size = 0;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) size += rawHeaders[i].length + rawHeaders[i + 1].length + 32;
  return size;
}

/**
 * The Content-Type of a site path. A requested `x.gz` is a gzip file to the
 * client (no Content-Encoding), so it gets its own type rather than x's.
 * @param {string} sitePath
 */
function contentType(sitePath) {
  const extension = extensionOf(sitePath);
  if (extension === 'gz') return 'application/gzip';
  if (extension === 'zst') return 'application/zstd';
  return mimeType(sitePath);
}

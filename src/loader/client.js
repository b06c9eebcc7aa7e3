/**
 * The robot: loads a page the way a browser does, over one of the transport
 * strategies the studies compared, and records every request as it really
 * crossed the connection: request and response header bytes, body bytes,
 * status, encoding, connection, and the request that revealed it.
 *
 * Three visits: 'first' (nothing cached: every object is fetched, and what
 * may be stored is), 'revalidate' (every object asked again with the
 * validators the first visit got: the 1997 study's cache validation), and
 * 'repeat' (a browser coming back betweenVisits later, its HTTP cache kept:
 * a fresh object is taken from the cache without a request, a stale one is
 * revalidated, one not stored is fetched; freshness.js has the rules). The
 * repeat visit's clock is set ahead, never slept.
 *
 * HTTP/1.x runs on raw sockets (node's http client neither pipelines nor
 * reports header sizes); HTTP/2 runs on node:http2 over a tapped stream
 * whose frames are counted by stream.
 */
import net from 'node:net';
import http2 from 'node:http2';
import zlib from 'node:zlib';
import { Duplex } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { ResponseParser } from './http1-parser.js';
import { FrameCounter } from './h2-frames.js';
import { discoverSubresources } from './discover.js';
import { cacheDecision, isStorable, updatedBy304, varyingFields } from './freshness.js';
import { VERSION } from '../build/summary.js';

/**
 * @typedef {'http1.0' | 'http1.1' | 'pipelined' | 'h2'} Strategy
 * @typedef {'first' | 'revalidate' | 'repeat'} Visit
 *
 * @typedef {object} RequestRecord
 * @property {number} order when it was issued, from 0 (the page); objects taken from the cache have their place too
 * @property {string} path path and query
 * @property {string} kind 'page' or the reference kind that revealed it
 * @property {number | null} parent order of the request whose response revealed it
 * @property {boolean} blocking the page's first render waits for it: the page, a render-blocking style sheet or
 *   script of it, an `@import` of one (first-render.js)
 * @property {boolean} paint the image the page names as its largest paint (`fetchpriority="high"`)
 * @property {boolean} fromCache taken from the robot's cache, fresh, without a request (a repeat visit): no connection,
 *   no bytes; status, type and decoded bytes are the stored response's
 * @property {number} connection which connection carried it, from 0 (-1 when from the cache)
 * @property {number} batch requests written to the connection together share a batch (-1 when from the cache)
 * @property {number} requestBytes the request as sent (HTTP/2: its HEADERS frames)
 * @property {number} responseHeaderBytes status line and headers (HTTP/2: HEADERS frames)
 * @property {number} bodyBytes body bytes as sent (compressed when encoded)
 * @property {number} framingBytes chunked encoding or HTTP/2 DATA frame headers
 * @property {number} status
 * @property {string | null} encoding Content-Encoding
 * @property {string} contentType
 * @property {number} decodedBytes the body after decoding
 * @property {number} startMs
 * @property {number} endMs
 *
 * @typedef {object} ConnectionRecord
 * @property {number} id
 * @property {number} controlUp bytes the client sent that belong to no request (HTTP/2 preface, SETTINGS, ...)
 * @property {number} controlDown the same from the server
 * @property {number[][]} writes for each write the client made, the requests in it
 *
 * @typedef {object} Trace
 * @property {string} page
 * @property {Strategy} protocol
 * @property {Visit} visit
 * @property {RequestRecord[]} requests
 * @property {ConnectionRecord[]} connections
 * @property {number} ms real elapsed time on this machine
 *
 * @typedef {object} CacheFields what the robot's cache keeps of a response besides what RFC 9111's rules read
 * @property {Buffer} body decoded
 * @property {string} contentType
 *
 * @typedef {import('./freshness.js').StoredResponse & CacheFields} CacheEntry a stored response, as a browser's
 *   HTTP cache keeps it: status, header fields (Date on the robot's clock), the request fields its Vary names,
 *   request and response times (the robot's clock, ms since the epoch), validators and the decoded body
 *
 * @typedef {object} LoadOptions
 * @property {string} origin e.g. http://127.0.0.1:8080
 * @property {string} page path of the page, e.g. /index.html
 * @property {Strategy} protocol
 * @property {Visit} [visit]
 * @property {number} [connections] parallel connections for http1.0 (default 4, Netscape's in 1997)
 * @property {string} [acceptEncoding] default 'br, gzip'
 * @property {Map<string, CacheEntry>} [cache] by path: filled by a first visit (and a repeat visit's answers), read by
 *   a revalidation and a repeat visit
 * @property {number} [betweenVisits] seconds: a repeat visit's clock runs this far ahead of the real one when no
 *   `clock` is given (default DEFAULT_BETWEEN_VISITS, a day)
 * @property {() => number} [clock] the robot's clock for its cache, ms since the epoch (default: the real one, and for a
 *   repeat visit the real one plus betweenVisits)
 */

export const STRATEGIES = /** @type {const} */ (['http1.0', 'http1.1', 'pipelined', 'h2']);

/** The visits the robot makes, in the order a load makes them. */
export const VISITS = /** @type {const} */ (['first', 'revalidate', 'repeat']);

/** Seconds between the first and the repeat visit unless told: a day. */
export const DEFAULT_BETWEEN_VISITS = 86_400;

/** How long the robot waits for a server that said it closes before it closes itself. */
const SERVER_CLOSE_WAIT_MS = 2000;

/**
 * Loads a page; a revalidation or a repeat visit needs the cache its first visit filled.
 * @param {LoadOptions} options
 * @returns {Promise<Trace>}
 */
export async function loadPage(options) {
  const visit = options.visit ?? 'first';
  const cache = options.cache ?? new Map();
  if (visit !== 'first' && cache.size === 0) throw new Error(`a ${visit === 'repeat' ? 'repeat visit' : 'revalidation'} needs the cache of a first visit`);
  const load = new PageLoad(options, visit, cache);
  const t0 = performance.now();
  const runners = { 'http1.0': runHttp10, 'http1.1': runHttp11, pipelined: runPipelined, h2: runH2 };
  await runners[options.protocol](load);
  return { page: options.page, protocol: options.protocol, visit, requests: load.records, connections: load.connections, ms: performance.now() - t0 };
}

/** The state of one page load: what is known, queued, and recorded. */
class PageLoad {
  /**
   * @param {LoadOptions} options
   * @param {Visit} visit
   * @param {Map<string, CacheEntry>} cache
   */
  constructor(options, visit, cache) {
    this.options = options;
    this.visit = visit;
    this.cache = cache;
    this.origin = new URL(options.origin);
    this.t0 = performance.now();
    const ahead = visit === 'repeat' ? (options.betweenVisits ?? DEFAULT_BETWEEN_VISITS) * 1000 : 0;
    /** The robot's clock for its cache, ms since the epoch. @type {() => number} */
    this.clock = options.clock ?? (() => Date.now() + ahead);
    /** The validators each conditional request sends, by order. @type {Map<number, [string, string][]>} */
    this.validators = new Map();
    /** When each request was sent, on the robot's clock, by order. @type {Map<number, number>} */
    this.sentAt = new Map();
    /** @type {RequestRecord[]} */
    this.records = [];
    /** @type {ConnectionRecord[]} */
    this.connections = [];
    /** Requests discovered and not yet sent. @type {RequestRecord[]} */
    this.queue = [];
    /** @type {Set<string>} */
    this.seen = new Set();
    /** Takers waiting for a response to complete. @type {(() => void)[]} */
    this.waiters = [];
    this.inFlight = 0;
    /** The headers every request of the load sends. @type {[string, string][]} */
    this.commonHeaders = [
      ['User-Agent', `pagediet/${VERSION}`],
      ['Accept', '*/*'],
      ['Accept-Encoding', options.acceptEncoding ?? 'br, gzip'],
    ];
    /** The same, with Host, as HTTP/1 lines, serialised once. */
    this.commonHttp1Lines = [`Host: ${this.origin.host}`, ...this.commonHeaders.map(([k, v]) => `${k}: ${v}`)].join('\r\n');
    /** The same as fields, for Vary. @type {import('./freshness.js').Fields} */
    this.requestFields = Object.fromEntries([['host', this.origin.host], ...this.commonHeaders.map(([k, v]) => [k.toLowerCase(), v])]);
    this.enqueue(new URL(options.page, this.origin), 'page', null, true, false);
  }

  /**
   * A new object the page needs: queued for the network, or, in a repeat visit, taken from the cache when it is
   * fresh there (and what it reveals with it).
   * @param {URL} url @param {string} kind @param {number | null} parent @param {boolean} blocking @param {boolean} paint
   */
  enqueue(url, kind, parent, blocking, paint) {
    const path = url.pathname + url.search;
    if (this.seen.has(path)) return;
    this.seen.add(path);
    /** @type {RequestRecord} */
    const record = { order: this.records.length, path, kind, parent, blocking, paint, fromCache: false, connection: -1, batch: -1, requestBytes: 0, responseHeaderBytes: 0, bodyBytes: 0, framingBytes: 0, status: 0, encoding: null, contentType: '', decodedBytes: 0, startMs: 0, endMs: 0 };
    this.records.push(record);
    const cached = this.visit === 'first' ? undefined : this.cache.get(path);
    if (cached && this.visit === 'repeat') {
      const decision = cacheDecision(cached, this.requestFields, this.clock());
      if (decision === 'fresh') return this.fromCache(record, cached);
      if (decision === 'stale') this.validators.set(record.order, validatorsOf(cached));
    } else if (cached) this.validators.set(record.order, validatorsOf(cached));
    this.queue.push(record);
  }

  /**
   * An object taken from the cache without a request: recorded, and what its body reveals found.
   * @param {RequestRecord} record @param {CacheEntry} cached
   */
  fromCache(record, cached) {
    record.fromCache = true;
    record.status = cached.status;
    record.contentType = cached.contentType;
    record.decodedBytes = cached.body.length;
    record.startMs = record.endMs = this.now();
    this.reveal(record, cached.body, cached.contentType);
  }

  /** @param {RequestRecord} record @param {Buffer} body @param {string} contentType */
  reveal(record, body, contentType) {
    for (const found of discoverSubresources(body, contentType, this.origin.origin + record.path)) {
      // An @import blocks the first render when what imports it (the page's <style>, a style sheet) does.
      const blocking = found.blocking || (found.kind === 'css-import' && record.blocking);
      this.enqueue(found.url, found.kind, record.order, blocking, found.paint);
    }
  }

  /** A request leaves now. @param {RequestRecord} record */
  sending(record) {
    record.startMs = this.now();
    this.sentAt.set(record.order, this.clock());
  }

  newConnection() {
    /** @type {ConnectionRecord} */
    const conn = { id: this.connections.length, controlUp: 0, controlDown: 0, writes: [] };
    this.connections.push(conn);
    return conn;
  }

  now() {
    return performance.now() - this.t0;
  }

  /** Request headers as a browser-like robot sends them. @param {RequestRecord} record */
  headers(record) {
    return [...this.commonHeaders, ...this.conditionalHeaders(record)];
  }

  /** The validators a revalidation sends for a request (none for a plain one). @param {RequestRecord} record */
  conditionalHeaders(record) {
    return this.validators.get(record.order) ?? [];
  }

  /** @param {RequestRecord} record @param {'HTTP/1.0' | 'HTTP/1.1'} version */
  http1Request(record, version) {
    let text = `GET ${record.path} ${version}\r\n${this.commonHttp1Lines}`;
    for (const [k, v] of this.conditionalHeaders(record)) text += `\r\n${k}: ${v}`;
    return Buffer.from(`${text}\r\n\r\n`, 'latin1');
  }

  /**
   * Records a response and queues what it reveals.
   * @param {RequestRecord} record
   * @param {{ status: number, headers: Record<string, string | string[] | undefined>, body: Buffer }} response
   */
  complete(record, response) {
    const headers = fieldsOf(response.headers);
    record.status = response.status;
    record.encoding = headers['content-encoding'] ?? null;
    record.endMs = this.now();
    const responseTime = this.clock();
    const requestTime = this.sentAt.get(record.order) ?? responseTime;
    // The robot's clock may run ahead of the server's (a repeat visit): the server's Date is read on the robot's.
    const ahead = responseTime - Date.now();
    if (headers.date && Math.abs(ahead) >= 1000) {
      const date = Date.parse(headers.date);
      if (!Number.isNaN(date)) headers.date = new Date(date + ahead).toUTCString();
    }
    // A revalidation reads the cache and leaves it as the first visit left it: the repeat visit comes after the first.
    const stores = this.visit !== 'revalidate';
    let body = null;
    let contentType = headers['content-type'] ?? '';
    if (response.status === 200) {
      body = decode(response.body, record.encoding);
      record.decodedBytes = body.length;
      if (stores && isStorable(200, headers)) {
        this.cache.set(record.path, {
          status: 200, headers, requestHeaders: varyingFields(headers, this.requestFields), requestTime, responseTime,
          body, contentType,
        });
      } else if (stores) this.cache.delete(record.path);
    } else if (response.status === 304) {
      const cached = this.cache.get(record.path);
      if (cached) {
        ({ body, contentType } = cached);
        if (stores) {
          this.cache.set(record.path, updatedBy304(cached, headers, requestTime, responseTime));
        }
      }
    }
    record.contentType = contentType;
    if (body) this.reveal(record, body, contentType);
    this.inFlight--;
    for (const resolve of this.waiters.splice(0)) resolve();
  }

  /**
   * Takes up to max queued requests, waiting while the queue is empty but
   * responses still to come may reveal more; an empty list means the page is done.
   * Taken requests count as in flight from here, so other takers wait for them.
   * @param {number} [max]
   * @returns {Promise<RequestRecord[]>}
   */
  async take(max = Infinity) {
    while (this.queue.length === 0 && this.inFlight > 0) {
      await new Promise((/** @type {(v?: unknown) => void} */ resolve) => this.waiters.push(resolve));
    }
    const taken = this.queue.splice(0, max);
    this.inFlight += taken.length;
    return taken;
  }
}

/**
 * The If-None-Match and If-Modified-Since a stored response gives a conditional request.
 * @param {CacheEntry} cached
 * @returns {[string, string][]}
 */
function validatorsOf(cached) {
  /** @type {[string, string][]} */
  const h = [];
  const { etag, 'last-modified': lastModified } = cached.headers;
  if (etag) h.push(['If-None-Match', etag]);
  if (lastModified) h.push(['If-Modified-Since', lastModified]);
  return h;
}

/**
 * A response's header fields by lower-case name, repeated ones joined, HTTP/2's pseudo-headers left out.
 * @param {Record<string, string | string[] | number | undefined>} headers
 * @returns {import('./freshness.js').Fields}
 */
function fieldsOf(headers) {
  /** @type {import('./freshness.js').Fields} */
  const fields = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.startsWith(':') || value === undefined) continue;
    fields[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return fields;
}

/**
 * @param {Buffer} body
 * @param {string | null} encoding
 */
function decode(body, encoding) {
  switch ((encoding ?? '').toLowerCase()) {
    case 'br': return zlib.brotliDecompressSync(body);
    case 'gzip': case 'x-gzip': return zlib.gunzipSync(body);
    case 'deflate': return zlib.inflateSync(body);
    case '': case 'identity': return body;
    default: throw new Error(`cannot decode Content-Encoding ${encoding}`);
  }
}

/**
 * A raw HTTP/1.x connection that reads responses in order.
 * @param {PageLoad} load
 */
async function openHttp1(load) {
  const socket = net.connect(Number(load.origin.port || 80), load.origin.hostname);
  socket.setNoDelay(true);
  await new Promise((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const conn = load.newConnection();
  const parser = new ResponseParser();
  /** @type {{ record: RequestRecord, resolve: () => void, reject: (e: Error) => void }[]} */
  const waiting = [];
  let closed = false;
  /** Whether the last response said the server closes after it (HTTP/1.0, Connection: close). */
  let serverCloses = false;
  const settle = (/** @type {import('./http1-parser.js').ParsedResponse} */ r) => {
    serverCloses = r.close;
    const w = /** @type {typeof waiting[number]} */ (waiting.shift());
    w.record.responseHeaderBytes = r.headerBytes;
    w.record.bodyBytes = r.bodyBytes;
    w.record.framingBytes = r.bodyBytes - r.body.length;
    load.complete(w.record, { status: r.status, headers: r.headers, body: r.body });
    w.resolve();
  };
  socket.on('data', (chunk) => {
    try {
      for (const r of parser.push(chunk)) settle(r);
    } catch (error) {
      socket.destroy(/** @type {Error} */ (error));
    }
  });
  socket.on('end', () => {
    closed = true;
    const last = parser.end();
    if (last) settle(last);
    for (const w of waiting.splice(0)) w.reject(new Error(`connection closed before the response to ${w.record.path}`));
  });
  socket.on('error', (error) => {
    closed = true;
    for (const w of waiting.splice(0)) w.reject(error);
  });
  return {
    conn,
    get closed() { return closed; },
    /**
     * Writes requests in one write and resolves when all are answered.
     * @param {RequestRecord[]} records
     * @param {'HTTP/1.0' | 'HTTP/1.1'} version
     */
    send(records, version) {
      const buffers = records.map((record) => {
        const bytes = load.http1Request(record, version);
        record.requestBytes = bytes.length;
        record.connection = conn.id;
        record.batch = conn.writes.length;
        load.sending(record);
        parser.expect.push('GET');
        return bytes;
      });
      conn.writes.push(records.map((r) => r.order));
      const done = records.map((record) => new Promise((/** @type {(v?: unknown) => void} */ resolve, reject) => waiting.push({ record, resolve, reject })));
      socket.write(Buffer.concat(buffers));
      return Promise.all(done);
    },
    close() {
      if (closed) return Promise.resolve(undefined);
      // A server that said it closes closes first, and the socket answers its FIN by itself
      // (allowHalfOpen is off), as an HTTP/1.0 client reading to the end did. Ending it here at
      // once would race the server's FIN: two FINs that cross cost a packet more, now and then.
      const timer = serverCloses ? setTimeout(() => socket.end(), SERVER_CLOSE_WAIT_MS) : undefined;
      if (!serverCloses) socket.end();
      return new Promise((resolve) => socket.once('close', () => {
        clearTimeout(timer);
        resolve(undefined);
      }));
    },
  };
}

/** HTTP/1.0: a new connection per request, at most N at once. @param {PageLoad} load */
async function runHttp10(load) {
  const limit = load.options.connections ?? 4;
  const worker = async () => {
    for (let batch = await load.take(1); batch.length; batch = await load.take(1)) {
      const connection = await openHttp1(load);
      await connection.send(batch, 'HTTP/1.0');
      await connection.close();
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
}

/** HTTP/1.1: one persistent connection, one request at a time (none when every object is cached fresh). @param {PageLoad} load */
async function runHttp11(load) {
  /** @type {Awaited<ReturnType<typeof openHttp1>> | null} */
  let connection = null;
  for (let batch = await load.take(1); batch.length; batch = await load.take(1)) {
    if (!connection || connection.closed) connection = await openHttp1(load);
    await connection.send(batch, 'HTTP/1.1');
  }
  await connection?.close();
}

/**
 * Pipelined HTTP/1.1: the page request alone, then every request known at a
 * time written in one buffer, without waiting for earlier responses.
 * @param {PageLoad} load
 */
async function runPipelined(load) {
  let batch = await load.take();
  if (!batch.length) return;
  const connection = await openHttp1(load);
  /** @type {Promise<unknown>[]} */
  const pending = [];
  for (; batch.length; batch = await load.take()) {
    pending.push(connection.send(batch, 'HTTP/1.1'));
  }
  await Promise.all(pending);
  await connection.close();
}

/** HTTP/2: one connection, every request multiplexed as soon as it is known. @param {PageLoad} load */
async function runH2(load) {
  let batch = await load.take();
  if (!batch.length) return;
  const up = new FrameCounter(true);
  const down = new FrameCounter(false);
  const conn = load.newConnection();
  const session = http2.connect(load.origin.origin, { createConnection: () => tappedSocket(load.origin, up, down) });
  await new Promise((resolve, reject) => {
    session.once('connect', resolve);
    session.once('error', reject);
  });
  /** @type {Promise<void>[]} */
  const pending = [];
  /** @type {{ record: RequestRecord, stream: import('node:http2').ClientHttp2Stream }[]} */
  const streams = [];
  for (; batch.length; batch = await load.take()) {
    conn.writes.push(batch.map((r) => r.order));
    for (const record of batch) {
      record.connection = conn.id;
      record.batch = conn.writes.length - 1;
      load.sending(record);
      const headers = Object.fromEntries([[':path', record.path], ...load.headers(record).map(([k, v]) => [k.toLowerCase(), v])]);
      const stream = session.request(headers, { endStream: true });
      streams.push({ record, stream });
      pending.push(new Promise((resolve, reject) => {
        /** @type {Buffer[]} */
        const chunks = [];
        /** @type {import('node:http2').IncomingHttpHeaders & import('node:http2').IncomingHttpStatusHeader} */
        let responseHeaders = {};
        stream.on('response', (h) => { responseHeaders = h; });
        stream.on('data', (c) => chunks.push(c));
        stream.on('end', () => {
          load.complete(record, { status: Number(responseHeaders[':status']), headers: responseHeaders, body: Buffer.concat(chunks) });
          resolve();
        });
        stream.on('error', reject);
      }));
    }
  }
  await Promise.all(pending);
  await new Promise((resolve) => session.close(() => resolve(undefined)));
  for (const { record, stream } of streams) {
    const id = /** @type {number} */ (stream.id);
    record.requestBytes = up.stream(id).headerBytes;
    const d = down.stream(id);
    record.responseHeaderBytes = d.headerBytes;
    record.bodyBytes = d.dataBytes;
    record.framingBytes = d.framingBytes;
  }
  conn.controlUp = up.controlBytes;
  conn.controlDown = down.controlBytes;
}

/**
 * A socket to the server whose bytes are counted frame by frame both ways.
 * @param {URL} origin
 * @param {FrameCounter} up
 * @param {FrameCounter} down
 */
function tappedSocket(origin, up, down) {
  const socket = net.connect(Number(origin.port || 80), origin.hostname);
  socket.setNoDelay(true);
  const duplex = new Duplex({
    write(chunk, _encoding, callback) {
      up.push(chunk);
      // node:http2 hands this stream one frame at a time, the next when the last is written.
      // Taking each at once and holding them to the end of the tick sends frames made together
      // in one write, as a browser sends a batch of requests, not one packet per HEADERS frame.
      if (!socket.writableCorked) {
        socket.cork();
        process.nextTick(() => socket.uncork());
      }
      if (socket.write(chunk)) callback();
      else socket.once('drain', () => callback());
    },
    read() {},
    final(callback) {
      socket.end();
      callback();
    },
    destroy(error, callback) {
      socket.destroy();
      callback(error);
    },
  });
  socket.on('data', (chunk) => {
    down.push(chunk);
    duplex.push(chunk);
  });
  socket.on('end', () => duplex.push(null));
  socket.on('error', (error) => duplex.destroy(error));
  return duplex;
}

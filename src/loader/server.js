/**
 * The static file server that the robot loads pages from and that
 * `pagediet serve` runs. One handler (handler.js) behind one of three
 * protocols:
 *
 * - `http1`: node:http, so HTTP/1.0 (closed after each response unless the
 *   client asks for keep-alive) and HTTP/1.1 with keep-alive and pipelining
 *   (node answers pipelined requests in order; write-batching.js sends the
 *   replies to requests that arrived together in one write);
 * - `h2c`: HTTP/2 in cleartext, with prior knowledge (no Upgrade from HTTP/1.1);
 * - `h2`: HTTP/2 over TLS with a self-signed certificate made at start, and
 *   HTTP/1.1 over TLS for clients that do not offer h2.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import { selfSignedCertificate } from './certificate.js';
import { createHandler } from './handler.js';
import { batchWrites } from './write-batching.js';

/**
 * @typedef {'http1' | 'h2c' | 'h2'} Protocol
 *
 * @typedef {object} ServerOptions
 * @property {string} root the directory to serve
 * @property {string} [host] address to listen on (default 127.0.0.1: never the network unless asked)
 * @property {number} [port] 0 (the default) picks a free port
 * @property {Protocol} [protocol] default 'http1'
 * @property {boolean} [keepAlive] default true; false answers every HTTP/1 request
 *   with Connection: close, like an HTTP/1.0-only server (the 1999 study's "downgrade-1.0").
 *   HTTP/2 always keeps its one connection.
 * @property {number} [maxHeaderSize] bytes of request headers accepted, default 16 KiB; past it, 431
 * @property {boolean} [snapshot] the directory holds still while served (measurements): file lookups are remembered
 *   (HTTP/2 also announces it as SETTINGS_MAX_HEADER_LIST_SIZE, and measures it as RFC 9113 does)
 * @property {number} [headersTimeout] ms a client has to send its request headers (HTTP/1) or finish
 *   the TLS handshake (h2); default 10 s, so a slow client cannot hold a connection forever
 * @property {(entry: import('./handler.js').RequestLogEntry) => void} [onRequest] called when each response is over
 * @property {number} [maxRequestsPerSecond] per connection or HTTP/2 session; past it, 429 (and an HTTP/1
 *   connection closes; default 1000)
 * @property {import('./on-the-fly.js').CompressOnTheFly} [compressOnTheFly] serve as an ordinary server would:
 *   `'gzip'` gzips each file of a compressible type (COMPRESSIBLE_TYPES) that has no precompressed sidecar, at
 *   level 6 (ON_THE_FLY), for clients that accept gzip; `{ gzip: level }` at another zlib level (1 to 9). Each
 *   gzip is made once and kept in memory, so its bytes and Content-Length are the same on every request; its ETag
 *   is the file's with `-gzip`. Files with sidecars are served as without it. Default off: only the files there are.
 * @property {import('./handler.js').CacheHeaders} [cacheHeaders] the Cache-Control of files' responses: 'policy' (the
 *   default), that of pagediet's server configs (pages `no-cache`, fingerprinted names
 *   `public, max-age=31536000, immutable`, other files `public, max-age=3600, must-revalidate`); 'none', no
 *   Cache-Control, only ETag and Last-Modified, as stock nginx and Apache send (browsers' heuristic freshness applies)
 *
 * @typedef {object} RunningServer
 * @property {string} url the origin, e.g. http://127.0.0.1:49152
 * @property {number} port
 * @property {Protocol} protocol
 * @property {string} [certificate] the h2 server's certificate (PEM), for a client that wants to trust exactly it
 * @property {() => Promise<void>} close stops listening and ends every open connection
 */

/** @type {readonly Protocol[]} */
export const PROTOCOLS = ['http1', 'h2c', 'h2'];

const DEFAULT_HEADERS_TIMEOUT = 10_000;
/** HTTP/2 sessions and TLS connections with no traffic at all for this long are closed. */
const IDLE_TIMEOUT = 60_000;

/**
 * Starts a server and resolves once it is listening.
 * @param {ServerOptions} options
 * @returns {Promise<RunningServer>}
 */
export async function startServer(options) {
  const protocol = options.protocol ?? 'http1';
  if (!PROTOCOLS.includes(protocol)) throw new TypeError(`unknown protocol '${protocol}' (expected ${PROTOCOLS.join(', ')})`);
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`port must be an integer from 0 to 65535, not ${port}`);
  const maxHeaderSize = options.maxHeaderSize ?? 16 * 1024;
  const headersTimeout = options.headersTimeout ?? DEFAULT_HEADERS_TIMEOUT;
  // The real root: every file's real path is checked against it.
  const root = await fs.realpath(options.root);
  if (!(await fs.stat(root)).isDirectory()) throw new Error(`${options.root} is not a directory`);
  const handler = createHandler({
    root,
    keepAlive: options.keepAlive ?? true,
    onRequest: options.onRequest,
    // node:http answers 431 itself; node:http2 only announces the limit.
    headerLimit: protocol === 'http1' ? undefined : maxHeaderSize,
    snapshot: options.snapshot ?? false,
    maxRequestsPerSecond: options.maxRequestsPerSecond,
    compressOnTheFly: options.compressOnTheFly,
    cacheHeaders: options.cacheHeaders,
  });

  /** @type {http.Server | http2.Http2Server | http2.Http2SecureServer} */
  let server;
  /** @type {string | undefined} */
  let certificate;
  if (protocol === 'http1') {
    server = http.createServer(
      {
        maxHeaderSize,
        headersTimeout,
        requestTimeout: Math.max(30_000, headersTimeout),
        // Node checks those timeouts on this interval (30 s by default, which would triple them).
        connectionsCheckingInterval: Math.max(50, Math.min(1000, headersTimeout / 4)),
        noDelay: true,
      },
      handler,
    );
    // Replies to pipelined requests that arrived together leave in one write, as a buffering server's.
    server.on('connection', batchWrites);
  } else {
    const settings = { maxHeaderListSize: maxHeaderSize };
    if (protocol === 'h2c') {
      server = http2.createServer({ settings }, handler);
    } else {
      const { key, cert } = selfSignedCertificate({ host });
      certificate = cert;
      server = http2.createSecureServer({ key, cert, allowHTTP1: true, settings, handshakeTimeout: headersTimeout }, handler);
    }
    // Without a 'timeout' listener, node closes a session (or fallback HTTP/1 socket) that stays idle.
    server.setTimeout(IDLE_TIMEOUT);
  }

  // Every connection and session is tracked so close() can end them at once
  // instead of waiting for clients to hang up.
  /** @type {Set<net.Socket>} */
  const sockets = new Set();
  /** @type {Set<http2.Http2Session>} */
  const sessions = new Set();
  /** @param {net.Socket} socket */
  const track = (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  server.on('connection', track);
  server.on('secureConnection', track);
  server.on('session', (/** @type {http2.Http2Session} */ session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(undefined);
    });
  });
  const address = /** @type {net.AddressInfo} */ (server.address());
  const scheme = protocol === 'h2' ? 'https' : 'http';

  /** @type {Promise<void> | undefined} */
  let closing;
  return {
    url: `${scheme}://${net.isIPv6(host) ? `[${host}]` : host}:${address.port}`,
    port: address.port,
    protocol,
    ...(certificate && { certificate }),
    close() {
      closing ??= new Promise((resolve) => {
        server.close(() => resolve());
        for (const session of sessions) session.destroy();
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}

/**
 * Replies to requests that arrived together leave together.
 *
 * node:http hands a pipelined response to its socket only once the write of
 * the response before it has completed, so each response of a pipelined batch
 * is a write system call of its own, and a packet of its own whenever the
 * link is idle (Linux merges small writes only while earlier ones wait for
 * the link). A buffering server, as the 1997 study's Apache was, writes the
 * replies to the requests of one read in one write, and the network model
 * assumes that; corking the socket cannot do it, since a corked write never
 * completes and node:http would wait for it.
 *
 * batchWrites(socket) makes an HTTP/1 server socket take every write at once,
 * so node:http answers the next pipelined request within the same turn of the
 * event loop, and hands what the turn wrote to the kernel in one writev when
 * the turn is over (setImmediate), at end() or at destroy(). Past HOLD_BYTES not yet taken
 * by the kernel, a write waits for it as any socket write does, so a large
 * file still streams with backpressure.
 */
import net from 'node:net';

/** Bytes written but not yet taken by the kernel, past which a write waits. */
export const HOLD_BYTES = 64 * 1024;

/**
 * @typedef {{ chunk: Buffer | string, encoding: BufferEncoding }} Entry
 */

/**
 * Installs the batching on a freshly accepted socket (the server's 'connection' event).
 * The stream implementation methods (_write, _writev, _final, _destroy) are the
 * documented place to decide how a Writable's data reaches its destination.
 * @param {net.Socket} socket
 */
export function batchWrites(socket) {
  const base = net.Socket.prototype;
  /** @type {Entry[]} */
  let gathered = [];
  let gatheredBytes = 0;
  /** Gathered plus handed to the kernel and not yet written. */
  let unsentBytes = 0;
  /** The write that waits for the kernel, past HOLD_BYTES. @type {((error?: Error | null) => void) | null} */
  let waiting = null;
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    if (!gathered.length) return;
    const entries = gathered;
    const bytes = gatheredBytes;
    gathered = [];
    gatheredBytes = 0;
    /** @param {Error | null} [error] */
    const done = (error) => {
      unsentBytes -= bytes;
      const callback = waiting;
      if (callback && (error || unsentBytes <= HOLD_BYTES)) {
        waiting = null;
        callback(error);
      } else if (error) {
        socket.destroy(error);
      }
    };
    if (entries.length === 1) base._write.call(socket, entries[0].chunk, entries[0].encoding, done);
    else /** @type {NonNullable<typeof base._writev>} */ (base._writev).call(socket, entries, done);
  };

  /** @param {Entry[]} entries @param {(error?: Error | null) => void} callback */
  const take = (entries, callback) => {
    for (const entry of entries) {
      const bytes = typeof entry.chunk === 'string' ? Buffer.byteLength(entry.chunk, entry.encoding) : entry.chunk.length;
      gathered.push(entry);
      gatheredBytes += bytes;
      unsentBytes += bytes;
    }
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
    if (unsentBytes <= HOLD_BYTES) callback();
    else waiting = callback;
  };

  socket._write = (chunk, encoding, callback) => take([{ chunk, encoding }], callback);
  socket._writev = (chunks, callback) => take(chunks, callback);
  // Whatever was gathered goes before the FIN (the kernel sends queued writes before a shutdown),
  socket._final = (callback) => {
    flush();
    base._final.call(socket, callback);
  };
  // and before the socket closes: node:http writes a 400, 408 or 431 and destroys the socket at once.
  socket._destroy = (error, callback) => {
    flush();
    base._destroy.call(socket, error, callback);
  };
}

/**
 * An incremental HTTP/1.x response parser for the robot's raw sockets. It
 * reports the exact bytes of each response's header block and body as they
 * were on the wire, which node's http client does not, and it reads pipelined
 * responses back to back.
 */

/**
 * @typedef {object} ParsedResponse
 * @property {number} status
 * @property {string} version e.g. 'HTTP/1.1'
 * @property {Record<string, string>} headers lower-case names; repeated headers joined with ', '
 * @property {number} headerBytes status line, headers and the blank line, and those of any interim (1xx) responses before it
 * @property {Buffer} body the body, de-chunked (still content-encoded)
 * @property {number} bodyBytes body bytes on the wire, chunk framing included
 * @property {boolean} close whether the server will close the connection after it
 */

/** A header block longer than this is refused (node's own limit is 16 KiB). */
const MAX_HEADER_BYTES = 64 * 1024;
/** A chunk-size line (size and extensions) longer than this is refused. */
const MAX_CHUNK_LINE_BYTES = 4096;

export class ResponseParser {
  constructor() {
    /** @type {Buffer} */
    this.buffer = Buffer.alloc(0);
    /** Methods of the requests whose responses are awaited, in order. @type {string[]} */
    this.expect = [];
    /** @type {{ response: ParsedResponse, mode: 'length' | 'chunked' | 'close', remaining: number, chunks: Buffer[] } | null} */
    this.current = null;
    /** Bytes of interim (1xx) responses read since the last final one. */
    this.interimBytes = 0;
  }

  /**
   * Feeds bytes; returns the responses completed by them.
   * @param {Buffer} chunk
   * @returns {ParsedResponse[]}
   */
  push(chunk) {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    /** @type {ParsedResponse[]} */
    const done = [];
    for (;;) {
      if (!this.current) {
        const end = this.buffer.indexOf('\r\n\r\n');
        if (end < 0) {
          if (this.buffer.length > MAX_HEADER_BYTES) throw new Error(`a response header block longer than ${MAX_HEADER_BYTES} bytes`);
          break;
        }
        this.startResponse(end + 4);
        if (!this.current) continue; // an interim response: the final one follows
      }
      const finished = this.continueBody();
      if (!finished) break;
      done.push(finished);
    }
    return done;
  }

  /**
   * The connection closed: a body delimited by the close is complete.
   * @returns {ParsedResponse | null}
   */
  end() {
    const cur = this.current;
    if (!cur || cur.mode !== 'close') return null;
    cur.chunks.push(this.buffer);
    cur.response.bodyBytes += this.buffer.length;
    this.buffer = Buffer.alloc(0);
    return this.finish();
  }

  /** @param {number} headerEnd */
  startResponse(headerEnd) {
    const head = this.buffer.subarray(0, headerEnd).toString('latin1');
    this.buffer = this.buffer.subarray(headerEnd);
    const lines = head.split('\r\n');
    const statusLine = /^(HTTP\/\d\.\d) (\d{3})/.exec(lines[0]);
    if (!statusLine) throw new Error(`not an HTTP response: ${JSON.stringify(lines[0].slice(0, 40))}`);
    /** @type {Record<string, string>} */
    const headers = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    }
    const status = Number(statusLine[2]);
    // 100 Continue, 103 Early Hints...: interim responses precede the final one (RFC 9110, 15.2); 101 ends HTTP/1 on the connection and is final.
    if (status >= 100 && status < 200 && status !== 101) {
      this.interimBytes += headerEnd;
      return;
    }
    const method = this.expect.shift() ?? 'GET';
    const version = statusLine[1];
    const connection = (headers.connection ?? '').toLowerCase();
    const close = connection.includes('close') || (version === 'HTTP/1.0' && !connection.includes('keep-alive'));
    /** @type {ParsedResponse} */
    const response = { status, version, headers, headerBytes: headerEnd + this.interimBytes, body: Buffer.alloc(0), bodyBytes: 0, close };
    this.interimBytes = 0;
    const noBody = method === 'HEAD' || status === 204 || status === 304 || status === 101;
    if (noBody) this.current = { response, mode: 'length', remaining: 0, chunks: [] };
    else if ((headers['transfer-encoding'] ?? '').toLowerCase().includes('chunked')) this.current = { response, mode: 'chunked', remaining: -1, chunks: [] };
    else if ('content-length' in headers) this.current = { response, mode: 'length', remaining: Number(headers['content-length']), chunks: [] };
    else this.current = { response, mode: 'close', remaining: Infinity, chunks: [] };
  }

  /** @returns {ParsedResponse | null} the response, when its body is complete */
  continueBody() {
    const cur = /** @type {NonNullable<ResponseParser['current']>} */ (this.current);
    if (cur.mode === 'close') {
      cur.chunks.push(this.buffer);
      cur.response.bodyBytes += this.buffer.length;
      this.buffer = Buffer.alloc(0);
      return null;
    }
    if (cur.mode === 'length') {
      const take = Math.min(cur.remaining, this.buffer.length);
      cur.chunks.push(this.buffer.subarray(0, take));
      cur.response.bodyBytes += take;
      cur.remaining -= take;
      this.buffer = this.buffer.subarray(take);
      return cur.remaining === 0 ? this.finish() : null;
    }
    // Chunked: size line, data, CRLF; a zero-size chunk and trailers end it.
    for (;;) {
      const lineEnd = this.buffer.indexOf('\r\n');
      if (lineEnd < 0) {
        if (this.buffer.length > MAX_CHUNK_LINE_BYTES) throw new Error(`a chunk-size line longer than ${MAX_CHUNK_LINE_BYTES} bytes`);
        return null;
      }
      const line = this.buffer.subarray(0, lineEnd).toString('latin1');
      // chunk-size [ chunk-ext ] (RFC 9112, 7.1): hex digits, then optionally ';' and extensions.
      const match = /^([0-9A-Fa-f]{1,12})[ \t]*(?:;.*)?$/.exec(line);
      if (!match) throw new Error(`malformed chunk-size line: ${JSON.stringify(line.slice(0, 40))}`);
      const size = parseInt(match[1], 16);
      if (size === 0) {
        // The last chunk is followed by optional trailer lines and a blank line.
        const afterSize = lineEnd + 2;
        if (this.buffer.length < afterSize + 2) return null;
        const blank = this.buffer.subarray(afterSize, afterSize + 2).toString('latin1') === '\r\n';
        const trailersEnd = blank ? afterSize + 2 : this.buffer.indexOf('\r\n\r\n', afterSize);
        if (trailersEnd < 0) return null;
        const end = blank ? trailersEnd : trailersEnd + 4;
        cur.response.bodyBytes += end;
        this.buffer = this.buffer.subarray(end);
        return this.finish();
      }
      const total = lineEnd + 2 + size + 2;
      if (this.buffer.length < total) return null;
      cur.chunks.push(this.buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
      cur.response.bodyBytes += total;
      this.buffer = this.buffer.subarray(total);
    }
  }

  finish() {
    const cur = /** @type {NonNullable<ResponseParser['current']>} */ (this.current);
    cur.response.body = Buffer.concat(cur.chunks);
    this.current = null;
    return cur.response;
  }
}

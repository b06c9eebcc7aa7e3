/**
 * Counts the bytes of an HTTP/2 connection by stream, by reading the frame
 * headers of the bytes that cross the socket in each direction. node's http2
 * does not say how large HPACK made each header block; the frames do.
 */

const FRAME_HEADER = 9;
const PREFACE = 24; // "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
const DATA = 0x0;
const HEADERS = 0x1;
const CONTINUATION = 0x9;

/**
 * @typedef {object} StreamBytes
 * @property {number} headerBytes HEADERS and CONTINUATION frames, frame headers included
 * @property {number} dataBytes DATA payloads
 * @property {number} framingBytes DATA frame headers
 */

export class FrameCounter {
  /** @param {boolean} clientSide whether this direction starts with the client preface */
  constructor(clientSide) {
    this.skip = clientSide ? PREFACE : 0;
    /** Bytes not belonging to a stream: preface, SETTINGS, PING, WINDOW_UPDATE, GOAWAY, ... */
    this.controlBytes = clientSide ? PREFACE : 0;
    /** @type {Map<number, StreamBytes>} */
    this.streams = new Map();
    this.pending = Buffer.alloc(0);
    /** Bytes still to skip of the frame being read. */
    this.inFrame = 0;
    this.total = 0;
  }

  /** @param {Buffer} chunk */
  push(chunk) {
    this.total += chunk.length;
    let data = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = Buffer.alloc(0);
    if (this.skip) {
      const n = Math.min(this.skip, data.length);
      this.skip -= n;
      data = data.subarray(n);
    }
    while (data.length) {
      if (this.inFrame) {
        const n = Math.min(this.inFrame, data.length);
        this.inFrame -= n;
        data = data.subarray(n);
        continue;
      }
      if (data.length < FRAME_HEADER) {
        this.pending = Buffer.from(data);
        return;
      }
      const length = data.readUIntBE(0, 3);
      const type = data[3];
      const stream = data.readUInt32BE(5) & 0x7fffffff;
      if (stream !== 0 && (type === HEADERS || type === CONTINUATION || type === DATA)) {
        const s = this.streams.get(stream) ?? { headerBytes: 0, dataBytes: 0, framingBytes: 0 };
        if (type === DATA) {
          s.dataBytes += length;
          s.framingBytes += FRAME_HEADER;
        } else {
          s.headerBytes += FRAME_HEADER + length;
        }
        this.streams.set(stream, s);
      } else {
        this.controlBytes += FRAME_HEADER + length;
      }
      this.inFrame = length;
      data = data.subarray(FRAME_HEADER);
    }
  }

  /** @param {number} stream */
  stream(stream) {
    return this.streams.get(stream) ?? { headerBytes: 0, dataBytes: 0, framingBytes: 0 };
  }
}

/**
 * The robot's HTTP/1 response parser on input a server should not send:
 * malformed chunk framing ends with an error at once (it used to loop until
 * the heap was exhausted), and interim 1xx responses are not taken as the
 * final answer.
 */
import { describe, expect, it } from 'vitest';
import { ResponseParser } from '../src/loader/http1-parser.js';

/** @param {string} text */
const bytes = (text) => Buffer.from(text, 'latin1');

describe('the HTTP/1 response parser', () => {
  it('refuses a malformed chunk-size line at once', () => {
    for (const line of ['zz', '', '-5', '5 5', '0x5', 'ffffffffffffff']) {
      const parser = new ResponseParser();
      parser.expect.push('GET');
      expect(() => parser.push(bytes(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${line}\r\nabcde\r\n0\r\n\r\n`)), line).toThrow(/^malformed chunk-size line: /);
    }
  });

  it('refuses a chunk-size line or a header block that never ends, instead of buffering for ever', () => {
    const chunked = new ResponseParser();
    chunked.expect.push('GET');
    expect(chunked.push(bytes('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5'))).toEqual([]);
    expect(() => chunked.push(bytes('0'.repeat(5000)))).toThrow('a chunk-size line longer than 4096 bytes');
    const head = new ResponseParser();
    expect(() => head.push(bytes(`HTTP/1.1 200 OK\r\nX: ${'a'.repeat(70_000)}`))).toThrow('a response header block longer than 65536 bytes');
  });

  it('reads chunk extensions and trailers', () => {
    const parser = new ResponseParser();
    parser.expect.push('GET');
    const [r] = parser.push(bytes('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;name="v"\r\nabcde\r\n3 \r\nfgh\r\n0\r\nX-Trailer: 1\r\n\r\n'));
    expect(r.body.toString()).toBe('abcdefgh');
    expect(r.bodyBytes).toBe('5;name="v"\r\nabcde\r\n3 \r\nfgh\r\n0\r\nX-Trailer: 1\r\n\r\n'.length);
  });

  it('passes over interim 1xx responses to the final one, counting their bytes in its header', () => {
    const parser = new ResponseParser();
    parser.expect.push('GET', 'GET');
    const interim = 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n';
    const first = 'HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc';
    const second = 'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n';
    const done = parser.push(bytes(interim + first.slice(0, 10)));
    expect(done).toEqual([]);
    const rest = parser.push(bytes(first.slice(10) + second));
    expect(rest.map((r) => r.status)).toEqual([200, 404]);
    expect(rest[0].body.toString()).toBe('abc');
    expect(rest[0].headerBytes).toBe(interim.length + 'HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n'.length);
    expect(rest[1].headerBytes).toBe(second.length);
    expect(parser.expect).toEqual([]);
  });
});

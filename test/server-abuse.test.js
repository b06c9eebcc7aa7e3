// `pagediet serve` under abuse, on loopback: a thousand connections at once,
// slowloris clients that never finish their headers, a client that floods
// one connection with requests. Others are served all the while.
import net from 'node:net';
import http2 from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../src/loader/server.js';
import { tempDir, writeTree } from './helpers/tmp.js';

const PAGE = Buffer.from('<!doctype html><title>ok</title>\n');

/**
 * Sends raw bytes on a new connection and collects everything until the server closes it.
 * @param {number} port
 * @param {string} [request]
 */
function exchange(port, request) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    /** @type {Buffer[]} */
    const chunks = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    if (request) socket.write(request);
  });
}

/** @param {string} text */
const statuses = (text) => [...text.matchAll(/^HTTP\/1\.1 (\d{3}) /gm)].map((m) => Number(m[1]));

describe('serve under abuse', () => {
  /** @type {import('../src/loader/server.js').RunningServer} */
  let server;
  beforeAll(async () => {
    const root = await writeTree(await tempDir(), { 'index.html': PAGE });
    server = await startServer({ root, headersTimeout: 2000, maxRequestsPerSecond: 20 });
  });
  afterAll(() => server.close());

  it('answers 1000 concurrent connections, every one with the page', async () => {
    const request = 'GET /index.html HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n';
    const answers = await Promise.all(Array.from({ length: 1000 }, () => exchange(server.port, request)));
    const ok = answers.filter((a) => a.startsWith('HTTP/1.1 200 ') && a.endsWith(PAGE.toString('latin1')));
    expect(ok).toHaveLength(1000);
  }, 60_000);

  it('keeps serving others while 200 slowloris clients dribble headers, and closes those by the headers timeout', async () => {
    /** @type {net.Socket[]} */
    const slow = [];
    const closed = [];
    let closedCount = 0;
    for (let i = 0; i < 200; i++) {
      const socket = net.connect(server.port, '127.0.0.1');
      socket.on('error', () => {});
      closed.push(new Promise((resolve) => socket.on('close', () => resolve(++closedCount))));
      socket.write('GET / HTTP/1.1\r\nHost: t\r\n');
      slow.push(socket);
    }
    const drip = setInterval(() => {
      for (const s of slow) if (!s.destroyed) s.write('X-a: b\r\n');
    }, 100);
    try {
      // While they dribble, ordinary clients get whole answers.
      const answers = await Promise.all(Array.from({ length: 20 }, () => exchange(server.port, 'GET /index.html HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n')));
      for (const a of answers) expect(a.startsWith('HTTP/1.1 200 ')).toBe(true);
      expect(closedCount).toBe(0); // answered while every slow client still held its connection, not after they were gone
      await Promise.all(closed); // the server ends every slow connection (408) once its headers are late
    } finally {
      clearInterval(drip);
      for (const s of slow) s.destroy();
    }
  }, 30_000);

  it('answers 429 and closes a connection that floods it with pipelined requests', async () => {
    const request = 'GET /index.html HTTP/1.1\r\nHost: t\r\n\r\n';
    const text = await exchange(server.port, request.repeat(50));
    expect(statuses(text)).toEqual([...Array(20).fill(200), 429]);
    expect(text).toMatch(/HTTP\/1\.1 429 Too Many Requests\r\n(?:[^\r]+\r\n)*Retry-After: 1\r\n/);
    // A new connection is served again at once.
    expect(statuses(await exchange(server.port, 'GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n'))).toEqual([200]);
  });

  it('answers 429 to the streams of an HTTP/2 session past the rate, and serves a new session', async () => {
    const h2 = await startServer({ root: await writeTree(await tempDir(), { 'index.html': PAGE }), protocol: 'h2c', maxRequestsPerSecond: 5 });
    try {
      const statusesOf = async (/** @type {number} */ n) => {
        const session = http2.connect(h2.url);
        session.on('error', () => {});
        const results = await Promise.all(Array.from({ length: n }, () => new Promise((resolve) => {
          const stream = session.request({ ':path': '/index.html' });
          stream.on('response', (headers) => resolve(headers[':status']));
          stream.on('error', () => resolve('reset'));
          stream.on('close', () => resolve('closed'));
          stream.resume();
        })));
        session.destroy();
        return results;
      };
      expect(await statusesOf(8)).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
      expect(await statusesOf(1)).toEqual([200]);
    } finally {
      await h2.close();
    }
  });
});

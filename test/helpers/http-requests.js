// Requests with node's own clients, over HTTP/1.1 or HTTP/2, for the server tests.
import http from 'node:http';
import http2 from 'node:http2';

/** Rejects when the promise takes longer than ms: every wait in this file is bounded. */
export function within(ms, promise) {
  let timer;
  const timeout = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Headers without the ones that change per request or describe the connection. */
export function clean(headers) {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !name.startsWith(':') && !['date', 'connection', 'keep-alive'].includes(name)));
}

/**
 * One request over a new connection, in the server's protocol.
 * @returns {Promise<{ status: number, headers: Record<string, string>, body: Buffer }>}
 */
export function request(server, urlPath, { method = 'GET', headers = {} } = {}) {
  return within(10_000, server.protocol === 'http1' ? http1Request(server.port, urlPath, method, headers) : h2Request(server.url, urlPath, method, headers));
}

export function http1Request(port, urlPath, method = 'GET', headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: urlPath, method, headers, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: clean(res.headers), body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

export async function h2Request(url, urlPath, method, headers) {
  const session = http2.connect(url, { rejectUnauthorized: false });
  try {
    return await new Promise((resolve, reject) => {
      session.on('error', reject);
      const stream = session.request({ ':method': method, ':path': urlPath, ...headers });
      let head = {};
      const chunks = [];
      stream.on('response', (h) => (head = h));
      stream.on('data', (c) => chunks.push(c));
      stream.on('end', () => resolve({ status: head[':status'], headers: clean(head), body: Buffer.concat(chunks) }));
      stream.on('error', reject);
      stream.end();
    });
  } finally {
    session.close();
  }
}


/**
 * Run inside the test's network namespace by netns.js:
 * `node netns-server.js <root> <address>` starts pagediet's HTTP/1 and h2c
 * servers for <root> on <address>, prints their origins as one JSON line,
 * and serves until SIGTERM or until its stdin closes (the test is gone).
 */
import { startServer } from '../../src/loader/server.js';

const [root, host] = process.argv.slice(2);
const http1 = await startServer({ root, host, protocol: 'http1', snapshot: true });
const h2c = await startServer({ root, host, protocol: 'h2c', snapshot: true });
process.stdout.write(`${JSON.stringify({ http1: http1.url, h2c: h2c.url })}\n`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await Promise.all([http1.close(), h2c.close()]);
  process.exit(0);
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();

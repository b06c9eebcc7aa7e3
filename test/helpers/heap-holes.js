// Run by test/arena-limit.test.js (node --expose-gc): allocates 1,500 buffers
// of 40 KiB, each followed by a small one that stays, frees the large ones and
// prints the resident set at its peak and after, in MB.
const gc = /** @type {() => void} */ (globalThis.gc);
/** @type {Buffer[]} */
let large = [];
/** @type {Buffer[]} */
const pinned = [];
for (let i = 0; i < 1500; i++) {
  large.push(Buffer.allocUnsafeSlow(40 * 1024).fill(1));
  pinned.push(Buffer.allocUnsafeSlow(512).fill(2));
}
const peak = process.memoryUsage().rss;
large = [];
for (let i = 0; i < 3; i++) {
  gc();
  await new Promise((resolve) => setTimeout(resolve, 50));
}
console.log(JSON.stringify({ peak: Math.round(peak / 1e6), after: Math.round(process.memoryUsage().rss / 1e6), pinned: pinned.length }));

// Benchmark: SSIMULACRA 2 scoring in JavaScript (src/images/ssimulacra2.js)
// against WebAssembly (src/images/ssimulacra2-fast.js), as the photos pass
// scores: one scorer per reference, score(distorted) per candidate. A
// photograph of fixtures/modern at three sizes against its JPEG (quality 80)
// re-encoding; warm (after warm-up scores), the median of several runs, and
// the two scores checked identical.
// Run: npm run bench:ssimulacra2   [--runs N] [--no-record]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { machineLine } from './machine.js';
import { recordMeasurement } from './record.js';
import { ssimulacra2Scorer as javascriptScorer } from '../src/images/ssimulacra2.js';
import { ssimulacra2Scorer as wasmScorer } from '../src/images/ssimulacra2-fast.js';

const PHOTO = fileURLToPath(new URL('../fixtures/modern/img/photos/coffee.jpg', import.meta.url));
const WIDTHS = [640, 1280, 2400];
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 7;
const WARM_UP = 2;

/**
 * @param {Buffer} data
 * @param {sharp.OutputInfo} info
 * @returns {import('../src/images/ssimulacra2.js').Ssimulacra2Image}
 */
const image = (data, info) => ({ data, width: info.width, height: info.height, channels: /** @type {3 | 4} */ (info.channels) });

/** @param {number[]} values */
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

/**
 * Milliseconds of FN: the median of RUNS runs after WARM_UP, and its last result.
 * @param {() => number} fn
 */
function time(fn) {
  let result = NaN;
  for (let i = 0; i < WARM_UP; i++) result = fn();
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    result = fn();
    times.push(performance.now() - start);
  }
  return { ms: median(times), result };
}

console.log(`SSIMULACRA 2, JavaScript against WebAssembly: ${machineLine()}`);
const rows = ['| size | JavaScript ms/score | wasm ms/score | JavaScript ms/MP | wasm ms/MP | speed-up | reference side, JS / wasm ms | identical |', '| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |'];
for (const width of WIDTHS) {
  const { data, info } = await sharp(PHOTO).resize(width).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const reference = image(data, info);
  const jpeg = await sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } }).jpeg({ quality: 80 }).toBuffer();
  const decoded = await sharp(jpeg).raw().toBuffer({ resolveWithObject: true });
  const distorted = image(decoded.data, decoded.info);
  const megapixels = (info.width * info.height) / 1e6;
  const jsReference = time(() => (javascriptScorer(reference), 0)).ms;
  const wasmReference = time(() => (wasmScorer(reference), 0)).ms;
  const js = javascriptScorer(reference);
  const wasm = wasmScorer(reference);
  const jsScore = time(() => js.score(distorted));
  const wasmScore = time(() => wasm.score(distorted));
  const identical = Object.is(jsScore.result, wasmScore.result) ? 'yes' : `NO: ${jsScore.result} and ${wasmScore.result}`;
  rows.push(`| ${info.width}x${info.height} | ${jsScore.ms.toFixed(1)} | ${wasmScore.ms.toFixed(1)} | ${(jsScore.ms / megapixels).toFixed(0)} | ${(wasmScore.ms / megapixels).toFixed(0)} | ${(jsScore.ms / wasmScore.ms).toFixed(1)}x | ${jsReference.toFixed(0)} / ${wasmReference.toFixed(0)} | ${identical} |`);
}
const intro = `${path.basename(PHOTO)} resized to each width against its JPEG q80 re-encoding, median of ${RUNS} warm runs:`;
console.log(`${intro}\n`);
console.log(rows.join('\n'));
await recordMeasurement('ssimulacra2-benchmark.md', 'SSIMULACRA 2 in JavaScript and in WebAssembly', `${intro}\n\n${rows.join('\n')}`);

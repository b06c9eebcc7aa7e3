// The machine a benchmark ran on, in one line: cores, memory, node, load, and
// a fixed CPU figure, the time of one brotli encode (quality 11, node's zlib)
// of the same 256 KiB of generated text on every machine, the median of
// three. Figures taken on different machines, or on one machine under other
// load, compare once divided by it.
import os from 'node:os';
import zlib from 'node:zlib';

/** 256 KiB of words from a fixed seed: the same bytes on every machine and in every run. */
function fixedText() {
  const words = ['the', 'page', 'image', 'style', 'table', 'server', 'bytes', 'request', 'network', 'frame', 'font', 'color', 'width', 'height', 'index', 'link'];
  const parts = [];
  let seed = 12345;
  let length = 0;
  while (length < 256 * 1024) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const word = words[seed % words.length] + (seed % 7 === 0 ? '.\n' : ' ');
    parts.push(word);
    length += word.length;
  }
  return Buffer.from(parts.join('').slice(0, 256 * 1024));
}

/** @type {number | undefined} */
let figure;

/**
 * Milliseconds for one brotli quality-11 encode of the fixed text, the median
 * of three; measured once per process, when first asked.
 * @returns {number}
 */
export function brotliFigureMs() {
  if (figure !== undefined) return figure;
  const text = fixedText();
  const times = [0, 1, 2].map(() => {
    const start = performance.now();
    zlib.brotliCompressSync(text, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: text.length } });
    return performance.now() - start;
  }).sort((a, b) => a - b);
  figure = Math.round(times[1]);
  return figure;
}

/** What the CPU figure is, for a record's machine line. */
export const BROTLI_FIGURE_TEXT = 'brotli quality 11 of a fixed 256 KiB text (bench/machine.js)';

/**
 * The machine line of a benchmark's record.
 * @param {string | null} [commit]
 */
export function machineLine(commit = null) {
  const load = os.loadavg().map((n) => n.toFixed(1)).join(' ');
  return `${os.availableParallelism()} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.versions.node}, ${BROTLI_FIGURE_TEXT}: ${brotliFigureMs()} ms, load average ${load}${commit ? `, commit ${commit}` : ''}`;
}

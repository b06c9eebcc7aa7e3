/**
 * The worker pool for CPU-heavy jobs (image encodes, zopfli): piscina,
 * sized to the machine's cores, so the main thread only plans, reads and
 * writes. Jobs are the named exports of src/jobs.js; their inputs and
 * results are structured-cloned (Buffers arrive as Uint8Arrays and are made
 * Buffers again here).
 */
import os from 'node:os';
import { Piscina } from 'piscina';

const JOBS = new URL('../jobs.js', import.meta.url).href;

export class WorkerPool {
  /** @param {{ threads?: number }} [options] */
  constructor(options = {}) {
    this.threads = Math.max(1, options.threads ?? os.availableParallelism());
    /** @type {Piscina | null} started on the first job */
    this.piscina = null;
    this.jobs = 0;
  }

  /**
   * Runs a job in a worker.
   * @param {string} job the name of an export of src/jobs.js
   * @param {unknown} input
   * @returns {Promise<any>}
   */
  async run(job, input) {
    if (!this.piscina) {
      // libvips must stay loaded in the main thread while workers use it: glibc would
      // otherwise unload it when the first worker exits (sharp issue 2263). Loaded here,
      // not at start-up, so commands that encode nothing never load it.
      await import('sharp');
      this.piscina ??= new Piscina({ filename: JOBS, minThreads: 1, maxThreads: this.threads, idleTimeout: 1000 });
    }
    this.jobs++;
    return asBuffers(await this.piscina.run(input, { name: job }));
  }

  async close() {
    await this.piscina?.destroy();
    this.piscina = null;
  }
}

/**
 * Uint8Arrays that crossed from a worker become Buffers again, at any depth
 * of plain objects and arrays.
 * @param {unknown} value
 * @returns {unknown}
 */
export function asBuffers(value) {
  if (value instanceof Uint8Array) return Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (Array.isArray(value)) return value.map(asBuffers);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asBuffers(v)]));
  }
  return value;
}

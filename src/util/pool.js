/**
 * The worker pool for CPU-heavy jobs (image encodes, zopfli): piscina,
 * sized to the machine's cores, so the main thread only plans, reads and
 * writes. Jobs are the named exports of src/build/jobs.js; their inputs and
 * results are structured-cloned (Buffers arrive as Uint8Arrays and are made
 * Buffers again here). Each job has a time limit (docs/reliability.md): past
 * it, its worker is terminated and the job fails with JobStopped.
 */
import os from 'node:os';
import { Piscina } from 'piscina';
import { limiter } from './ordered.js';
import { imageErrorReason } from './image-error.js';

const JOBS = new URL('../build/jobs.js', import.meta.url).href;

/**
 * Default per-job time limit, in seconds: a guard that ends a stuck job, far
 * above any real one on a machine with every core busy, where a job's wall
 * time is several times its own (a camera-sized photograph's search takes
 * a minute or more on a quiet core). A job stopped by the limit keeps its
 * file, so a limit a busy machine reaches would make the output depend on
 * the load.
 */
export const DEFAULT_JOB_TIMEOUT_S = 1800;

/**
 * Pages (or other documents) of fewer bytes than this in all are worked on in
 * the build's own thread, not the pool: starting a worker and loading a
 * parser into it takes about as long as parsing 1 MB of HTML, and a small
 * site's build would wait for that more than it saves (800 fuzzed builds of a
 * page each: 29 s in the main thread, over 240 s through the pool).
 */
export const POOL_WORTHWHILE_BYTES = 1024 * 1024;

/**
 * How long a worker beyond the first waits idle before it exits. Short: an
 * idle worker still holds what its jobs loaded (an OCR reader, encoders:
 * hundreds of megabytes), and on a 10,000-page site workers kept 30 s took
 * the process from about 740 to 980 MB while text-images went from one phase
 * to the next. A restart loads only the job modules its jobs need (jobs.js).
 */
const IDLE_TIMEOUT_MS = 1_000;

/**
 * A job that did not finish: it ran past the time limit and its worker was
 * terminated, or its worker died (out of memory). The file is left as it is.
 */
export class JobStopped extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'JobStopped';
  }
}

/**
 * Why a job failed, in words that are the same on every run: a stopped job
 * says why it stopped; any other error is named by the job and its first
 * line, libvips' shared error text taken out (image-error.js).
 * @param {string} job
 * @param {unknown} error
 */
export function jobFailure(job, error) {
  if (error instanceof JobStopped) return error.message;
  return `${job} failed: ${imageErrorReason(error)}`;
}

export class WorkerPool {
  /**
   * @param {{ threads?: number, jobTimeoutS?: number, heapMb?: number }} [options] jobTimeoutS: 0 for no limit;
   *   heapMb: each worker's old generation (V8 collects sooner to stay under it; a job that needs more stops, JobStopped)
   */
  constructor(options = {}) {
    this.threads = Math.max(1, options.threads ?? os.availableParallelism());
    this.jobTimeoutS = options.jobTimeoutS ?? DEFAULT_JOB_TIMEOUT_S;
    this.heapMb = options.heapMb;
    /** @type {Piscina | null} started on the first job */
    this.piscina = null;
    this.jobs = 0;
    /** At most one job per thread runs, so a job's clock starts when it starts, not when it is queued. */
    this.gate = limiter(this.threads);
  }

  /**
   * Runs a job in a worker.
   * @param {string} job the name of an export of src/build/jobs.js
   * @param {unknown} input
   * @returns {Promise<any>}
   */
  async run(job, input) {
    if (!this.piscina) {
      // libvips must stay loaded in the main thread while workers use it: glibc would
      // otherwise unload it when the first worker exits (sharp issue 2263). Loaded here,
      // not at start-up, so commands that encode nothing never load it.
      await import('sharp');
      this.piscina ??= new Piscina({ filename: JOBS, minThreads: 1, maxThreads: this.threads, idleTimeout: IDLE_TIMEOUT_MS, ...(this.heapMb && { resourceLimits: { maxOldGenerationSizeMb: this.heapMb } }) });
    }
    const piscina = this.piscina;
    this.jobs++;
    return this.gate(async () => {
      // Aborting a running task terminates its worker (piscina starts another).
      const signal = this.jobTimeoutS > 0 ? AbortSignal.timeout(this.jobTimeoutS * 1000) : undefined;
      try {
        return asBuffers(await piscina.run(input, { name: job, signal }));
      } catch (error) {
        const e = /** @type {NodeJS.ErrnoException} */ (error);
        if (signal?.aborted) throw new JobStopped(`${job} stopped after the ${this.jobTimeoutS} s time limit`);
        if (e?.code === 'ERR_WORKER_OUT_OF_MEMORY') throw new JobStopped(`${job} ran out of memory: ${e.message.split('\n')[0]}`);
        throw error;
      }
    });
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
  // In place: the result is the pool's own copy, and a page's references are thousands of small objects.
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (value[i] && typeof value[i] === 'object') value[i] = asBuffers(value[i]);
  } else if (value && typeof value === 'object') {
    const record = /** @type {Record<string, unknown>} */ (value);
    for (const key of Object.keys(record)) if (record[key] && typeof record[key] === 'object') record[key] = asBuffers(record[key]);
  }
  return value;
}

/**
 * The build: read the site, run the selected passes in their fixed order, write
 * the output, and summarize what each pass did.
 */
import path from 'node:path';
import { realpath } from 'node:fs/promises';
import { Site } from './site/site.js';
import { MARKER, prepareOutput, writeOutput } from './output.js';
import { PASSES } from './passes/index.js';
import { UserError } from './errors.js';
import { bytesPerPage, requestsPerPage } from './requests.js';
import { summarize } from './summary.js';
import { JobStopped, WorkerPool } from './util/pool.js';
import { ResultCache, cacheKey, defaultCacheDir } from './util/cache.js';
import { writeBuildConfigs } from './configs/index.js';
import { shardSlice } from './shard.js';
import { PassMemo, record, replay, snapshot } from './pass-memo.js';

/**
 * @typedef {import('./site/site.js').Site} SiteModel
 *
 * @typedef {object} Decision what a pass decided for one candidate, and why
 * @property {string} file
 * @property {'changed' | 'kept' | 'skipped'} action
 * @property {string} reason
 * @property {number} [score]
 *
 * @typedef {object} PassReport
 * @property {string} name
 * @property {string} description
 * @property {{ path: string, before: number, after: number }[]} files files the pass changed or created
 * @property {number} bytesBefore
 * @property {number} bytesAfter
 * @property {number} referencesRewritten
 * @property {number} requestsRemoved
 * @property {Decision[]} decisions
 * @property {Metric[]} [metrics] figures a pass measured on files before and after it (html-case: compressed sizes)
 * @property {number} ms
 *
 * @typedef {object} Metric one measured figure of one file, before and after a pass
 * @property {string} file
 * @property {string} name e.g. 'gzip' (bytes gzipped)
 * @property {number} before
 * @property {number} after
 *
 * @typedef {object} PassContext
 * @property {BuildOptions} options
 * @property {(file: string, before: number, after: number) => void} touched record a file changed or created
 * @property {(count: number) => void} rewrote record references rewritten
 * @property {(count: number) => void} removedRequests record requests a page no longer makes
 * @property {(decision: Decision) => void} decide
 * @property {(file: string, code: string, message: string) => void} warn
 * @property {(metric: Metric) => void} measure record a figure measured before and after (kept in the report's metrics)
 * @property {(message: string, count?: { done: number, total: number }) => void} progress what the pass is at: a file, and how many of how many
 * @property {(job: string, bytes: Buffer, options: object) => Promise<any>} compute runs a job of src/jobs.js in the
 *   worker pool, or takes its result from the persistent cache (keyed by the job, the bytes and the options)
 *
 * @typedef {object} OptionSpec
 * @property {'boolean' | 'number' | 'string' | 'list'} type
 * @property {unknown} default
 * @property {string} description
 *
 * @typedef {object} Pass
 * @property {string} name stable, kebab-case
 * @property {string} description one line
 * @property {Record<string, OptionSpec>} [options] the options it reads, documented
 * @property {(site: SiteModel, ctx: PassContext) => Promise<void>} run
 *
 * @typedef {object} BuildOptions
 * @property {string} input
 * @property {string} output
 * @property {string[]} [only] run only these passes
 * @property {string[]} [skip] do not run these passes
 * @property {import('./shard.js').Shard} [shard] build only this slice of the site (see src/shard.js); other files in the output are kept
 * @property {boolean} [force] write into a non-empty directory pagediet did not write
 * @property {string[]} [origins] absolute origins that are this site
 * @property {Pass[]} [passes] the passes to choose from (default: pagediet's own)
 * @property {(event: import('./progress.js').ProgressEvent) => void} [onProgress]
 * @property {boolean} [cache] keep results of expensive work between builds (default true)
 * @property {string} [cacheDir] default: node_modules/.cache/pagediet of the nearest package
 * @property {number} [threads] worker threads (default: the machine's cores)
 * @property {number} [memoryBudget] bytes of pages and written files kept in memory; the rest wait in a scratch
 *   directory (default 64 MiB; src/site/byte-store.js)
 * @property {boolean} [prune] remove originals whose every reference now points at a replacement
 * @property {'auto' | 'apng' | 'webp'} [animations] formats animated GIFs may become (default auto: the smaller)
 * @property {boolean} [picture] wrap converted animations' <img> in <picture> with the GIF as fallback
 * @property {boolean} [lossy] allow lossy image encodings
 * @property {[number, number]} [quality] floor and target quality for lossy encodings (default 65-80)
 * @property {number} [zopfliIterations] zopfli iterations on top of libdeflate for PNG data (default 0: libdeflate only)
 * @property {number} [maxPixels] images with more pixels are left alone (default 100 million)
 * @property {number} [jobTimeout] seconds a worker job (an encode, OCR) may run before its worker is stopped and the file left as it is (default 300; 0: no limit)
 * @property {number} [textImagesThreshold] text-images: similarity (0-1) a replacement must reach in Chromium (default 0.8)
 * @property {'inline' | 'file'} [textImagesCss] text-images: rules in a <style> in each page, or in one shared pagediet.css (default inline)
 * @property {boolean} [ocr] text-images: read images whose ALT and TITLE are missing or wrong with OCR (default true)
 * @property {string} [browser] text-images: a Chromium, Chrome or Edge executable to try before the browsers pagediet finds (docs/text-images.md)
 * @property {'zopfli' | 'zlib'} [gzip] precompress: gzip encoder (default zopfli)
 * @property {number} [gzipIterations] precompress: zopfli iterations for .gz files (default 15)
 * @property {boolean} [zstd] precompress: also write .zst files where node has zstd
 * @property {number} [precompressMinBytes] precompress: smaller files are not compressed (default 256)
 * @property {number} [precompressMinSaving] precompress: sidecars saving less, in percent, are not written (default 5)
 * @property {string | false} [configs] where server configs go when precompress runs (default: the output's pagediet-configs/; false: none)
 * @property {boolean} [minifyHtml] run the minify-html pass: remove comments and whitespace that cannot render (default false)
 */

/**
 * Chooses the passes to run, in order.
 * @param {Pass[]} available
 * @param {{ only?: string[], skip?: string[] }} selection
 */
export function selectPasses(available, selection) {
  const names = new Set(available.map((p) => p.name));
  for (const name of [...(selection.only ?? []), ...(selection.skip ?? [])]) {
    if (names.has(name)) continue;
    const list = available.length ? available.map((p) => p.name).join(', ') : 'none';
    throw new UserError(`unknown pass '${name}'; available: ${list}`);
  }
  return available.filter((p) => (!selection.only?.length || selection.only.includes(p.name)) && !selection.skip?.includes(p.name));
}

/**
 * Builds a site.
 * @param {BuildOptions} options
 */
export async function build(options) {
  const started = Date.now();
  const passes = selectPasses(options.passes ?? PASSES, options);
  const plan = await prepareOutput(options.input, options.output, { force: options.force });
  const progress = options.onProgress ?? (() => {});
  progress({ phase: 'read', message: `reading ${options.input}` });
  // The marker of an earlier build is pagediet's, not the site's: building an output again must not copy or compress it.
  const inputMarker = path.join(await realpath(options.input), MARKER);
  const cache = options.cache === false ? null : new ResultCache({ dir: options.cacheDir ?? defaultCacheDir() });
  const site = await Site.read(options.input, { origins: options.origins, exclude: (abs) => abs === plan.dir || abs === inputMarker, cache: cache ?? undefined, memoryBudget: options.memoryBudget });
  try {
    if (options.shard) {
      const slice = shardSlice(site, options.shard);
      for (const sitePath of [...site.files.keys()]) if (!slice.has(sitePath)) site.remove(sitePath);
      progress({ phase: 'read', message: `shard ${options.shard.index}/${options.shard.count}: ${slice.size} files` });
    }
    const inputBytes = totalBytes(site);
    const requestsBefore = requestsPerPage(site);
    const pageBytesBefore = bytesPerPage(site);

    const pool = new WorkerPool({ threads: options.threads, jobTimeoutS: options.jobTimeout });
    const work = { jobs: 0, cacheHits: 0, passesReplayed: 0 };
    /** @type {PassContext['compute']} */
    const compute = async (job, bytes, jobOptions) => {
      const key = cache ? cacheKey(job, jobOptions, [bytes]) : '';
      if (cache) {
        const hit = await cache.get(key);
        if (hit !== undefined) {
          work.cacheHits++;
          return hit;
        }
      }
      work.jobs++;
      let result;
      try {
        result = await pool.run(job, { bytes, options: jobOptions });
      } catch (error) {
        // A stuck or dying job fails like a file the job cannot read: the pass warns and leaves the file as it is. Not cached.
        if (error instanceof JobStopped) return { status: 'failed', reason: error.message };
        throw error;
      }
      if (cache) await cache.set(key, result);
      return result;
    };

    /** @type {PassReport[]} */
    const reports = [];
    try {
      const memo = cache ? new PassMemo(cache) : null;
      for (const pass of passes) {
        // Only pagediet's own passes: a pass given in options.passes is known by its name alone, not by its code.
        const replayable = memo !== null && PASSES.includes(pass);
        const key = replayable ? await memo.key(pass.name, site, /** @type {Record<string, unknown>} */ (options)) : '';
        const known = replayable ? await memo.recall(key, site) : undefined;
        if (known) {
          reports.push(await replayPass(pass, site, known, progress));
          work.passesReplayed++;
          continue;
        }
        const before = snapshot(site);
        const report = await runPass(pass, site, options, compute, progress);
        reports.push(report);
        if (replayable) await memo.store(key, record(site, before, report), site);
      }
    } finally {
      await pool.close();
    }
    await cache?.trim();
    // The server configs serve the sidecars, so they come with precompression.
    if (options.shard && options.configs !== false && passes.some((p) => p.name === 'precompress')) {
      // A config lists files of the whole site; a shard knows its slice only.
      site.warn('', 'configs-shard', 'a shard does not write the server configs: once every shard is in the output, run `pagediet configs <output> --server <name>`');
    } else if (options.configs !== false && passes.some((p) => p.name === 'precompress')) {
      await writeBuildConfigs(site, { outputDir: plan.dir, dir: options.configs ? path.resolve(options.configs) : undefined });
    }

    progress({ phase: 'write', message: `writing ${options.output}` });
    const written = await writeOutput(site, plan, { keepOthers: Boolean(options.shard) });
    return summarize(site, {
      input: path.resolve(options.input),
      output: plan.dir,
      inputBytes,
      requestsBefore,
      pageBytesBefore,
      passes: reports,
      written,
      work,
      ms: Date.now() - started,
    });
  } finally {
    // The scratch files of pages and images the byte store spilled.
    await site.close();
  }
}

/**
 * Runs one pass and reports what it did.
 * @param {Pass} pass
 * @param {SiteModel} site
 * @param {BuildOptions} options
 * @param {PassContext['compute']} compute
 * @param {(event: import('./progress.js').ProgressEvent) => void} progress
 * @returns {Promise<PassReport>}
 */
async function runPass(pass, site, options, compute, progress) {
  progress({ phase: pass.name, message: pass.description });
  const t0 = Date.now();
  /** @type {PassReport} */
  const report = { name: pass.name, description: pass.description, files: [], bytesBefore: 0, bytesAfter: 0, referencesRewritten: 0, requestsRemoved: 0, decisions: [], ms: 0 };
  await pass.run(site, {
    options,
    touched: (file, before, after) => {
      report.files.push({ path: file, before, after });
      report.bytesBefore += before;
      report.bytesAfter += after;
    },
    rewrote: (count) => { report.referencesRewritten += count; },
    removedRequests: (count) => { report.requestsRemoved += count; },
    decide: (decision) => { report.decisions.push(decision); },
    warn: (file, code, message) => site.warn(file, code, `${pass.name}: ${message}`),
    measure: (metric) => { (report.metrics ??= []).push(metric); },
    progress: (message, count) => progress({ phase: pass.name, message, ...count }),
    compute,
  });
  report.ms = Date.now() - t0;
  return report;
}

/**
 * Does what a pass did when it met this same site in an earlier build.
 * @param {Pass} pass
 * @param {SiteModel} site
 * @param {import('./pass-memo.js').PassRecord} known
 * @param {(event: import('./progress.js').ProgressEvent) => void} progress
 * @returns {Promise<PassReport>}
 */
async function replayPass(pass, site, known, progress) {
  progress({ phase: pass.name, message: `${pass.description} (unchanged site: replayed from the cache)` });
  const t0 = Date.now();
  await replay(site, known);
  return { ...known.report, ms: Date.now() - t0 };
}

/** @param {SiteModel} site */
function totalBytes(site) {
  let total = 0;
  for (const f of site.files.values()) total += f.outputSize;
  return total;
}

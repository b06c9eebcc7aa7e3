/**
 * The build: read the site, run the selected passes in their fixed order, write
 * the output, and summarize what each pass did.
 */
import { folderProblem } from './preflight.js';
import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { realpath } from 'node:fs/promises';
import { Site } from '../site/site.js';
import { MARKER, prepareOutput, writeOutput } from './output.js';
import { PASSES, passCode } from '../passes/index.js';
import { UserError } from './errors.js';
import { pageWeights } from '../site/page-requests.js';
import { summarize } from './summary.js';
import { WorkerPool, jobFailure } from '../util/pool.js';
import { BuildBrowser } from '../browser/build-browser.js';
import { findInPage } from '../site/page-findings.js';
import { integrityPins, refreshIntegrity } from '../site/integrity.js';
import { ResultCache, cacheKey, defaultCacheDir } from '../util/cache.js';
import { shardSlice } from './shard.js';
import { PassMemo, ReplayBytesLost, record, replay, snapshot } from './pass-memo.js';
import { checkOptions, optional, passSelected, resolvePassOptions } from '../options/table.js';
import { apiOnly, text } from '../options/kinds.js';
import { codeFingerprint, jobFingerprint } from '../util/code-fingerprint.js';

/**
 * @typedef {import('../site/site.js').Site} SiteModel
 * @typedef {import('./pass.js').Decision} Decision
 * @typedef {import('./pass.js').Metric} Metric
 * @typedef {import('./pass.js').PassContext} PassContext
 * @typedef {import('./pass.js').AnyPass} Pass
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
 * @typedef {object} BuildRun what a build is given besides the option table's options
 * @property {string} input
 * @property {string} output
 * @property {readonly Pass[]} [passes] the passes to choose from (default: pagediet's own)
 * @property {(event: import('./progress.js').ProgressEvent) => void} [onProgress]
 * @property {boolean} [replay] false: every pass runs, and proves again in Chromium, whatever the cache holds; only
 *   worker jobs (encodes, OCR, compressions: pure functions of their input) come from it (default true)
 *
 * @typedef {BuildRun & import('../options/build-options.js').BuildOptions} BuildOptions
 */

/** What a build takes besides the option table's options, checked the same way. */
export const RUN_OPTIONS = {
  input: optional(text('<dir>', { path: true }), 'the folder of the site (never modified)'),
  output: optional(text('<dir>', { path: true }), 'the folder to write to'),
  passes: optional(apiOnly('a list of passes (src/build/pass.js)', (v) => Array.isArray(v), 'readonly Pass[]'), 'the passes to choose from (default: pagediet\'s own)'),
  onProgress: optional(apiOnly('a function', (v) => typeof v === 'function', '(event: ProgressEvent) => void'), 'called with what the build is at'),
  replay: optional(apiOnly('true or false', (v) => typeof v === 'boolean', 'boolean'), 'false: every pass runs and proves again; only worker jobs come from the cache'),
};

/**
 * Chooses the passes to run, in order: only/skip, and passes off by default only when enabled.
 * @param {readonly Pass[]} available
 * @param {{ only?: string[], skip?: string[] } & Record<string, unknown>} selection
 */
export function selectPasses(available, selection) {
  for (const name of [...(selection.only ?? []), ...(selection.skip ?? [])]) {
    if (available.some((p) => p.name === name)) continue;
    const list = available.length ? available.map((p) => p.name).join(', ') : 'none';
    throw new UserError(`unknown pass '${name}'; available: ${list}`);
  }
  return available.filter((p) => passSelected(p, selection));
}

/**
 * Checks that a pass object keeps the contract (src/build/pass.js) before a build uses it.
 * @param {unknown} pass
 */
function checkPass(pass) {
  const p = /** @type {Partial<Pass>} */ (pass);
  const name = typeof p?.name === 'string' && /^[a-z0-9-]+$/.test(p.name) ? p.name : null;
  const what = name ? `pass '${name}'` : 'a pass';
  if (!name) throw new UserError(`${what} has no name: a pass needs a kebab-case name (src/build/pass.js)`);
  if (typeof p.run !== 'function') throw new UserError(`${what} has no run(site, ctx) function (src/build/pass.js)`);
  if (typeof p.description !== 'string') throw new UserError(`${what} has no description (src/build/pass.js)`);
  for (const [key, definition] of Object.entries(p.options ?? {})) {
    if (!definition?.kind?.check || typeof definition.doc !== 'string') throw new UserError(`${what}: option '${key}' is not an option definition (use option() or optional() of src/options/table.js)`);
  }
}

/** Old generation of each worker that parses pages while the site is read (a 42 KB page's tree takes a few MB). */
const READ_HEAP_MB = 64;

/**
 * Builds a site.
 * @param {BuildOptions} options
 */
export async function build(options) {
  const started = Date.now();
  const available = options.passes ?? PASSES;
  for (const pass of available) checkPass(pass);
  checkOptions(/** @type {Record<string, unknown>} */ (options), available, { where: 'build options', extra: RUN_OPTIONS });
  if (typeof options.input !== 'string' || !options.input) throw new UserError('build options: input must be the folder of the site');
  if (typeof options.output !== 'string' || !options.output) throw new UserError('build options: output must be the folder to write to');
  const passes = selectPasses(available, /** @type {Record<string, unknown>} */ (options));
  const outputProblem = await folderProblem(path.resolve(options.output));
  if (outputProblem) throw new UserError(`build options: output ${options.output}: ${outputProblem}`);
  const plan = await prepareOutput(options.input, options.output, { force: options.force });
  try {
    return await buildSite(options, passes, plan, { started, replay: options.replay !== false });
  } catch (error) {
    // Rare (another build sharing the cache trimmed or damaged it meanwhile): into the same output, whatever this
    // attempt wrote of it.
    if (!(error instanceof ReplayBytesLost)) throw error;
    return buildSite(options, passes, plan, { started, replay: false, lost: error.message });
  }
}

/**
 * @param {BuildOptions} options
 * @param {Pass[]} passes the passes selected
 * @param {import('./output.js').OutputPlan} plan
 * @param {{ started: number, replay: boolean, lost?: string }} how replay: passes may be replayed from the cache;
 *   lost: why an earlier attempt could not replay
 */
async function buildSite(options, passes, plan, { started, replay: mayReplay, lost }) {
  const threads = options.threads ?? os.availableParallelism();
  const progress = options.onProgress ?? (() => {});
  progress({ phase: 'read', message: `reading ${options.input}` });
  // The marker of an earlier build is pagediet's, not the site's: building an output again must not copy or compress it.
  const inputMarker = path.join(await realpath(options.input), MARKER);
  const cache = options.cache === false ? null : new ResultCache({ dir: options.cacheDir ?? defaultCacheDir(), limit: options.cacheLimit === undefined ? undefined : options.cacheLimit * 1024 * 1024 });
  // Pages are parsed in a pool of their own, closed once the site is read, whose workers collect their garbage
  // early: a parse's tree is garbage once its references are found (a page that needs a larger heap is parsed here).
  const readPool = new WorkerPool({ threads, jobTimeoutS: options.jobTimeout, heapMb: READ_HEAP_MB });
  /** @type {Site} */
  let site;
  try {
    site = await Site.read(options.input, { origins: options.origins, exclude: (abs) => abs === plan.dir || abs === inputMarker, cache: cache ?? undefined, memoryBudget: (options.memoryBudget ?? 64) * 1024 * 1024, findInPage: findInPageIn(readPool) });
  } finally {
    await readPool.close();
  }
  const pool = new WorkerPool({ threads, jobTimeoutS: options.jobTimeout });
  // Pages the passes write are parsed in the passes' pool.
  site.options.findInPage = findInPageIn(pool);
  if (lost) site.warn('', 'cache-lost', `${lost}: every pass ran`);
  if (site.pages.length === 0) site.warn('', 'no-pages', 'no page (.html or .htm) in the input: its files are optimized and copied, and a report has nothing to load');
  try {
    if (options.shard) {
      const slice = shardSlice(site, options.shard);
      for (const sitePath of [...site.files.keys()]) if (!slice.has(sitePath)) site.remove(sitePath);
      progress({ phase: 'read', message: `shard ${options.shard.index}/${options.shard.count}: ${slice.size} files` });
    }
    const inputBytes = totalBytes(site);
    const { requests: requestsBefore, bytes: pageBytesBefore } = pageWeights(site);

    // Integrity attributes that hold on the input are kept true as passes change the files they name.
    const pins = await integrityPins(site);
    for (const { page, target } of pins.stale) site.warn(page, 'integrity-stale', `the integrity attribute of ${target} names other bytes: browsers refuse the file, as before`);
    /** @type {Set<string>} */
    const integrityUpdated = new Set();
    const keepIntegrity = async () => {
      if (pins.pages.size === 0) return;
      await site.parsePending();
      for (const page of await refreshIntegrity(site, pins)) integrityUpdated.add(page);
    };

    const work = { jobs: 0, cacheHits: 0, passesReplayed: 0 };
    /** @type {PassContext['compute']} */
    const compute = async (job, bytes, jobOptions) => {
      const key = cache ? cacheKey(job, jobOptions, [bytes], await jobFingerprint(job)) : '';
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
        // A job that throws, runs out of time or memory, or whose worker dies fails like a file the job cannot read:
        // the pass warns and leaves the file as it is, and the build goes on. Not cached.
        return { status: 'failed', reason: jobFailure(job, error), jobFailed: true };
      }
      if (cache) await cache.set(key, result);
      return result;
    };

    /** @type {PassReport[]} */
    const reports = [];
    // One Chromium for the whole build, started by the first pass that asks for it.
    const browser = new BuildBrowser({ browser: /** @type {string | undefined} */ (/** @type {Record<string, unknown>} */ (options).browser) });
    try {
      const memo = cache ? new PassMemo(cache) : null;
      for (const pass of passes) {
        const passOptions = resolvePassOptions(pass, /** @type {Record<string, unknown>} */ (options));
        // Only passes whose code is known (pagediet's own) are replayed and may cache their own results.
        const code = passCode(pass);
        const key = memo && code ? await memo.key(pass.name, site, passOptions, await codeFingerprint(code)) : '';
        const known = key && mayReplay ? await memo?.recall(key, site) : undefined;
        if (known) {
          reports.push(await replayPass(pass, site, known, progress));
          work.passesReplayed++;
          await keepIntegrity();
          continue;
        }
        // What replayed passes wrote is parsed before a pass reads it.
        await site.parsePending();
        const before = snapshot(site);
        const report = await runPass(pass, site, { options: passOptions, threads, compute, cache: mayReplay ? cache : null, code, browser }, progress);
        reports.push(report);
        if (memo && key) await memo.store(key, record(site, before, report), site);
        await keepIntegrity();
      }
      await site.parsePending();
      for (const page of integrityUpdated) site.warn(page, 'integrity-updated', 'integrity attributes set to the hashes of the new bytes of the files they load');
    } finally {
      await browser.close();
      await pool.close();
    }
    const firstBrowser = browser.first;
    if (firstBrowser?.failed.length) site.warn('', 'browser-fallback', `pages measured and changes proven in ${firstBrowser.candidate.name} (${firstBrowser.executable}): ${firstBrowser.failed.join('; ')}`);
    await cache?.trim();
    for (const pass of passes) {
      if (!pass.artifacts) continue;
      const warn = (/** @type {string} */ file, /** @type {string} */ code, /** @type {string} */ message) => site.warn(file, code, `${pass.name}: ${message}`);
      await pass.artifacts(site, { options: resolvePassOptions(pass, /** @type {Record<string, unknown>} */ (options)), outputDir: plan.dir, shard: Boolean(options.shard), warn });
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
    // Closed already after the passes, unless something before them failed.
    await pool.close();
    // The scratch files of pages and images the byte store spilled.
    await site.close();
    // Entries read are marked used (trim has done so unless the build failed).
    await cache?.settle();
  }
}

/**
 * Runs one pass and reports what it did.
 * @param {Pass} pass
 * @param {SiteModel} site
 * @param {{ options: Record<string, any>, threads: number, compute: PassContext['compute'], cache: ResultCache | null, code: URL | null, browser: BuildBrowser }} given
 * @param {(event: import('./progress.js').ProgressEvent) => void} progress
 * @returns {Promise<PassReport>}
 */
async function runPass(pass, site, { options, threads, compute, cache, code, browser }, progress) {
  progress({ phase: pass.name, message: pass.description });
  const t0 = Date.now();
  /** @type {PassReport} */
  const report = { name: pass.name, description: pass.description, files: [], bytesBefore: 0, bytesAfter: 0, referencesRewritten: 0, requestsRemoved: 0, decisions: [], ms: 0 };
  const fingerprint = code ? await codeFingerprint(code) : null;
  await pass.run(site, {
    options,
    threads,
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
    browser,
    cached: async (key, computeResult) => {
      // A pass whose code is not known (given in options.passes) computes every time.
      if (!cache || !fingerprint) return computeResult();
      const entry = cacheKey(`pass:${pass.name}`, digestBytes(key), [], fingerprint);
      const hit = await cache.get(entry);
      if (hit !== undefined) return /** @type {any} */ (hit);
      const value = await computeResult();
      await cache.set(entry, value);
      return value;
    },
  });
  report.ms = Date.now() - t0;
  return report;
}

/**
 * A key with every byte array in it replaced by its SHA-256 (before JSON, which would spell each byte out).
 * @param {unknown} value
 * @returns {unknown}
 */
function digestBytes(value) {
  if (value instanceof Uint8Array) return `sha256:${crypto.createHash('sha256').update(value).digest('hex')}`;
  if (Array.isArray(value)) return value.map(digestBytes);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, digestBytes(v)]));
  return value;
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

/**
 * The site model's findInPage in a worker pool: a page whose job the pool stops is parsed in this thread.
 * @param {WorkerPool} pool
 * @returns {NonNullable<import('../site/site.js').SiteOptions['findInPage']>}
 */
function findInPageIn(pool) {
  return async (bytes, findOptions) => {
    try {
      return await pool.run('findInPage', { bytes, options: findOptions });
    } catch {
      // Stopped, or its worker failed: the page is parsed in this thread (a parse that fails here is pagediet's own defect).
      return findInPage({ bytes, options: findOptions });
    }
  };
}

/**
 * A fault stays where it happened. Every kind of worker job is made to fail
 * in its worker (src/build/jobs.js, PAGEDIET_TEST_FAULTS: an error thrown as a
 * library's, or the worker thread ended as in a crash), on a site that gives
 * every job work: fixtures/modern (photographs, SVG, scripts, fonts, CSS),
 * fixtures/microscape under microscape/ (GIFs, animations, text images, upper
 * case markup) and a page that brings the pages over the size where they are
 * parsed and rewritten in the pool. Each build completes, every file a job
 * failed on is as it was, and each has one warning per pass that names the
 * job and why. And Chromium, closed in the middle of every proof and
 * measurement (`browser-close`), leaves what each pass was proving as it was,
 * with one warning for each.
 */
import { cp, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect } from 'vitest';
import { build } from '../src/build/pipeline.js';
import { chromiumTest } from './helpers/chromium.js';
import { readTree, tempDir } from './helpers/tmp.js';

const FIXTURES = new URL('../fixtures/', import.meta.url).pathname;

/** Every job of src/build/jobs.js. */
const JOBS = ['gifToPng', 'animation', 'recompressPng', 'photo', 'compressText', 'textImagePlan', 'findPageImages', 'minifyReplacementCss', 'findInPage', 'lowerPage', 'pageCss', 'minifyScript', 'optimizeSvg', 'woff2Font'];
/** Jobs whose failure the build makes up for by doing the same work in its own thread: no file is kept for them. */
const DONE_AGAIN = ['minifyReplacementCss', 'findInPage'];
/** The passes that change files without a worker job (their changes are not a job's to keep). */
const WITHOUT_JOBS = ['image-markup', 'hash-names'];

/**
 * @param {string} input
 * @param {string} faults PAGEDIET_TEST_FAULTS
 * @param {Partial<import('../src/build/pipeline.js').BuildOptions>} [options]
 */
async function faultyBuild(input, faults, options = {}) {
  const output = path.join(await tempDir(), 'out');
  process.env.PAGEDIET_TEST_FAULTS = faults;
  // Where a build that has not ended is (once seen on Node 26, not reproduced since): said before the test's limit ends it.
  let last = 'no progress yet';
  const started = Date.now();
  const watchdog = setTimeout(() => console.error(`faultyBuild(${faults}) still running after ${(Date.now() - started) / 1000} s; last progress: ${last}`), 240_000);
  try {
    const summary = await build({ input, output, cache: false, configs: false, threads: 2, ...options, onProgress: (event) => { last = JSON.stringify(event); } });
    return { summary, tree: await readTree(output) };
  } finally {
    clearTimeout(watchdog);
    delete process.env.PAGEDIET_TEST_FAULTS;
  }
}

/**
 * Warnings that name an injected or crashed job, as `file pass code`.
 * @param {import('../src/build/summary.js').BuildSummary} summary
 * @param {RegExp} cause
 */
function faultWarnings(summary, cause) {
  return summary.warnings.filter((w) => cause.test(w.message)).map((w) => `${w.file} ${w.message.split(':')[0]} ${w.code}`);
}

describe('a job that fails in its worker', () => {
  /** @type {string} */
  let input;
  /** @type {Map<string, Buffer>} */
  let original;
  beforeAll(async () => {
    input = await tempDir();
    await cp(path.join(FIXTURES, 'modern'), input, { recursive: true });
    await cp(path.join(FIXTURES, 'microscape'), path.join(input, 'microscape'), { recursive: true });
    const entries = Array.from({ length: 14_000 }, (_, i) => `<p>Entry ${i}: the archive of the site, kept for readers who come back to it.</p>\n`);
    await writeFile(path.join(input, 'archive.html'), `<!doctype html><html><head><meta charset=utf-8><title>Archive</title><style>p{margin:0 0 1em}</style></head><body>${entries.join('')}</body></html>\n`);
    original = await readTree(input);
  });
  afterEach(() => { delete process.env.PAGEDIET_TEST_FAULTS; });

  /**
   * Every file of the output is the input's, but the style sheets the css pass minifies in its own thread.
   * @param {Map<string, Buffer>} tree
   */
  const expectKept = (tree) => {
    const changed = [...tree].filter(([file, bytes]) => !original.get(file)?.equals(bytes)).map(([file]) => file);
    expect(changed.sort()).toEqual(['.pagediet-output.json', 'css/site.css', 'vendor/bootstrap/css/bootstrap.min.css']);
    expect([...original.keys()].filter((file) => !tree.has(file))).toEqual([]);
  };

  /**
   * One warning per file and pass, and every job that had work named in them.
   * @param {import('../src/build/summary.js').BuildSummary} summary
   * @param {RegExp} cause
   * @param {string[]} jobs
   */
  const expectOneWarningEach = (summary, cause, jobs) => {
    const warnings = faultWarnings(summary, cause);
    const perFileAndPass = new Map();
    for (const w of warnings) perFileAndPass.set(w, (perFileAndPass.get(w) ?? 0) + 1);
    // Inline <svg>s are units of their own: a page has one warning for each.
    const repeated = [...perFileAndPass].filter(([w, n]) => n > 1 && !w.includes(' svg '));
    expect(repeated).toEqual([]);
    const named = new Set(summary.warnings.flatMap((w) => JOBS.filter((job) => w.message.includes(`${job} failed`))));
    expect([...named].sort()).toEqual([...jobs].sort());
    for (const w of summary.warnings.filter((w) => cause.test(w.message))) expect(w.severity).toBe('error');
  };

  chromiumTest('throws: the build completes, each file stays as it was, one warning each', async () => {
    // findPageImages comes before textImagePlan: failing, it leaves no plan to make (the next test fails it).
    const faulty = JOBS.filter((job) => job !== 'findPageImages');
    const { summary, tree } = await faultyBuild(input, faulty.join(','), { skip: WITHOUT_JOBS });
    expectKept(tree);
    expectOneWarningEach(summary, /injected fault in \w+/, faulty.filter((job) => !DONE_AGAIN.includes(job)));
    const textImages = summary.passes.find((p) => p.name === 'text-images');
    expect(textImages?.decisions.filter((d) => d.reason === 'textImagePlan failed: injected fault in textImagePlan')).toHaveLength(39);
    expect(summary.warnings.find((w) => w.file === 'microscape/images/logo.gif' && w.code === 'job-failed')?.message).toBe('text-images: kept as it is: textImagePlan failed: injected fault in textImagePlan');
  }, 300_000);

  chromiumTest('ends its worker: the build completes, each file stays as it was, one warning each', async () => {
    const faulty = JOBS.filter((job) => job !== 'textImagePlan');
    const { summary, tree } = await faultyBuild(input, faulty.map((job) => `${job}:exit`).join(','), { skip: WITHOUT_JOBS });
    expectKept(tree);
    expectOneWarningEach(summary, /worker exited with code: 70/, faulty.filter((job) => !DONE_AGAIN.includes(job)));
    expect(summary.warnings.find((w) => w.file === 'microscape/index.html' && w.code === 'job-failed' && w.message.startsWith('text-images'))?.message)
      .toBe('text-images: its text images kept as they are: findPageImages failed: worker exited with code: 70');
  }, 300_000);

  chromiumTest('Chromium closes in the middle of each proof and measurement: the build completes, what each was proving stays as it was, one warning each', async () => {
    // Each browser the build starts closes as soon as a page has loaded in it; the next caller starts another.
    const { summary, tree } = await faultyBuild(input, 'browser-close', { only: ['text-images', 'photos', 'image-markup', 'svg', 'fonts'], subsetFonts: true });
    const fonts = /** @type {import('../src/build/pipeline.js').PassReport} */ (summary.passes.find((p) => p.name === 'fonts'));
    // The WOFF2s do not need the browser; their subsets do, and none is made.
    const changed = [...tree].filter(([file, bytes]) => !original.get(file)?.equals(bytes)).map(([file]) => file).sort();
    expect(changed).toEqual(['.pagediet-output.json', ...fonts.files.map((f) => f.path)].sort());
    expect(fonts.files.map((f) => f.path).filter((f) => f.includes('-subset-'))).toEqual([]);
    for (const pass of summary.passes.filter((p) => p.name !== 'fonts')) expect(pass.files, pass.name).toEqual([]);
    const browserWarnings = summary.warnings.filter((w) => w.code === 'render-failed' || w.code === 'layout-failed');
    const perFileAndPass = new Map();
    for (const w of browserWarnings) {
      const key = `${w.file} ${w.message.split(':')[0]}`;
      perFileAndPass.set(key, (perFileAndPass.get(key) ?? 0) + 1);
    }
    expect([...perFileAndPass].filter(([, n]) => n > 1)).toEqual([]);
    // Every proving pass met the closed browser and said so.
    expect([...new Set(browserWarnings.map((w) => w.message.split(':')[0]))].sort()).toEqual(['fonts', 'image-markup', 'photos', 'svg', 'text-images']);
    expect(summary.warnings.filter((w) => w.code === 'no-browser')).toEqual([]);
  }, 300_000);

  chromiumTest('done again in the build\'s thread: the same output as a build without faults, and no warning', async () => {
    const options = { only: ['text-images'] };
    const quiet = await faultyBuild(input, '', options);
    const textImages = quiet.summary.passes.find((p) => p.name === 'text-images');
    expect(textImages?.files.length).toBeGreaterThan(0);
    const faulty = await faultyBuild(input, DONE_AGAIN.map((job) => `${job}:exit`).join(','), options);
    expect([...faulty.tree.keys()].sort()).toEqual([...quiet.tree.keys()].sort());
    for (const [file, bytes] of quiet.tree) if (file !== '.pagediet-output.json') expect(faulty.tree.get(file)?.equals(bytes), file).toBe(true);
    expect(faulty.summary.warnings).toEqual(quiet.summary.warnings);
  }, 300_000);
});

/**
 * The jobs the worker pool runs (src/util/pool.js loads this file in each
 * worker): CPU-heavy, each a pure function of its input. Each job's module
 * is imported when the worker first runs that job: a worker that only
 * compresses text never loads sharp, svgo or terser (loading every job's
 * modules took about 1.5 s per worker).
 */

/** @type {Promise<void> | null} */
let sharpConfigured = null;

/**
 * sharp, set up for the pool before any job uses it: one libvips thread per
 * worker (the pool already runs a job per core), and no operation cache
 * (every job decodes different bytes, so it would only hold memory, up to
 * 50 MB a worker).
 */
function configureSharp() {
  sharpConfigured ??= import('sharp').then(({ default: sharp }) => {
    sharp.concurrency(1);
    sharp.cache(false);
  });
  return sharpConfigured;
}

/**
 * For tests of what a failing job does to a build (test/faults.test.js):
 * PAGEDIET_TEST_FAULTS lists jobs, `name` or `name:mode` (`*` for every job),
 * that fail here, in the worker, as a library's fault would: `throw` (the
 * default) throws an error; `exit` ends the worker thread, as a crash does.
 * Unset, it costs one look at the environment.
 * @param {string} name
 */
function injectedFault(name) {
  const faults = process.env.PAGEDIET_TEST_FAULTS;
  if (!faults) return;
  for (const fault of faults.split(',')) {
    const [job, mode = 'throw'] = fault.trim().split(':');
    if (job !== name && job !== '*') continue;
    if (mode === 'exit') process.exit(70);
    throw new Error(`injected fault in ${name}`);
  }
}

/**
 * A job whose module is imported on its first run.
 * @template {string} N
 * @template {Record<N, (input: any) => any>} M
 * @param {N} name the export of the module that is the job
 * @param {() => Promise<M>} load a literal `import()`: the job's code fingerprint (src/util/code-fingerprint.js) reads it
 * @param {{ sharp?: boolean }} [options] sharp: false for jobs that never touch an image
 * @returns {(input: Parameters<M[N]>[0]) => Promise<Awaited<ReturnType<M[N]>>>}
 */
function job(name, load, { sharp = true } = {}) {
  return async (input) => {
    injectedFault(name);
    if (sharp) await configureSharp();
    return (await load())[name](input);
  };
}

export const gifToPng = job('gifToPng', () => import('../images/jobs/gif-to-png.js'));
export const animation = job('animation', () => import('../images/jobs/animation.js'));
export const recompressPng = job('recompressPng', () => import('../images/jobs/recompress-png.js'));
export const photo = job('photo', () => import('../images/jobs/photo.js'));
export const compressText = job('compressText', () => import('../compress/jobs.js'), { sharp: false });
export const textImagePlan = job('textImagePlan', () => import('../text-images/plan.js'));
export const findPageImages = job('findPageImages', () => import('../text-images/elements.js'), { sharp: false });
export const minifyReplacementCss = job('minifyReplacementCss', () => import('../text-images/css-job.js'), { sharp: false });
export const findInPage = job('findInPage', () => import('../site/page-findings.js'), { sharp: false });
export const lowerPage = job('lowerPage', () => import('../markup/html-case-job.js'), { sharp: false });
export const pageCss = job('pageCss', () => import('../markup/page-css-job.js'), { sharp: false });
export const minifyScript = job('minifyScript', () => import('../scripts/minify-job.js'), { sharp: false });
export const optimizeSvg = job('optimizeSvg', () => import('../svg/optimize.js'), { sharp: false });
export const woff2Font = job('woff2Font', () => import('../fonts/jobs.js'), { sharp: false });

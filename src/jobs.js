/**
 * The jobs the worker pool runs (src/util/pool.js loads this file in each
 * worker): CPU-heavy, each a pure function of its input.
 */
import sharp from 'sharp';

// One libvips thread per worker: the pool already runs a job per core.
sharp.concurrency(1);
// No operation cache: every job decodes different bytes, so it would only hold memory (up to 50 MB a worker).
sharp.cache(false);

export { gifToPng } from './images/jobs/gif-to-png.js';
export { animation } from './images/jobs/animation.js';
export { recompressPng } from './images/jobs/recompress-png.js';
export { photo } from './images/jobs/photo.js';
export { compressText } from './compress/jobs.js';
export { textImagePlan } from './text-images/plan.js';
export { measureCompressed } from './markup/compressed-sizes.js';
export { minifyScript } from './scripts/minify-job.js';
export { optimizeSvg } from './svg/optimize.js';
export { woff2Font } from './fonts/jobs.js';

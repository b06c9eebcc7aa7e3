/**
 * The passes pagediet runs, in the fixed order they run in. The order matters:
 * text images are replaced before images are converted (no work on images that
 * go away), images before markup (references are rewritten first), and
 * precompression last, on final bytes.
 *
 * A pass is a module that exports a Pass object (see src/pipeline.js):
 * `name`, `description`, documented `options`, and `run(site, ctx)`.
 */
import textImages from './text-images.js';
import gifToPng from './gif-to-png.js';
import animations from './animations.js';
import png from './png.js';
import htmlCase from './html-case.js';
import minifyHtml from './minify-html.js';
import css from './css.js';
import precompress from './precompress.js';

/** The stable names of pagediet's passes, in run order, including those not built yet. */
export const PASS_ORDER = ['text-images', 'gif-to-png', 'animations', 'png', 'html-case', 'minify-html', 'css', 'precompress'];

/** @type {import('../pipeline.js').Pass[]} the passes this version has, in PASS_ORDER */
export const PASSES = [textImages, gifToPng, animations, png, htmlCase, minifyHtml, css, precompress];

/**
 * The options the image passes share: each is one entry of the option table
 * that the image passes list (gif-to-png, animations, png, photos, image-markup, text-images);
 * hash-names lists prune too.
 */
import { boolean, qualityRange, text, wholeNumber } from '../options/kinds.js';
import { option, optional } from '../options/table.js';
import { DEFAULT_MAX_PIXELS } from './gif/decode.js';
import { DEFAULT_TIME_BUDGET_S } from './jobs/animation.js';
import { DEFAULT_ZOPFLI_ITERATIONS } from './png/rank.js';

export const prune = option(boolean, false, 'remove an original from the output once every reference points at its replacement (a converted image, a content-hashed name)');
export const lossy = option(boolean, false, 'allow lossy image encodings (quantized PNG palettes, lossy WebP); without it every image stays pixel-exact');
export const quality = option(qualityRange, /** @type {[number, number]} */ ([65, 80]), 'with lossy: the quality floor a result must reach and the target, 0-100 on libimagequant\'s scale');
export const zopfliIterations = option(wholeNumber(), DEFAULT_ZOPFLI_ITERATIONS, 'also try zopfli with this many iterations on PNG data: slower, sometimes a little smaller (0: libdeflate only)');
export const maxPixels = option(wholeNumber(), DEFAULT_MAX_PIXELS, 'leave alone images with more pixels (decompression bombs)');
/**
 * The animations pass's: it bounds the candidates written per animated GIF. Counted in work estimated from the
 * frames, not in time measured, so that builds stay byte-identical (src/images/jobs/animation.js).
 */
export const imageTimeBudget = option(wholeNumber({ argument: '<seconds>' }), DEFAULT_TIME_BUDGET_S, 'seconds of encoding an animated GIF may cost, estimated from its frames before any is written (the same on every run): the dearer of APNG and WebP is not tried when both would go over it, and the decision says so (0: no budget)');
/** The passes that open pages in Chromium (text-images, photos, image-markup) share it. */
export const browser = optional(text('<path>', { path: true }), 'a Chromium, Chrome or Edge executable to measure layout and prove changes in, tried before the browsers pagediet finds (see pagediet doctor)');

/** What every image job is told: the encoders' settings. */
export const IMAGE_JOB_OPTIONS = { lossy, quality, zopfliIterations, maxPixels };

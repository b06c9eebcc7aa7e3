/**
 * SSIMULACRA 2: the perceptual image-quality metric by Jon Sneyers
 * (Cloudinary), written here in JavaScript from its reference implementation.
 * pagediet re-encodes a lossy photograph (JPEG, lossy WebP/AVIF) only into a
 * result this metric scores as visually identical at a strict threshold.
 *
 * Why hand-written: no maintained JavaScript or wasm package computes it. The
 * npm package calc-s2-rust is a one-person wasm build of an early (2022) copy
 * of the Rust port, it implements SSIMULACRA 2.0 rather than the current 2.1,
 * and it is used only in the tests, as a reference for the shared machinery.
 *
 * Source followed: tools/ssimulacra2.cc and tools/ssimulacra2_main.cc of
 * libjxl (https://github.com/libjxl/libjxl, BSD-3-Clause, copyright the JPEG
 * XL Project Authors), cross-checked against its Rust port rust-av/ssimulacra2
 * (BSD-2-Clause) and its build.rs for the recursive Gaussian. Licences: this
 * file is part of pagediet (MIT); it ports the algorithm and copies its
 * numeric constants (opsin absorbance matrix and bias, Gaussian derivation,
 * the 108 weights and the final transform), under the BSD licences above.
 *
 * Ported code, kept in one file as the reference's tools/ssimulacra2.cc is,
 * so that the two can be read side by side; that is why it is over the 600
 * lines every other module of pagediet keeps to.
 *
 * The algorithm (version 2.1, libjxl since April 2023, rust-av 0.4+):
 * - 8-bit sRGB -> linear sRGB (IEC 61966-2-1 transfer curve) as Float32Array
 *   planes; with alpha, blended against a grey background first (below);
 * - 6 scales, each a 2x2 box average of the previous one in linear RGB
 *   (the last row and column repeated on odd sizes); as in the reference
 *   loop, the next scale is made while the current one is at least 8x8, so
 *   the last scale can be 4 to 7 pixels across (12x12: scales 12 and 6);
 * - per scale, linear RGB -> XYB (opsin absorbance matrix + bias, cube root,
 *   minus the cube root of the bias), then "made positive" as ssimulacra2
 *   does it: X*14+0.42, Y+0.01, (B-Y)+0.55;
 * - mu1, mu2, sigma11, sigma22, sigma12 by the recursive Gaussian (sigma 1.5,
 *   Charalampidis 2016, zero outside the image, horizontal then vertical
 *   pass) of the planes and their products;
 * - per channel: the SSIM error map 1 - SSIM' without the luminance
 *   denominator (num_m = 1 - (mu1-mu2)^2, C2 = 0.0009), and the edge-difference
 *   ratio (1+|img2-mu2|)/(1+|img1-mu1|) - 1 split into artifact (>0) and
 *   detail-loss (<0); the mean and the 4-norm of each of the three;
 * - 3 channels x up to 6 scales x 2 norms x 3 maps = 108 features, weighted,
 *   scaled by 0.9562..., through the cubic 2.327x - 0.0209x^2 + 6.25e-5x^3,
 *   and 100 - 10*x^0.6276 (100 when the sum is 0). The weights are consumed
 *   in the reference's order (channel, scale, norm, map) with one running
 *   index, so an image with fewer than 6 scales uses the weights of the
 *   following channel's first scales for its later channels - kept as is.
 *
 * Scale, from the reference tool's usage text: 100 mathematically lossless;
 * 90 visually lossless (flicker test at 1:1, ~ libjpeg-turbo q95 4:4:4);
 * 85 excellent; 80 very high; 70 high; 50 medium; 30 low; 10 very low;
 * negative for extremely low quality.
 *
 * Alpha, as libjxl's ssimulacra2 tool does it (tools/ssimulacra2_main.cc):
 * when the reference image has an alpha channel, both images are blended
 * (in gamma-encoded sRGB, float32 a*c + (1-a)*bg, c and bg in 0..1) against
 * bg = 0.1 and against bg = 0.9, and the lower of the two scores is the
 * result; otherwise a distorted image with alpha is blended against 0.5.
 * rust-av's tool and calc-s2-rust drop alpha instead. A 4-channel image whose
 * alpha is 255 everywhere counts as having none: blending changes nothing,
 * the two scores would be the same, and one is computed.
 *
 * Images smaller than 8x8 are refused with an Error, as the reference tool
 * refuses them ("Minimum image size is 8x8 pixels"), and so are images of
 * different sizes.
 *
 * Arithmetic: the references compute in float32, and that is part of their
 * scores. The recursive Gaussian's poles lie on the unit circle, so its
 * rounding errors do not decay, and the SSIM map divides differences of
 * blurred values by C2 = 0.0009: the float32 error floor is worth about a
 * point near 90 (2.0 in float64 scored 94.6 where calc-s2-rust has 93.6). So
 * every step here rounds to float32 where the reference does (Math.fround;
 * a fused multiply-add as one rounding of the float64 result), in rust-av's
 * order of operations. What still differs, all numerical: libjxl's SIMD
 * horizontal pass unrolls the recurrence 4 ways (other roundings); Math.cbrt
 * instead of libjxl's polynomial cube root; the exact sRGB curve from a
 * 256-entry table (as libjxl's colour management; rust-av's yuvxyb uses a
 * derivative-continuous variant, 1.0550107/0.0030412825, with a polynomial
 * pow); float64 sums taken row by row. Measured: within 0.13 of libjxl's
 * tool (mean 0.013) on 109 images, within 0.26 of calc-s2-rust in 2.0 mode
 * (mean 0.03); test/ssimulacra2.test.js pins both.
 *
 * `options.version: '2.0'` computes the superseded SSIMULACRA 2.0 (libjxl
 * 0.8, calc-s2-rust): X+0.5, Y+0.05, B+(1.1-Y), its own weights, and
 * 100 - 10*(17.83x - 1.634)^0.5453. It exists so the tests can pin the shared
 * pipeline to calc-s2-rust; pagediet's decisions use 2.1.
 */

/**
 * @typedef {object} Ssimulacra2Image
 * @property {Uint8Array} data 8-bit sRGB, RGB or RGBA interleaved, row by row (a Buffer is a Uint8Array)
 * @property {number} width
 * @property {number} height
 * @property {3 | 4} channels
 */

/**
 * @typedef {object} Ssimulacra2Options
 * @property {'2.1' | '2.0'} [version] default '2.1', the current metric
 */

export const NUM_SCALES = 6;
export const MIN_SIZE = 8;
const f32 = Math.fround;

// SSIMULACRA 2.1 weights (libjxl tools/ssimulacra2.cc), 6 to a line: one
// scale of one channel, [ssim, artifact, detail-lost] for the 1-norm then the
// 4-norm; lines 1-6 are X at scales 1:1..1:32, 7-12 Y, 13-18 B.
export const WEIGHTS_21 = [
  0.0, 0.0007376606707406586, 0.0, 0.0, 0.0007793481682867309, 0.0,
  0.0, 0.0004371155730107379, 0.0, 1.1041726426657346, 0.00066284834129271, 0.00015231632783718752,
  0.0, 0.0016406437456599754, 0.0, 1.8422455520539298, 11.441172603757666, 0.0,
  0.0007989109436015163, 0.000176816438078653, 0.0, 1.8787594979546387, 10.94906990605142, 0.0,
  0.0007289346991508072, 0.9677937080626833, 0.0, 0.00014003424285435884, 0.9981766977854967, 0.00031949755934435053,
  0.0004550992113792063, 0.0, 0.0, 0.0013648766163243398, 0.0, 0.0,
  0.0, 0.0, 0.0, 7.466890328078848, 0.0, 17.445833984131262,
  0.0006235601634041466, 0.0, 0.0, 6.683678146179332, 0.00037724407979611296, 1.027889937768264,
  225.20515300849274, 0.0, 0.0, 19.213238186143016, 0.0011401524586618361, 0.001237755635509985,
  176.39317598450694, 0.0, 0.0, 24.43300999870476, 0.28520802612117757, 0.0004485436923833408,
  0.0, 0.0, 0.0, 34.77906344483772, 44.835625328877896, 0.0,
  0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
  0.0, 0.0008680556573291698, 0.0, 0.0, 0.0, 0.0,
  0.0, 0.0005313191874358747, 0.0, 0.00016533814161379112, 0.0, 0.0,
  0.0, 0.0, 0.0, 0.0004179171803251336, 0.0017290828234722833, 0.0,
  0.0020827005846636437, 0.0, 0.0, 8.826982764996862, 23.19243343998926, 0.0,
  95.1080498811086, 0.9863978034400682, 0.9834382792465353, 0.0012286405048278493, 171.2667255897307, 0.9807858872435379,
  0.0, 0.0, 0.0, 0.0005130064588990679, 0.0, 0.00010854057858411537,
];

// SSIMULACRA 2.0 weights (libjxl 0.8 tools/ssimulacra2.cc; calc-s2-rust), same layout.
const WEIGHTS_20 = [
  0.0, 0.0, 0.0, 1.0035479352512353, 0.00011322061110474735, 0.00040442991823685936,
  0.0018953834105783773, 0.0, 0.0, 8.982542997575905, 0.9899785796045556, 0.0,
  0.9748315131207942, 0.9581575169937973, 0.0, 0.5133611777952946, 1.0423189317331243, 0.000308010928520841,
  12.149584966240063, 0.9565577248115467, 0.0, 1.0406668123136824, 81.51139046057362, 0.30593391895330946,
  1.0752214433626779, 1.1039042369464611, 0.0, 1.021911638819618, 1.1141823296855722, 0.9730845751441705,
  0.0, 0.0, 0.0, 0.9833918426095505, 0.7920385137059867, 0.9710740411514053,
  0.0, 0.0, 0.0, 0.5387077903152638, 0.0, 3.4036945601155804,
  0.0, 0.0, 0.0, 2.337569295661117, 0.0, 5.707946510901609,
  37.83086423878157, 0.0, 0.0, 3.8258200594305185, 0.0, 0.0,
  24.073659674271497, 0.0, 0.0, 13.181871265286068, 0.0, 0.0,
  0.0, 0.0, 0.0, 10.00750121262895, 0.0, 0.0,
  0.0, 0.0, 0.0, 52.51428385603891, 0.0, 0.0,
  0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
  0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
  0.0, 0.9946464267894417, 0.0, 0.0, 0.0006040447715934816, 0.0,
  0.0, 0.9945171491374072, 0.0, 2.8260043809454376, 1.0052642766534516, 8.201441997546244e-05,
  12.154041855876695, 32.292928706201266, 0.992837130387521, 0.0, 30.71925517844603, 0.00012309907022278743,
  0.0, 0.9826260237051734, 0.0, 0.0, 0.9980928367837651, 0.012142430067163312,
];

// "Make positive" offsets (float32, as in the references).
const POS21_X = f32(0.42);
const POS21_Y = f32(0.01);
const POS21_B = f32(0.55);
const POS20_X = f32(0.5);
const POS20_Y = f32(0.05);
const POS20_B = f32(1.1);

// Opsin absorbance matrix and bias (libjxl lib/jxl/cms/opsin_params.h), float32 as there.
const M02 = f32(0.078);
const M00 = f32(0.3);
const M01 = f32(f32(1 - M02) - M00);
const M12 = f32(0.078);
const M10 = f32(0.23);
const M11 = f32(f32(1 - M12) - M10);
const M20 = f32(0.24342268924547819);
const M21 = f32(0.20476744424496821);
const M22 = f32(f32(1 - M20) - M21);
const BIAS = f32(0.0037930732552754493);
const NEG_BIAS_CBRT = -f32(Math.cbrt(BIAS));

// 8-bit sRGB -> linear, the IEC 61966-2-1 curve, rounded to float32.
export const SRGB_TO_LINEAR = new Float32Array(256);
for (let i = 0; i < 256; i++) SRGB_TO_LINEAR[i] = srgbToLinear(i / 255);

/** @param {number} v encoded, 0..1 */
function srgbToLinear(v) {
  return v <= 0.04045 ? v / 12.92 : power((v + 0.055) / 1.055, 2.4);
}

/**
 * The recursive Gaussian's coefficients, derived as libjxl's
 * CreateRecursiveGaussian and rust-av's build.rs derive them
 * (Charalampidis 2016, equations cited by number), rounded to float32 as both
 * store them. Each of the three IIR filters k = 1, 3, 5 runs
 * out = n2[k]*(in[n-N-1] + in[n+N-1]) - d1[k]*prev - prev2.
 * @param {number} sigma
 */
function recursiveGaussian(sigma) {
  const radius = Math.round(3.2795 * sigma + 0.2546); // (57) "N"
  const piDiv2r = Math.PI / (2 * radius); // Table I, first row
  const omega = [piDiv2r, 3 * piDiv2r, 5 * piDiv2r];
  const p1 = 1 / Math.tan(0.5 * omega[0]); // (37)
  const p3 = -1 / Math.tan(0.5 * omega[1]);
  const p5 = 1 / Math.tan(0.5 * omega[2]);
  const r1 = (p1 * p1) / Math.sin(omega[0]); // (44)
  const r3 = (-p3 * p3) / Math.sin(omega[1]);
  const r5 = (p5 * p5) / Math.sin(omega[2]);
  const rho = omega.map((w) => Math.exp(-0.5 * sigma * sigma * w * w) / radius); // (50)
  const d13 = p1 * r3 - r1 * p3; // (52)
  const d35 = p3 * r5 - r3 * p5;
  const d51 = p5 * r1 - r5 * p1;
  const zeta15 = d35 / d13;
  const zeta35 = d51 / d13;
  const a = invert3([p1, p3, p5, r1, r3, r5, zeta15, zeta35, 1]); // (56)
  const gamma = [1, radius * radius - sigma * sigma, zeta15 * rho[0] + zeta35 * rho[1] + rho[2]]; // (55)
  const beta = [0, 1, 2].map((i) => a[3 * i] * gamma[0] + a[3 * i + 1] * gamma[1] + a[3 * i + 2] * gamma[2]); // (53)
  // (39): the filter weights are normalised.
  if (Math.abs(beta[0] * p1 + beta[1] * p3 + beta[2] * p5 - 1) > 1e-12) throw new Error('ssimulacra2: recursive Gaussian coefficients failed to normalise');
  const n2 = omega.map((w, i) => f32(-beta[i] * Math.cos(w * (radius + 1)))); // (33)
  const d1 = omega.map((w) => f32(-2 * Math.cos(w)));
  return { radius, n2, d1 };
}

/**
 * Inverse of a row-major 3x3 matrix.
 * @param {number[]} m
 * @returns {number[]}
 */
function invert3(m) {
  const [a, b, c, d, e, f, g, h, i] = m;
  const A = e * i - f * h;
  const B = -(d * i - f * g);
  const C = d * h - e * g;
  const det = a * A + b * B + c * C;
  return [A / det, -(b * i - c * h) / det, (b * f - c * e) / det, B / det, (a * i - c * g) / det, -(a * f - c * d) / det, C / det, -(a * h - b * g) / det, (a * e - b * d) / det];
}

const GAUSS = recursiveGaussian(1.5);
const RADIUS = GAUSS.radius;
const [N2_1, N2_3, N2_5] = GAUSS.n2;
const [D1_1, D1_3, D1_5] = GAUSS.d1;
const [MP_1, MP_3, MP_5] = [-D1_1, -D1_3, -D1_5];
const C2 = f32(0.0009);

/** Rows of the horizontal pass kept for the vertical one: output row n reads rows n - N - 1 and n + N - 1. */
const RING = 2 * RADIUS + 1;

/**
 * The SSIMULACRA 2 score of DISTORTED against REFERENCE: 100 for identical
 * pixels, about 90 and up visually lossless, lower is worse (can be negative).
 * To score several images against one reference, ssimulacra2Scorer does the
 * reference's half of the work once; the scores are the same to the last bit.
 * @param {Ssimulacra2Image} reference
 * @param {Ssimulacra2Image} distorted
 * @param {Ssimulacra2Options} [options]
 * @returns {number}
 */
export function ssimulacra2(reference, distorted, options = {}) {
  checkImage(reference, 'reference');
  checkImage(distorted, 'distorted');
  const version = checkVersion(options);
  const { width, height } = reference;
  checkSameSize(reference, distorted);
  checkMinSize(width, height);
  const work = new Work(width, height);
  const transparent = hasTransparency(reference);
  // Nothing kept: with transparency, each background's reference is made
  // when it is needed and dropped after (memory as for one comparison).
  /** @type {Level[] | null} */
  let opaque = null;
  /** @param {number} background */
  const pyramid = (background) => (transparent ? referencePyramid(reference, background, version, work) : (opaque ??= referencePyramid(reference, background, version, work)));
  return scoreAgainst(pyramid, reference.channels, transparent, distorted, version, work);
}

/**
 * @typedef {object} Ssimulacra2Scorer
 * @property {(distorted: Ssimulacra2Image) => number} score the SSIMULACRA 2
 *   score of DISTORTED against the scorer's reference, identical to the last
 *   bit to ssimulacra2(reference, distorted, options)
 */

/**
 * A scorer of images against one REFERENCE: what depends on the reference
 * alone (linear RGB, its scales, their XYB planes, and per channel and scale
 * the blurred plane mu1 and its variance sigma11 - mu1^2) is computed here,
 * once, and each score() computes only the distorted image's half and the
 * cross terms: about 40% less time per score than ssimulacra2() from the
 * second score on, and the same scores to the last bit.
 *
 * Memory: the scorer holds 9 float32 planes per scale, about 48 bytes per
 * pixel for the 6 scales (4/3 of the full-size planes), twice that (about 96)
 * when the reference has transparency (a reference per background, 0.1 and
 * 0.9), plus about 15 bytes per pixel of work buffers for the distorted
 * image (its three planes at full and half size) and a few rows: about
 * 63 bytes per pixel in all, 111 with transparency (ssimulacra2() alone
 * uses about 63). It holds no reference to REFERENCE's pixels (changing them
 * later changes nothing), and nothing grows with the number of scores; it is
 * freed with the scorer.
 * @param {Ssimulacra2Image} reference
 * @param {Ssimulacra2Options} [options]
 * @returns {Ssimulacra2Scorer}
 */
export function ssimulacra2Scorer(reference, options = {}) {
  checkImage(reference, 'reference');
  const version = checkVersion(options);
  const { width, height, channels } = reference;
  checkMinSize(width, height);
  const work = new Work(width, height);
  const transparent = hasTransparency(reference);
  // An opaque reference's planes are the same against every background.
  const dark = referencePyramid(reference, transparent ? 0.1 : 0.5, version, work);
  const light = transparent ? referencePyramid(reference, 0.9, version, work) : dark;
  /** @param {number} background */
  const pyramid = (background) => (background === 0.9 ? light : dark);
  return {
    score(distorted) {
      checkImage(distorted, 'distorted');
      checkSameSize({ width, height }, distorted);
      return scoreAgainst(pyramid, channels, transparent, distorted, version, work);
    },
  };
}

/**
 * The score against the reference's planes PYRAMID(background), with alpha
 * as libjxl's tool takes it (the top of this file).
 * @param {(background: number) => Level[]} pyramid
 * @param {3 | 4} channels the reference's
 * @param {boolean} transparent whether the reference has transparency
 * @param {Ssimulacra2Image} distorted
 * @param {'2.1' | '2.0'} version
 * @param {Work} work
 */
function scoreAgainst(pyramid, channels, transparent, distorted, version, work) {
  if (channels === 4 && (transparent || hasTransparency(distorted))) {
    // The reference has alpha: the worse of a dark and a light background.
    const dark = compare(pyramid(0.1), distorted, 0.1, version, work);
    const light = compare(pyramid(0.9), distorted, 0.9, version, work);
    return Math.min(dark, light);
  }
  return compare(pyramid(0.5), distorted, 0.5, version, work);
}

/**
 * @param {Ssimulacra2Options} options
 * @returns {'2.1' | '2.0'}
 */
export function checkVersion(options) {
  const version = options.version ?? '2.1';
  if (version !== '2.1' && version !== '2.0') throw new Error(`ssimulacra2: unknown version ${JSON.stringify(version)} (2.1 or 2.0)`);
  return version;
}

/**
 * @param {{ width: number, height: number }} reference
 * @param {Ssimulacra2Image} distorted
 */
export function checkSameSize({ width, height }, distorted) {
  if (distorted.width !== width || distorted.height !== height) {
    throw new Error(`ssimulacra2: the images differ in size: reference ${width}x${height}, distorted ${distorted.width}x${distorted.height}`);
  }
}

/**
 * @param {number} width
 * @param {number} height
 */
export function checkMinSize(width, height) {
  if (width < MIN_SIZE || height < MIN_SIZE) throw new Error(`ssimulacra2: images must be at least ${MIN_SIZE}x${MIN_SIZE} pixels, these are ${width}x${height}`);
}

/**
 * @param {Ssimulacra2Image} image
 * @param {string} name
 */
export function checkImage(image, name) {
  if (!image || typeof image !== 'object') throw new Error(`ssimulacra2: the ${name} image is missing`);
  const { data, width, height, channels } = image;
  if (!(data instanceof Uint8Array)) throw new Error(`ssimulacra2: the ${name} image's data must be a Uint8Array or Buffer of 8-bit samples`);
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) throw new Error(`ssimulacra2: the ${name} image's width and height must be positive integers, got ${width}x${height}`);
  if (channels !== 3 && channels !== 4) throw new Error(`ssimulacra2: the ${name} image must have 3 (RGB) or 4 (RGBA) channels, got ${channels}`);
  if (data.length !== width * height * channels) {
    throw new Error(`ssimulacra2: the ${name} image's data has ${data.length} bytes, ${width}x${height}x${channels} needs ${width * height * channels}`);
  }
}

/**
 * Whether an image has an alpha channel with any pixel not fully opaque.
 * @param {Ssimulacra2Image} image
 */
export function hasTransparency(image) {
  if (image.channels !== 4) return false;
  const { data } = image;
  for (let i = 3; i < data.length; i += 4) if (data[i] !== 255) return true;
  return false;
}

/**
 * One scale of the reference: its XYB planes (made positive), and per
 * channel mu1 = blur(x1) and var1 = blur(x1*x1) - mu1*mu1 (float32, as the
 * SSIM map takes sigma11 - mu11).
 * @typedef {object} Level
 * @property {number} w
 * @property {number} h
 * @property {Float32Array[]} x
 * @property {Float32Array[]} mu
 * @property {Float32Array[]} variance
 */

/**
 * The reference's planes at every scale, against one background.
 * @param {Ssimulacra2Image} reference
 * @param {number} background gamma-encoded grey level for transparent pixels
 * @param {'2.1' | '2.0'} version
 * @param {Work} work for its row buffers
 * @returns {Level[]}
 */
function referencePyramid(reference, background, version, work) {
  let w = reference.width;
  let h = reference.height;
  let cur = planes(3, w * h);
  toLinear(reference, background, cur);
  /** @type {Level[]} */
  const levels = [];
  for (let scale = 0; scale < NUM_SCALES; scale++) {
    // The reference decides on the next scale from this scale's size.
    const more = scale + 1 < NUM_SCALES && w >= MIN_SIZE && h >= MIN_SIZE;
    const next = more ? planes(3, Math.ceil(w / 2) * Math.ceil(h / 2)) : [];
    if (more) for (let c = 0; c < 3; c++) downscale(cur[c], next[c], w, h);
    toPositiveXyb(cur, w, h, version);
    const mu = planes(3, w * h);
    const variance = planes(3, w * h);
    for (let c = 0; c < 3; c++) blurReference(cur[c], mu[c], variance[c], w, h, work);
    levels.push({ w, h, x: cur, mu, variance });
    if (!more) break;
    cur = next;
    w = Math.ceil(w / 2);
    h = Math.ceil(h / 2);
  }
  return levels;
}

/**
 * The score of DISTORTED against the reference's LEVELS.
 * @param {Level[]} levels
 * @param {Ssimulacra2Image} distorted
 * @param {number} background
 * @param {'2.1' | '2.0'} version
 * @param {Work} work
 */
function compare(levels, distorted, background, version, work) {
  const { features, sums } = work;
  toLinear(distorted, background, work.a);
  for (let scale = 0; scale < levels.length; scale++) {
    const { w, h, x, mu, variance } = levels[scale];
    const cur = scale % 2 === 0 ? work.a : work.b;
    const next = scale % 2 === 0 ? work.b : work.a;
    if (scale + 1 < levels.length) for (let c = 0; c < 3; c++) downscale(cur[c], next[c], w, h);
    toPositiveXyb(cur, w, h, version);
    for (let c = 0; c < 3; c++) {
      sums.fill(0);
      blurCompare(x[c], cur[c], mu[c], variance[c], w, h, work);
      setFeatures(features, scale, c, sums, 0, w * h);
    }
  }
  return version === '2.0' ? score20(features, levels.length) : score21(features, levels.length);
}

/**
 * One channel's 6 features at one scale, from its error maps' sums over N
 * pixels: the mean and the 4-norm of the SSIM error, the artifact and the
 * detail-loss maps.
 * @param {Float64Array} features 18 per scale (see Work)
 * @param {number} scale
 * @param {number} c channel
 * @param {Float64Array} sums [ssim, ssim^4, artifact, artifact^4, lost, lost^4] from AT
 * @param {number} at
 * @param {number} n
 */
export function setFeatures(features, scale, c, sums, at, n) {
  const base = scale * 18;
  features[base + c * 2] = sums[at] / n;
  features[base + c * 2 + 1] = Math.sqrt(Math.sqrt(sums[at + 1] / n));
  features[base + 6 + c * 4] = sums[at + 2] / n;
  features[base + 6 + c * 4 + 1] = Math.sqrt(Math.sqrt(sums[at + 3] / n));
  features[base + 6 + c * 4 + 2] = sums[at + 4] / n;
  features[base + 6 + c * 4 + 3] = Math.sqrt(Math.sqrt(sums[at + 5] / n));
}

/**
 * The buffers of the distorted image's side, allocated once and reused
 * across scales, backgrounds and scores: its three planes at full size (A)
 * and at half size (B), used in turn as the current scale (converted to XYB
 * in place) and the next one (downscaled in linear RGB before that
 * conversion); and rows for the blur, which runs a row at a time: the
 * product rows it blurs, the last RING rows of its horizontal pass, the
 * vertical pass's state and its output row, per plane blurred together.
 *
 * Arithmetic rounds to float32 where the reference does (see the top of
 * this file for why).
 *
 * Every pixel loop is a function over one row, called row after row: V8
 * optimises a function called often sooner than a long loop run once.
 */
class Work {
  /**
   * @param {number} width
   * @param {number} height
   */
  constructor(width, height) {
    const full = width * height;
    const half = Math.ceil(width / 2) * Math.ceil(height / 2);
    /** @type {Float32Array[]} */
    this.a = planes(3, full);
    /** @type {Float32Array[]} */
    this.b = planes(3, half);
    /** Source rows: the products x*x and x1*x2 */
    this.products = planes(2, width);
    /** The horizontal pass's last RING rows, of up to 3 planes */
    this.ring = planes(3, RING * width);
    /** The vertical pass's output row, of up to 3 planes */
    this.rows = planes(3, width);
    // The vertical pass's state, per plane and column: the last two outputs
    // of each of the three recurrences k = 1, 3, 5, in two halves that take
    // turns as the previous row's and the one before (the older one is
    // overwritten by the new row's). Float32, as the values are: half the
    // memory traffic of float64, which is what the vertical pass waits on.
    this.state = [new Float32Array(3 * 3 * width), new Float32Array(3 * 3 * width)];
    /** Sums of one channel: ssim, ssim^4, artifact, artifact^4, lost, lost^4 */
    this.sums = new Float64Array(6);
    /** 18 features per scale: [ssim 1-norm, 4-norm] x 3 channels, then [artifact 1, artifact 4, lost 1, lost 4] x 3 */
    this.features = new Float64Array(NUM_SCALES * 18);
  }
}

/**
 * @param {number} count
 * @param {number} size
 */
function planes(count, size) {
  return Array.from({ length: count }, () => new Float32Array(size));
}

/**
 * The recursive Gaussian of the reference's X1 (into MU) and of X1*X1, less
 * MU^2 (into VARIANCE), zero outside the image: horizontal pass a row at a
 * time into the ring, the vertical pass's row n once row n + N - 1 is there.
 * @param {Float32Array} x1
 * @param {Float32Array} mu
 * @param {Float32Array} variance
 * @param {number} w
 * @param {number} h
 * @param {Work} work
 */
function blurReference(x1, mu, variance, w, h, work) {
  const { products, ring, state } = work;
  const [square] = products;
  for (const half of state) half.fill(0, 0, 2 * 3 * w);
  for (let n = -RADIUS + 1; n < h; n++) {
    const top = n - RADIUS - 1;
    const bottom = n + RADIUS - 1;
    if (bottom < h) {
      const off = bottom * w;
      const r = (bottom % RING) * w;
      multiplyRow(x1, x1, square, off, w);
      horizontalRow(x1, off, ring[0], r, w);
      horizontalRow(square, 0, ring[1], r, w);
    }
    const t = top >= 0 ? (top % RING) * w : -1;
    const b = bottom < h ? (bottom % RING) * w : -1;
    const o = n >= 0 ? n * w : -1;
    const prev = state[n & 1];
    const prev2 = state[(n & 1) ^ 1];
    verticalRow(ring[0], mu, t, b, o, w, prev, prev2, 0);
    verticalRow(ring[1], variance, t, b, o, w, prev, prev2, 3 * w);
    if (n >= 0) varianceRow(mu, variance, o, o + w);
  }
}

/**
 * The recursive Gaussian of the distorted image's X2, X2*X2 and X1*X2, a row
 * at a time as blurReference, each output row taken into the error maps'
 * sums (work.sums) at once.
 * @param {Float32Array} x1
 * @param {Float32Array} x2
 * @param {Float32Array} mu1
 * @param {Float32Array} var1
 * @param {number} w
 * @param {number} h
 * @param {Work} work
 */
function blurCompare(x1, x2, mu1, var1, w, h, work) {
  const { products, ring, rows, state, sums } = work;
  const [square, cross] = products;
  for (const half of state) half.fill(0, 0, 3 * 3 * w);
  for (let n = -RADIUS + 1; n < h; n++) {
    const top = n - RADIUS - 1;
    const bottom = n + RADIUS - 1;
    if (bottom < h) {
      const off = bottom * w;
      const r = (bottom % RING) * w;
      multiplyRow(x2, x2, square, off, w);
      multiplyRow(x1, x2, cross, off, w);
      horizontalRow3(x2, off, square, 0, cross, 0, ring[0], ring[1], ring[2], r, w);
    }
    const t = top >= 0 ? (top % RING) * w : -1;
    const b = bottom < h ? (bottom % RING) * w : -1;
    const o = n >= 0 ? 0 : -1;
    const prev = state[n & 1];
    const prev2 = state[(n & 1) ^ 1];
    verticalRow(ring[0], rows[0], t, b, o, w, prev, prev2, 0);
    verticalRow(ring[1], rows[1], t, b, o, w, prev, prev2, 3 * w);
    verticalRow(ring[2], rows[2], t, b, o, w, prev, prev2, 6 * w);
    if (n >= 0) errorRow(x1, x2, mu1, var1, rows[0], rows[1], rows[2], n * w, w, sums);
  }
}

/**
 * Three rows of the horizontal pass at once, each as horizontalRow computes
 * it: the three recurrences of one row wait on each other's latency, those of
 * three rows interleave.
 * @param {Float32Array} sa
 * @param {number} oa the first row's first index in SA
 * @param {Float32Array} sb
 * @param {number} ob
 * @param {Float32Array} sc
 * @param {number} oc
 * @param {Float32Array} da
 * @param {Float32Array} db
 * @param {Float32Array} dc
 * @param {number} dOff the rows' first index in DA, DB and DC
 * @param {number} w
 */
function horizontalRow3(sa, oa, sb, ob, sc, oc, da, db, dc, dOff, w) {
  let a1 = 0, a3 = 0, a5 = 0, qa1 = 0, qa3 = 0, qa5 = 0;
  let b1 = 0, b3 = 0, b5 = 0, qb1 = 0, qb3 = 0, qb5 = 0;
  let c1 = 0, c3 = 0, c5 = 0, qc1 = 0, qc3 = 0, qc5 = 0;
  for (let n = -RADIUS + 1; n < w; n++) {
    const left = n - RADIUS - 1;
    const right = n + RADIUS - 1;
    let sumA = 0, sumB = 0, sumC = 0;
    if (left >= 0) {
      if (right < w) {
        sumA = f32(sa[oa + left] + sa[oa + right]);
        sumB = f32(sb[ob + left] + sb[ob + right]);
        sumC = f32(sc[oc + left] + sc[oc + right]);
      } else {
        sumA = sa[oa + left];
        sumB = sb[ob + left];
        sumC = sc[oc + left];
      }
    } else if (right < w) {
      sumA = sa[oa + right];
      sumB = sb[ob + right];
      sumC = sc[oc + right];
    }
    const oa1 = f32(MP_1 * a1 + f32(f32(sumA * N2_1) - qa1));
    const oa3 = f32(MP_3 * a3 + f32(f32(sumA * N2_3) - qa3));
    const oa5 = f32(MP_5 * a5 + f32(f32(sumA * N2_5) - qa5));
    const ob1 = f32(MP_1 * b1 + f32(f32(sumB * N2_1) - qb1));
    const ob3 = f32(MP_3 * b3 + f32(f32(sumB * N2_3) - qb3));
    const ob5 = f32(MP_5 * b5 + f32(f32(sumB * N2_5) - qb5));
    const oc1 = f32(MP_1 * c1 + f32(f32(sumC * N2_1) - qc1));
    const oc3 = f32(MP_3 * c3 + f32(f32(sumC * N2_3) - qc3));
    const oc5 = f32(MP_5 * c5 + f32(f32(sumC * N2_5) - qc5));
    qa1 = a1; qa3 = a3; qa5 = a5; a1 = oa1; a3 = oa3; a5 = oa5;
    qb1 = b1; qb3 = b3; qb5 = b5; b1 = ob1; b3 = ob3; b5 = ob5;
    qc1 = c1; qc3 = c3; qc5 = c5; c1 = oc1; c3 = oc3; c5 = oc5;
    if (n >= 0) {
      da[dOff + n] = f32(oa1 + oa3) + oa5;
      db[dOff + n] = f32(ob1 + ob3) + ob5;
      dc[dOff + n] = f32(oc1 + oc3) + oc5;
    }
  }
}

/**
 * One row of the horizontal pass.
 * @param {Float32Array} src
 * @param {number} off the row's first index in SRC
 * @param {Float32Array} dst
 * @param {number} dstOff the row's first index in DST
 * @param {number} w
 */
function horizontalRow(src, off, dst, dstOff, w) {
  let p1 = 0;
  let p3 = 0;
  let p5 = 0;
  let q1 = 0;
  let q3 = 0;
  let q5 = 0;
  for (let n = -RADIUS + 1; n < w; n++) {
    const left = n - RADIUS - 1;
    const right = n + RADIUS - 1;
    const sum = left >= 0 ? (right < w ? f32(src[off + left] + src[off + right]) : src[off + left]) : right < w ? src[off + right] : 0;
    const o1 = f32(MP_1 * p1 + f32(f32(sum * N2_1) - q1));
    const o3 = f32(MP_3 * p3 + f32(f32(sum * N2_3) - q3));
    const o5 = f32(MP_5 * p5 + f32(f32(sum * N2_5) - q5));
    q1 = p1;
    q3 = p3;
    q5 = p5;
    p1 = o1;
    p3 = o3;
    p5 = o5;
    if (n >= 0) dst[dstOff + n] = f32(o1 + o3) + o5;
  }
}

/**
 * One output row of the vertical pass: row n from input rows n - N - 1 (TOP)
 * and n + N - 1 (BOTTOM), -1 for a row outside the image.
 * @param {Float32Array} src
 * @param {Float32Array} out
 * @param {number} top first index of the top input row, or -1
 * @param {number} bottom first index of the bottom input row, or -1
 * @param {number} outOff first index of the output row, or -1 while warming up
 * @param {number} w
 * @param {Float32Array} prev per column: the previous row's outputs 1, 3, 5
 * @param {Float32Array} prev2 per column: the outputs 1, 3, 5 of the row before; this row's out
 * @param {number} so this plane's first index in PREV and PREV2
 */
function verticalRow(src, out, top, bottom, outOff, w, prev, prev2, so) {
  for (let x = 0, k = so; x < w; x++, k += 3) {
    const sum = top >= 0 ? (bottom >= 0 ? f32(src[top + x] + src[bottom + x]) : src[top + x]) : bottom >= 0 ? src[bottom + x] : 0;
    const o1 = f32(sum * N2_1 - f32(prev[k] * D1_1 + prev2[k]));
    const o3 = f32(sum * N2_3 - f32(prev[k + 1] * D1_3 + prev2[k + 1]));
    const o5 = f32(sum * N2_5 - f32(prev[k + 2] * D1_5 + prev2[k + 2]));
    prev2[k] = o1;
    prev2[k + 1] = o3;
    prev2[k + 2] = o5;
    if (outOff >= 0) out[outOff + x] = f32(o1 + o3) + o5;
  }
}

/**
 * sigma11 - mu11 in place of sigma11, for one row.
 * @param {Float32Array} mu
 * @param {Float32Array} variance blur(x*x) in, less mu^2 out
 * @param {number} start
 * @param {number} end
 */
function varianceRow(mu, variance, start, end) {
  for (let i = start; i < end; i++) {
    const m = mu[i];
    variance[i] = variance[i] - f32(m * m);
  }
}

/**
 * The error maps of one row, added to SUMS: 1 - SSIM' and its 4th power,
 * artifact and its 4th power, detail lost and its 4th power.
 * @param {Float32Array} x1
 * @param {Float32Array} x2
 * @param {Float32Array} mu1
 * @param {Float32Array} var1 sigma11 - mu1^2
 * @param {Float32Array} mu2 this row only
 * @param {Float32Array} s22 this row only
 * @param {Float32Array} s12 this row only
 * @param {number} start the row's first index in the planes
 * @param {number} w
 * @param {Float64Array} sums
 */
function errorRow(x1, x2, mu1, var1, mu2, s22, s12, start, w, sums) {
  let ssim1 = 0;
  let ssim4 = 0;
  let art1 = 0;
  let art4 = 0;
  let lost1 = 0;
  let lost4 = 0;
  for (let j = 0, i = start; j < w; j++, i++) {
    const m1 = mu1[i];
    const m2 = mu2[j];
    // SSIM without the luminance term's denominator (ssimulacra2's correction).
    const mu22 = f32(m2 * m2);
    const mu12 = f32(m1 * m2);
    const diff = f32(m1 - m2);
    const numM = f32(1 - diff * diff);
    const numS = f32(2 * f32(s12[j] - mu12) + C2);
    const denS = f32(f32(var1[i] + f32(s22[j] - mu22)) + C2);
    let d = 1 - f32(f32(numM * numS) / denS);
    if (d < 0) d = 0;
    ssim1 += d;
    d *= d;
    ssim4 += d * d;
    // Edges: > 0 the distorted image has an edge the original lacks (ringing,
    // blocks, banding); < 0 the original has an edge the distorted lost (blur).
    const e = (1 + Math.abs(f32(x2[i] - m2))) / (1 + Math.abs(f32(x1[i] - m1))) - 1;
    // Without branches, as the sign changes from pixel to pixel (mispredicted
    // branches cost about a tenth of a score): for a finite e, which it is (the ratio
    // of two finite numbers >= 1), (e + |e|) / 2 is e when e > 0 and +0
    // otherwise, exactly (2e and its half are exact), (e - |e|) / 2 is e when
    // e < 0 and +0 otherwise; and a sum to which +0 is added is unchanged.
    const art = (e + Math.abs(e)) * 0.5;
    const lost = (e - Math.abs(e)) * 0.5;
    art1 += art;
    const a2 = art * art;
    art4 += a2 * a2;
    lost1 -= lost;
    const l2 = lost * lost;
    lost4 += l2 * l2;
  }
  sums[0] += ssim1;
  sums[1] += ssim4;
  sums[2] += art1;
  sums[3] += art4;
  sums[4] += lost1;
  sums[5] += lost4;
}

/**
 * A row of products A*B (float32) into OUT from index 0.
 * @param {Float32Array} a
 * @param {Float32Array} b
 * @param {Float32Array} out
 * @param {number} start the row's first index in A and B
 * @param {number} w
 */
function multiplyRow(a, b, out, start, w) {
  for (let j = 0, i = start; j < w; j++, i++) out[j] = a[i] * b[i];
}

/**
 * 8-bit sRGB (alpha blended against BACKGROUND where not opaque) -> linear
 * sRGB planes.
 * @param {Ssimulacra2Image} image
 * @param {number} background
 * @param {Float32Array[]} out
 */
function toLinear({ data, width, height, channels }, background, [r, g, b]) {
  const blended = channels === 4 ? blendTable(background) : SRGB_TO_LINEAR;
  for (let y = 0; y < height; y++) {
    const start = y * width;
    if (channels === 3) linearRow3(data, start * 3, r, g, b, start, start + width);
    else linearRow4(data, start * 4, r, g, b, start, start + width, blended);
  }
}

/** @type {Map<number, Float32Array>} */
const BLEND_TABLES = new Map();

/**
 * Linear values of a colour sample C with alpha A blended against
 * BACKGROUND, at [A * 256 + C]: in gamma-encoded sRGB, as libjxl's
 * AlphaBlend does before its colour transform, a*c + (1-a)*bg in float32,
 * then the exact sRGB curve. Made once per background (65536 entries, 256 KB)
 * and kept: the three backgrounds used take 768 KB.
 * @param {number} background
 */
export function blendTable(background) {
  let table = BLEND_TABLES.get(background);
  if (!table) {
    table = new Float32Array(256 * 256);
    for (let alpha = 0; alpha < 256; alpha++) {
      const a = f32(alpha / 255);
      const bg = f32(f32(1 - a) * background);
      for (let c = 0; c < 256; c++) table[alpha * 256 + c] = srgbToLinear(f32(f32(a * f32(c / 255)) + bg));
    }
    BLEND_TABLES.set(background, table);
  }
  return table;
}

/**
 * @param {Uint8Array} data
 * @param {number} j
 * @param {Float32Array} r
 * @param {Float32Array} g
 * @param {Float32Array} b
 * @param {number} start
 * @param {number} end
 */
function linearRow3(data, j, r, g, b, start, end) {
  const lut = SRGB_TO_LINEAR;
  for (let i = start; i < end; i++, j += 3) {
    r[i] = lut[data[j]];
    g[i] = lut[data[j + 1]];
    b[i] = lut[data[j + 2]];
  }
}

/**
 * @param {Uint8Array} data
 * @param {number} j
 * @param {Float32Array} r
 * @param {Float32Array} g
 * @param {Float32Array} b
 * @param {number} start
 * @param {number} end
 * @param {Float32Array} blended blendTable(background)
 */
function linearRow4(data, j, r, g, b, start, end, blended) {
  const lut = SRGB_TO_LINEAR;
  for (let i = start; i < end; i++, j += 4) {
    const alpha = data[j + 3];
    if (alpha === 255) {
      r[i] = lut[data[j]];
      g[i] = lut[data[j + 1]];
      b[i] = lut[data[j + 2]];
    } else {
      const row = alpha * 256;
      r[i] = blended[row + data[j]];
      g[i] = blended[row + data[j + 1]];
      b[i] = blended[row + data[j + 2]];
    }
  }
}

/**
 * 2x2 box average into DST, repeating the last row and column of an odd size;
 * float32 sums in the reference's order.
 * @param {Float32Array} src
 * @param {Float32Array} dst
 * @param {number} w
 * @param {number} h
 */
function downscale(src, dst, w, h) {
  const ow = Math.ceil(w / 2);
  const oh = Math.ceil(h / 2);
  for (let oy = 0; oy < oh; oy++) downscaleRow(src, dst, 2 * oy * w, Math.min(2 * oy + 1, h - 1) * w, oy * ow, ow, w);
}

/**
 * @param {Float32Array} src
 * @param {Float32Array} dst
 * @param {number} row0
 * @param {number} row1
 * @param {number} outOff
 * @param {number} ow
 * @param {number} w
 */
function downscaleRow(src, dst, row0, row1, outOff, ow, w) {
  for (let ox = 0; ox < ow; ox++) {
    const x0 = 2 * ox;
    const x1 = x0 + 1 < w ? x0 + 1 : w - 1;
    dst[outOff + ox] = f32(f32(f32(src[row0 + x0] + src[row0 + x1]) + src[row1 + x0]) + src[row1 + x1]) * 0.25;
  }
}

/**
 * Linear sRGB planes -> XYB made positive, in place.
 * @param {Float32Array[]} planes r, g, b in; X, Y, B out
 * @param {number} w
 * @param {number} h
 * @param {'2.1' | '2.0'} version
 */
function toPositiveXyb([r, g, b], w, h, version) {
  for (let y = 0; y < h; y++) {
    if (version === '2.0') xybRow20(r, g, b, y * w, y * w + w);
    else xybRow21(r, g, b, y * w, y * w + w);
  }
}

/**
 * The opsin absorbance mix of linear RGB, cube root, minus the bias's cube
 * root, for channel k (0, 1, 2) of the matrix; float32 with the reference's
 * fused multiply-adds.
 * @param {number} rv
 * @param {number} gv
 * @param {number} bv
 * @param {number} c0
 * @param {number} c1
 * @param {number} c2
 */
function opsin(rv, gv, bv, c0, c1, c2) {
  const mixed = f32(c0 * rv + f32(c1 * gv + f32(c2 * bv + BIAS)));
  return f32(f32(Math.cbrt(mixed < 0 ? 0 : mixed)) + NEG_BIAS_CBRT);
}

/**
 * SSIMULACRA 2.1: X*14 + 0.42, Y + 0.01, (B - Y) + 0.55.
 * @param {Float32Array} r
 * @param {Float32Array} g
 * @param {Float32Array} b
 * @param {number} start
 * @param {number} end
 */
function xybRow21(r, g, b, start, end) {
  for (let i = start; i < end; i++) {
    const rv = r[i];
    const gv = g[i];
    const bv = b[i];
    const m0 = opsin(rv, gv, bv, M00, M01, M02);
    const m1 = opsin(rv, gv, bv, M10, M11, M12);
    const m2 = opsin(rv, gv, bv, M20, M21, M22);
    const x = f32(0.5 * f32(m0 - m1));
    const y = f32(0.5 * f32(m0 + m1));
    r[i] = x * 14 + POS21_X;
    g[i] = y + POS21_Y;
    b[i] = f32(m2 - y) + POS21_B;
  }
}

/**
 * SSIMULACRA 2.0: X + 0.5, Y + 0.05, B + (1.1 - Y).
 * @param {Float32Array} r
 * @param {Float32Array} g
 * @param {Float32Array} b
 * @param {number} start
 * @param {number} end
 */
function xybRow20(r, g, b, start, end) {
  for (let i = start; i < end; i++) {
    const rv = r[i];
    const gv = g[i];
    const bv = b[i];
    const m0 = opsin(rv, gv, bv, M00, M01, M02);
    const m1 = opsin(rv, gv, bv, M10, M11, M12);
    const m2 = opsin(rv, gv, bv, M20, M21, M22);
    const x = f32(0.5 * f32(m0 - m1));
    const y = f32(0.5 * f32(m0 + m1));
    r[i] = x + POS20_X;
    g[i] = y + POS20_Y;
    b[i] = m2 + f32(POS20_B - y);
  }
}

/**
 * The weighted sum of the features, in the reference's order: channel, then
 * scale, then norm, then map, with one running weight index.
 * @param {Float64Array} f
 * @param {number} scales
 * @param {number[]} weights
 */
function weightedSum(f, scales, weights) {
  let sum = 0;
  let i = 0;
  for (let c = 0; c < 3; c++) {
    for (let s = 0; s < scales; s++) {
      const base = s * 18;
      for (let norm = 0; norm < 2; norm++) {
        sum += weights[i++] * Math.abs(f[base + c * 2 + norm]);
        sum += weights[i++] * Math.abs(f[base + 6 + c * 4 + norm]);
        sum += weights[i++] * Math.abs(f[base + 6 + c * 4 + norm + 2]);
      }
    }
  }
  return sum;
}

/**
 * SSIMULACRA 2.1's score from the features of SCALES scales (setFeatures).
 * @param {Float64Array} features
 * @param {number} scales
 */
export function score21(features, scales) {
  let s = weightedSum(features, scales, WEIGHTS_21) * 0.9562382616834844;
  s = 2.326765642916932 * s - 0.020884521182843837 * s * s + 6.248496625763138e-5 * s * s * s;
  return s > 0 ? 100 - 10 * power(s, 0.6276336467831387) : 100;
}

/**
 * @param {Float64Array} features
 * @param {number} scales
 */
function score20(features, scales) {
  const s = weightedSum(features, scales, WEIGHTS_20) * 17.829717797575952 - 1.634169143917183;
  return s > 0 ? 100 - 10 * power(s, 0.5453261009510213) : 100;
}

/**
 * X to the power Y (X > 0) as exp(Y ln X): V8's Math.exp and Math.log are
 * fdlibm's on every node, where its Math.pow changed between node 20 and 26
 * (in the last bit), and a score must not depend on the node it ran on.
 * @param {number} x
 * @param {number} y
 */
function power(x, y) {
  return Math.exp(y * Math.log(x));
}

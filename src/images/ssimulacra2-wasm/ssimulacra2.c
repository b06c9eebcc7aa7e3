/*
 * SSIMULACRA 2.1 in C for WebAssembly with SIMD (simd128): the same
 * computation as src/images/ssimulacra2.js, operation for operation, so that
 * its scores are the JavaScript's to the last bit; src/images/ssimulacra2-fast.js
 * loads it, and scripts/build-ssimulacra2-wasm.js builds it
 * (clang --target=wasm32 -msimd128 -ffp-contract=off, no libc).
 *
 * Why hand-written: no maintained JavaScript or wasm package computes
 * SSIMULACRA 2.1 (the top of src/images/ssimulacra2.js), and only a port of
 * that file's exact float32 steps gives its exact scores.
 *
 * Licences: part of pagediet (MIT). The algorithm and its numeric constants
 * (opsin absorbance matrix and bias, the recursive Gaussian, the final
 * transform) are from libjxl's tools/ssimulacra2.cc (BSD-3-Clause, copyright
 * the JPEG XL Project Authors) and its Rust port rust-av/ssimulacra2
 * (BSD-2-Clause), as in src/images/ssimulacra2.js. cbrt_fdlibm below is V8's
 * cube root (src/base/ieee754.cc), which is fdlibm's s_cbrt.c as optimised
 * by Bruce D. Evans for FreeBSD, under this notice:
 *   Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
 *   Developed at SunPro, a Sun Microsystems, Inc. business.
 *   Permission to use, copy, modify, and distribute this
 *   software is freely granted, provided that this notice
 *   is preserved.
 *
 * Exactness: a float32 +, -, *, / here gives what Math.fround gives of the
 * float64 operation on float32 inputs in the JavaScript (a double rounding
 * through float64 is innocuous for these operations). Where the JavaScript
 * rounds a*b+c once from float64 (its fused multiply-add), this does the same
 * in float64 (f64x2 in SIMD) and rounds the result to float32. Float64 sums
 * run in the JavaScript's order: per row from 0, column after column, then
 * added to the channel's sum, row after row (two rows at a time, one per
 * lane). XYB's f32(Math.cbrt(x)): Newton steps without divisions where their
 * float32 rounding is certain, else cbrt_fdlibm, V8's Math.cbrt ported line
 * for line (cbrt_f32x4 says how; the test checks it against Math.cbrt for
 * every float32 XYB can meet). What stays in JavaScript
 * (ssimulacra2-fast.js): the sRGB and alpha-blending tables and the final
 * score (powers, as exp and log), the checks and the features; the recursive
 * Gaussian's float32 coefficients are the values ssimulacra2.js derives for
 * sigma 1.5, written out below.
 *
 * Vectorised: the horizontal pass of the recursive Gaussian is a recurrence
 * along each row, so four rows run at once, one per lane (their samples
 * transposed 4x4 into column order and back); the vertical pass runs four
 * columns at once (four rows at a time, the state in registers), and so do
 * the error maps, the downscaling and XYB.
 *
 * Memory: the JavaScript sizes nothing; setup() allocates everything once
 * for the image's size (a bump allocator growing the memory; there is no
 * free), and the instance is dropped with its scorer.
 */
#include <stdint.h>
#include <wasm_simd128.h>

#define EXPORT(name) __attribute__((export_name(name)))
#define INLINE static inline __attribute__((always_inline))

enum { NUM_SCALES = 6, MIN_SIZE = 8, RADIUS = 5, RING_ROWS = 16 };

/* Opsin absorbance matrix and bias (libjxl), float32 as in ssimulacra2.js. */
static const float M00 = 0x1.333334p-2f, M01 = 0x1.3e76c8p-1f, M02 = 0x1.3f7ceep-4f;
static const float M10 = 0x1.d70a3ep-3f, M11 = 0x1.624dd2p-1f, M12 = 0x1.3f7ceep-4f;
static const float M20 = 0x1.f28798p-3f, M21 = 0x1.a35d1ep-3f, M22 = 0x1.1a86d2p-1f;
static const float BIAS = 0x1.f12a6cp-9f;
/* SSIMULACRA 2.1's "make positive" offsets. */
static const float POS_X = 0x1.ae147ap-2f, POS_Y = 0x1.47ae14p-7f, POS_B = 0x1.19999ap-1f;
static const float C2 = 0x1.d7dbf4p-11f;
/* recursiveGaussian(1.5) of ssimulacra2.js: n2 and d1 for k = 1, 3, 5 (radius 5). */
static const float N2_1 = 0x1.c4fa84p-5f, N2_3 = -0x1.e1fd7ap-5f, N2_5 = 0x1.a8894ap-7f;
static const float D1_1 = -0x1.e6f0e2p0f, D1_3 = -0x1.2cf230p0f, D1_5 = -0x1.1a6264p-53f;

INLINE uint64_t bits_of(double x) { return __builtin_bit_cast(uint64_t, x); }
INLINE double double_of(uint64_t bits) { return __builtin_bit_cast(double, bits); }

/* V8's Math.cbrt (src/base/ieee754.cc), line for line: the notice at the top. */
static double cbrt_fdlibm(double x) {
  const uint32_t B1 = 715094163, B2 = 696219795;
  const double P0 = 1.87595182427177009643, P1 = -1.88497979543377169875, P2 = 1.621429720105354466140,
               P3 = -0.758397934778766047437, P4 = 0.145996192886612446982;
  uint64_t bits = bits_of(x);
  int32_t hx = (int32_t)(bits >> 32);
  uint32_t low = (uint32_t)bits;
  uint32_t sign = (uint32_t)hx & 0x80000000u;
  hx ^= (int32_t)sign;
  if (hx >= 0x7FF00000) return x + x;
  double t;
  if (hx < 0x00100000) {
    if (((uint32_t)hx | low) == 0) return x;
    t = 0x1p54 * x;
    uint32_t high = (uint32_t)(bits_of(t) >> 32);
    t = double_of((uint64_t)(sign | ((high & 0x7FFFFFFFu) / 3 + B2)) << 32);
  } else {
    t = double_of((uint64_t)(sign | ((uint32_t)(hx / 3) + B1)) << 32);
  }
  double r = (t * t) * (t / x);
  t = t * ((P0 + r * (P1 + r * P2)) + ((r * r) * r) * (P3 + r * P4));
  t = double_of((bits_of(t) + 0x80000000u) & 0xFFFFFFFFC0000000ull);
  double s = t * t;
  r = x / s;
  double w = t + t;
  r = (r - t) / (w + r);
  return t + t * r;
}

/* ---- Memory: one bump allocation per scorer, in setup. ---- */

extern unsigned char __heap_base;
static uint64_t heap_next;

/* BYTES at a 16-byte boundary, with 16 bytes to spare after them (vector loads past a row's end), or 0. */
static void *allocate(uint64_t bytes) {
  if (!heap_next) heap_next = (uint64_t)(uintptr_t)&__heap_base;
  uint64_t start = (heap_next + 15) & ~(uint64_t)15;
  uint64_t end = start + bytes + 16;
  uint64_t have = (uint64_t)__builtin_wasm_memory_size(0) << 16;
  if (end > (1ull << 32)) return 0;
  if (end > have && __builtin_wasm_memory_grow(0, (end - have + 65535) >> 16) == (__SIZE_TYPE__)-1) return 0;
  heap_next = end;
  return (void *)(uintptr_t)start;
}

/* One scale of the reference: its XYB planes, mu1 = blur(x1), variance = blur(x1*x1) - mu1^2. */
typedef struct {
  uint32_t width, height;
  float *x[3], *mu[3], *variance[3];
} Level;

static Level levels[2][NUM_SCALES];
static uint32_t num_levels, width, height, padded_width;
static uint8_t *pixels;
static float srgb[256];
static float *blend;
/* The distorted image's planes at full size (a) and half size (b), used in turn. */
static float *work_a[3], *work_b[3];
/* Four rows of each blurred plane, transposed: [x * 4 + row]; and their horizontal pass. */
static float *sources[3], *filtered[3];
/* The horizontal pass's last RING_ROWS rows, per plane. */
static float *ring[3];
/* The vertical pass's state per plane, two halves taking turns: per 4 columns, f64x2 k=1 low and high, k=3, k=5. */
static v128_t *vertical_state[3][2];
/* The vertical pass's output rows, up to four (rows n to n + 3), per plane. */
static float *rows[4][3];
/* Per scale and channel: the sums of the six terms. */
static double sums[NUM_SCALES * 3 * 6];

/* ---- Vector helpers ---- */

/*
 * V, hidden from clang's optimiser: clang rewrites a demotion to float32
 * followed by a promotion back as lane-by-lane scalar code, several times
 * slower; between the two, this empty asm keeps the vector instructions.
 */
INLINE v128_t opaque(v128_t v) {
  __asm__("" : "+r"(v));
  return v;
}
INLINE v128_t promote_low(v128_t v) { return wasm_f64x2_promote_low_f32x4(v); }
/* Float64 lanes rounded to float32, still float64. */
INLINE v128_t round_to_f32(v128_t v) { return promote_low(opaque(wasm_f32x4_demote_f64x2_zero(v))); }
INLINE v128_t promote_high(v128_t v) { return wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(v, v, 2, 3, 2, 3)); }
/* Two f64x2 rounded to float32, as one f32x4. */
INLINE v128_t demote_pair(v128_t low, v128_t high) {
  return wasm_i32x4_shuffle(wasm_f32x4_demote_f64x2_zero(low), wasm_f32x4_demote_f64x2_zero(high), 0, 1, 4, 5);
}
/* f32(a * b + c) of ssimulacra2.js: product and sum in float64, one rounding to float32; B is float64. */
INLINE v128_t mul_add_rounded(v128_t a, v128_t b, v128_t c) {
  v128_t low = wasm_f64x2_add(wasm_f64x2_mul(promote_low(a), b), promote_low(c));
  v128_t high = wasm_f64x2_add(wasm_f64x2_mul(promote_high(a), b), promote_high(c));
  return demote_pair(low, high);
}
INLINE void transpose4(v128_t *a, v128_t *b, v128_t *c, v128_t *d) {
  v128_t ab01 = wasm_i32x4_shuffle(*a, *b, 0, 4, 1, 5);
  v128_t cd01 = wasm_i32x4_shuffle(*c, *d, 0, 4, 1, 5);
  v128_t ab23 = wasm_i32x4_shuffle(*a, *b, 2, 6, 3, 7);
  v128_t cd23 = wasm_i32x4_shuffle(*c, *d, 2, 6, 3, 7);
  *a = wasm_i64x2_shuffle(ab01, cd01, 0, 2);
  *b = wasm_i64x2_shuffle(ab01, cd01, 1, 3);
  *c = wasm_i64x2_shuffle(ab23, cd23, 0, 2);
  *d = wasm_i64x2_shuffle(ab23, cd23, 1, 3);
}

/* ---- 8-bit sRGB to linear planes, downscaling, XYB ---- */

static void to_linear(uint32_t channels, float *const out[3]) {
  uint32_t n = width * height;
  float *r = out[0], *g = out[1], *b = out[2];
  const uint8_t *p = pixels;
  if (channels == 3) {
    for (uint32_t i = 0; i < n; i++, p += 3) {
      r[i] = srgb[p[0]];
      g[i] = srgb[p[1]];
      b[i] = srgb[p[2]];
    }
  } else {
    for (uint32_t i = 0; i < n; i++, p += 4) {
      uint32_t alpha = p[3];
      if (alpha == 255) {
        r[i] = srgb[p[0]];
        g[i] = srgb[p[1]];
        b[i] = srgb[p[2]];
      } else {
        const float *row = blend + alpha * 256;
        r[i] = row[p[0]];
        g[i] = row[p[1]];
        b[i] = row[p[2]];
      }
    }
  }
}

/* 2x2 box average, the last row and column repeated on odd sizes; float32 sums in ssimulacra2.js's order. */
static void downscale(const float *src, float *dst, uint32_t w, uint32_t h) {
  uint32_t ow = (w + 1) / 2, oh = (h + 1) / 2;
  for (uint32_t oy = 0; oy < oh; oy++) {
    const float *row0 = src + 2 * oy * w;
    const float *row1 = src + (2 * oy + 1 < h ? 2 * oy + 1 : h - 1) * w;
    float *out = dst + oy * ow;
    uint32_t ox = 0;
    for (; ox + 4 <= w / 2; ox += 4) {
      v128_t a0 = wasm_v128_load(row0 + 2 * ox), a1 = wasm_v128_load(row0 + 2 * ox + 4);
      v128_t b0 = wasm_v128_load(row1 + 2 * ox), b1 = wasm_v128_load(row1 + 2 * ox + 4);
      v128_t even0 = wasm_i32x4_shuffle(a0, a1, 0, 2, 4, 6), odd0 = wasm_i32x4_shuffle(a0, a1, 1, 3, 5, 7);
      v128_t even1 = wasm_i32x4_shuffle(b0, b1, 0, 2, 4, 6), odd1 = wasm_i32x4_shuffle(b0, b1, 1, 3, 5, 7);
      v128_t sum = wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_add(even0, odd0), even1), odd1);
      wasm_v128_store(out + ox, wasm_f32x4_mul(sum, wasm_f32x4_splat(0.25f)));
    }
    for (; ox < ow; ox++) {
      uint32_t x0 = 2 * ox, x1 = x0 + 1 < w ? x0 + 1 : w - 1;
      out[ox] = (((row0[x0] + row0[x1]) + row1[x0]) + row1[x1]) * 0.25f;
    }
  }
}

static const float NEG_BIAS_CBRT = -0x1.3f64eap-3f; /* -f32(Math.cbrt(BIAS)) */

/*
 * f32(Math.cbrt(x)) for four float32 x, without divisions (the exact port
 * needs three per value, which would be most of XYB's time): in float32, the
 * reciprocal cube root z from the bits (K - bits / 3, within 3.5%) and three
 * Newton steps z * (4 - x z^3) / 3; then t = x z^2 and one Newton step for
 * the cube root in float64, t - (t^3 - x) z^2 / 3, good to about 2^-43. Its
 * float32 rounding is Math.cbrt's wherever it lies farther from a rounding
 * midpoint than the errors of both (CBRT_MARGIN float64 units in the last
 * place, about 2^-36 relative). Lanes nearer a midpoint (about 1 value in
 * 8000) or outside [2^-100, 2^100] are set in *RECHECK, for the exact port
 * (cbrt_fdlibm). Checked against Math.cbrt for every float32 in [2^-9, 2) by
 * test/ssimulacra2-wasm.test.js (XYB's inputs lie in [0.0038, 1.004]), and
 * for all 2^32 when PAGEDIET_SSIMULACRA2_ALL_CUBE_ROOTS is set. On [2^-9, 2)
 * no cube root lies within 2^-49 (relative) of a float32 midpoint (measured
 * with long double), so there f32(Math.cbrt(x)) is the correctly rounded
 * cube root, whatever the last bits of an engine's Math.cbrt.
 */
#define CBRT_MARGIN 0x10000
INLINE v128_t cbrt_f32x4(v128_t x, v128_t *recheck) {
  v128_t in_range = wasm_v128_and(wasm_f32x4_ge(x, wasm_f32x4_splat(0x1p-100f)), wasm_f32x4_le(x, wasm_f32x4_splat(0x1p100f)));
  v128_t third_bits = wasm_i32x4_trunc_sat_f32x4(wasm_f32x4_mul(wasm_f32x4_convert_i32x4(x), wasm_f32x4_splat(1.0f / 3)));
  v128_t z = wasm_i32x4_sub(wasm_i32x4_splat(0x54a232b0), third_bits);
  v128_t x_third = wasm_f32x4_mul(x, wasm_f32x4_splat(1.0f / 3));
  const v128_t four_thirds = wasm_f32x4_splat(4.0f / 3);
  for (int step = 0; step < 3; step++) z = wasm_f32x4_mul(z, wasm_f32x4_sub(four_thirds, wasm_f32x4_mul(x_third, wasm_f32x4_mul(wasm_f32x4_mul(z, z), z))));
  v128_t zz = wasm_f32x4_mul(z, z);
  v128_t t = wasm_f32x4_mul(x, zz);
  v128_t slope = wasm_f32x4_mul(zz, wasm_f32x4_splat(1.0f / 3));
  v128_t t_low = promote_low(t), t_high = promote_high(t);
  v128_t y_low = wasm_f64x2_sub(t_low, wasm_f64x2_mul(wasm_f64x2_sub(wasm_f64x2_mul(wasm_f64x2_mul(t_low, t_low), t_low), promote_low(x)), promote_low(slope)));
  v128_t y_high = wasm_f64x2_sub(t_high, wasm_f64x2_mul(wasm_f64x2_sub(wasm_f64x2_mul(wasm_f64x2_mul(t_high, t_high), t_high), promote_high(x)), promote_high(slope)));
  /* The distance to float32's rounding midpoint in float64 units in the last place: the low 29 bits against 2^28. */
  v128_t low_words = wasm_v128_and(wasm_i32x4_shuffle(y_low, y_high, 0, 2, 4, 6), wasm_i32x4_splat(0x1FFFFFFF));
  v128_t distance = wasm_i32x4_abs(wasm_i32x4_sub(low_words, wasm_i32x4_splat(0x10000000)));
  *recheck = wasm_v128_or(*recheck, wasm_v128_andnot(wasm_i32x4_splat(-1), wasm_v128_and(in_range, wasm_i32x4_gt(distance, wasm_i32x4_splat(CBRT_MARGIN)))));
  return demote_pair(y_low, y_high);
}

/*
 * opsin() of ssimulacra2.js for two pixels (float64 lanes holding float32
 * values): f32(c0*r + f32(c1*g + f32(c2*b + BIAS))); float32 in lanes 0 and 1.
 */
INLINE v128_t opsin_mix_pair(v128_t r, v128_t g, v128_t b, float c0, float c1, float c2) {
  v128_t mixed = round_to_f32(wasm_f64x2_add(wasm_f64x2_mul(wasm_f64x2_splat(c2), b), wasm_f64x2_splat(BIAS)));
  mixed = round_to_f32(wasm_f64x2_add(wasm_f64x2_mul(wasm_f64x2_splat(c1), g), mixed));
  return wasm_f32x4_demote_f64x2_zero(wasm_f64x2_add(wasm_f64x2_mul(wasm_f64x2_splat(c0), r), mixed));
}

/* opsin() of ssimulacra2.js for four pixels: the cube root of the mix clamped at 0, plus NEG_BIAS_CBRT. */
INLINE v128_t opsin4(v128_t r_low, v128_t g_low, v128_t b_low, v128_t r_high, v128_t g_high, v128_t b_high, float c0, float c1, float c2, v128_t *recheck) {
  v128_t mixed = wasm_i32x4_shuffle(opsin_mix_pair(r_low, g_low, b_low, c0, c1, c2), opsin_mix_pair(r_high, g_high, b_high, c0, c1, c2), 0, 1, 4, 5);
  /* mixed < 0 ? 0 : mixed */
  mixed = wasm_f32x4_pmax(mixed, wasm_f32x4_splat(0));
  return wasm_f32x4_add(cbrt_f32x4(mixed, recheck), wasm_f32x4_splat(NEG_BIAS_CBRT));
}

INLINE float opsin(float r, float g, float b, float c0, float c1, float c2) {
  float mixed = (float)((double)c0 * r + (double)(float)((double)c1 * g + (double)(float)((double)c2 * b + (double)BIAS)));
  return (float)cbrt_fdlibm(mixed < 0 ? 0 : mixed) + NEG_BIAS_CBRT;
}

/* xybRow21 of ssimulacra2.js for one pixel, with the exact cube root. */
__attribute__((noinline)) static void xyb_pixel(float *r, float *g, float *b, float rv, float gv, float bv) {
  float m0 = opsin(rv, gv, bv, M00, M01, M02);
  float m1 = opsin(rv, gv, bv, M10, M11, M12);
  float m2 = opsin(rv, gv, bv, M20, M21, M22);
  float x = 0.5f * (m0 - m1);
  float y = 0.5f * (m0 + m1);
  *r = (float)((double)x * 14 + (double)POS_X);
  *g = y + POS_Y;
  *b = (m2 - y) + POS_B;
}

/* Groups of four pixels whose cube roots need the exact port: where, and their linear RGB. */
enum { RECHECK_BATCH = 1024 };
static uint32_t recheck_at[RECHECK_BATCH];
static v128_t recheck_rgb[RECHECK_BATCH][3];

/*
 * Linear sRGB -> XYB made positive (2.1: X*14+0.42, Y+0.01, (B-Y)+0.55), in
 * place: four pixels at a time with cbrt_f32x4, in batches after which the
 * groups it could not decide are done again with the exact cube root (out of
 * the loop: a call in it would make V8 keep the loop's values on the stack).
 */
static void to_positive_xyb(float *const planes[3], uint32_t n) {
  float *r = planes[0], *g = planes[1], *b = planes[2];
  const v128_t half = wasm_f32x4_splat(0.5f), fourteen = wasm_f64x2_splat(14), pos_x = wasm_f64x2_splat(POS_X);
  uint32_t i = 0;
  while (i + 4 <= n) {
    uint32_t rechecks = 0;
    for (uint32_t group = 0; group < RECHECK_BATCH && i + 4 <= n; group++, i += 4) {
      v128_t rv = wasm_v128_load(r + i), gv = wasm_v128_load(g + i), bv = wasm_v128_load(b + i);
      v128_t r_low = promote_low(rv), g_low = promote_low(gv), b_low = promote_low(bv);
      v128_t r_high = promote_high(rv), g_high = promote_high(gv), b_high = promote_high(bv);
      v128_t recheck = wasm_i32x4_splat(0);
      v128_t m0 = opsin4(r_low, g_low, b_low, r_high, g_high, b_high, M00, M01, M02, &recheck);
      v128_t m1 = opsin4(r_low, g_low, b_low, r_high, g_high, b_high, M10, M11, M12, &recheck);
      v128_t m2 = opsin4(r_low, g_low, b_low, r_high, g_high, b_high, M20, M21, M22, &recheck);
      if (wasm_v128_any_true(recheck)) {
        recheck_at[rechecks] = i;
        recheck_rgb[rechecks][0] = rv;
        recheck_rgb[rechecks][1] = gv;
        recheck_rgb[rechecks][2] = bv;
        rechecks++;
      }
      v128_t x = wasm_f32x4_mul(half, wasm_f32x4_sub(m0, m1));
      v128_t y = wasm_f32x4_mul(half, wasm_f32x4_add(m0, m1));
      /* f32(x * 14 + POS_X): float64 product and sum, one rounding */
      wasm_v128_store(r + i, demote_pair(wasm_f64x2_add(wasm_f64x2_mul(promote_low(x), fourteen), pos_x),
                                         wasm_f64x2_add(wasm_f64x2_mul(promote_high(x), fourteen), pos_x)));
      wasm_v128_store(g + i, wasm_f32x4_add(y, wasm_f32x4_splat(POS_Y)));
      wasm_v128_store(b + i, wasm_f32x4_add(wasm_f32x4_sub(m2, y), wasm_f32x4_splat(POS_B)));
    }
    for (uint32_t k = 0; k < rechecks; k++) {
      float rgb[3][4];
      for (uint32_t c = 0; c < 3; c++) wasm_v128_store(rgb[c], recheck_rgb[k][c]);
      for (uint32_t lane = 0; lane < 4; lane++) {
        uint32_t at = recheck_at[k] + lane;
        xyb_pixel(r + at, g + at, b + at, rgb[0][lane], rgb[1][lane], rgb[2][lane]);
      }
    }
  }
  for (; i < n; i++) xyb_pixel(r + i, g + i, b + i, r[i], g[i], b[i]);
}

/* ---- The recursive Gaussian ---- */

/* The horizontal recurrences of four rows, one per lane. */
typedef struct {
  v128_t p1, p3, p5, q1, q3, q5;
} Horizontal;

/* One step: f32(MP_k * p + f32(f32(sum * N2_k) - q)) for k = 1, 3, 5, and their sum f32(o1 + o3) + o5. */
INLINE v128_t horizontal_step(Horizontal *s, v128_t sum) {
  const v128_t mp1 = wasm_f64x2_splat(-(double)D1_1), mp3 = wasm_f64x2_splat(-(double)D1_3), mp5 = wasm_f64x2_splat(-(double)D1_5);
  v128_t o1 = mul_add_rounded(s->p1, mp1, wasm_f32x4_sub(wasm_f32x4_mul(sum, wasm_f32x4_splat(N2_1)), s->q1));
  v128_t o3 = mul_add_rounded(s->p3, mp3, wasm_f32x4_sub(wasm_f32x4_mul(sum, wasm_f32x4_splat(N2_3)), s->q3));
  v128_t o5 = mul_add_rounded(s->p5, mp5, wasm_f32x4_sub(wasm_f32x4_mul(sum, wasm_f32x4_splat(N2_5)), s->q5));
  s->q1 = s->p1;
  s->q3 = s->p3;
  s->q5 = s->p5;
  s->p1 = o1;
  s->p3 = o3;
  s->p5 = o5;
  return wasm_f32x4_add(wasm_f32x4_add(o1, o3), o5);
}

/* The input at column N: src[left] + src[right] where inside the row, as ssimulacra2.js's horizontal pass. */
INLINE v128_t horizontal_input(const float *src, int n, int w) {
  int left = n - RADIUS - 1, right = n + RADIUS - 1;
  if (left >= 0) return right < w ? wasm_f32x4_add(wasm_v128_load(src + 4 * left), wasm_v128_load(src + 4 * right)) : wasm_v128_load(src + 4 * left);
  return right < w ? wasm_v128_load(src + 4 * right) : wasm_f32x4_splat(0);
}

/* The horizontal pass of four transposed rows SRC into DST (same layout). */
static void horizontal(const float *src, float *dst, int w) {
  Horizontal s = {0};
  int n = -RADIUS + 1;
  int middle_end = w - RADIUS + 1; /* columns n < middle_end have right = n + RADIUS - 1 < w */
  for (; n < 0; n++) horizontal_step(&s, horizontal_input(src, n, w));
  for (; n < RADIUS + 1 && n < w; n++) wasm_v128_store(dst + 4 * n, horizontal_step(&s, horizontal_input(src, n, w)));
  for (; n < middle_end; n++) {
    v128_t sum = wasm_f32x4_add(wasm_v128_load(src + 4 * (n - RADIUS - 1)), wasm_v128_load(src + 4 * (n + RADIUS - 1)));
    wasm_v128_store(dst + 4 * n, horizontal_step(&s, sum));
  }
  for (; n < w; n++) wasm_v128_store(dst + 4 * n, horizontal_step(&s, horizontal_input(src, n, w)));
}


/*
 * Rows Y0..Y0+3 of the planes to blur (the last row repeated past the
 * bottom), transposed into sources: X1 and X1*X1 (the reference's side,
 * X2 null), or X2, X2*X2 and X1*X2 (the distorted image's).
 */
static void transpose_sources(const float *x1, const float *x2, uint32_t w, uint32_t h, uint32_t y0) {
  const float *a[4], *b[4];
  for (uint32_t i = 0; i < 4; i++) {
    uint32_t y = y0 + i < h ? y0 + i : h - 1;
    a[i] = x1 + y * w;
    b[i] = x2 ? x2 + y * w : 0;
  }
  for (uint32_t x = 0; x < w; x += 4) {
    v128_t a0 = wasm_v128_load(a[0] + x), a1 = wasm_v128_load(a[1] + x), a2 = wasm_v128_load(a[2] + x), a3 = wasm_v128_load(a[3] + x);
    transpose4(&a0, &a1, &a2, &a3);
    float *s0 = sources[0] + 4 * x, *s1 = sources[1] + 4 * x;
    if (!x2) {
      wasm_v128_store(s0, a0), wasm_v128_store(s0 + 4, a1), wasm_v128_store(s0 + 8, a2), wasm_v128_store(s0 + 12, a3);
      wasm_v128_store(s1, wasm_f32x4_mul(a0, a0)), wasm_v128_store(s1 + 4, wasm_f32x4_mul(a1, a1));
      wasm_v128_store(s1 + 8, wasm_f32x4_mul(a2, a2)), wasm_v128_store(s1 + 12, wasm_f32x4_mul(a3, a3));
    } else {
      v128_t b0 = wasm_v128_load(b[0] + x), b1 = wasm_v128_load(b[1] + x), b2 = wasm_v128_load(b[2] + x), b3 = wasm_v128_load(b[3] + x);
      transpose4(&b0, &b1, &b2, &b3);
      float *s2 = sources[2] + 4 * x;
      wasm_v128_store(s0, b0), wasm_v128_store(s0 + 4, b1), wasm_v128_store(s0 + 8, b2), wasm_v128_store(s0 + 12, b3);
      wasm_v128_store(s1, wasm_f32x4_mul(b0, b0)), wasm_v128_store(s1 + 4, wasm_f32x4_mul(b1, b1));
      wasm_v128_store(s1 + 8, wasm_f32x4_mul(b2, b2)), wasm_v128_store(s1 + 12, wasm_f32x4_mul(b3, b3));
      wasm_v128_store(s2, wasm_f32x4_mul(a0, b0)), wasm_v128_store(s2 + 4, wasm_f32x4_mul(a1, b1));
      wasm_v128_store(s2 + 8, wasm_f32x4_mul(a2, b2)), wasm_v128_store(s2 + 12, wasm_f32x4_mul(a3, b3));
    }
  }
}

/* The horizontal pass of rows Y0..Y0+3 of PLANES planes, into the ring (rows inside the image only). */
static void horizontal_rows(uint32_t planes, uint32_t w, uint32_t h, uint32_t y0) {
  for (uint32_t p = 0; p < planes; p++) {
    horizontal(sources[p], filtered[p], (int)w);
    for (uint32_t x = 0; x < w; x += 4) {
      const float *f = filtered[p] + 4 * x;
      v128_t r0 = wasm_v128_load(f), r1 = wasm_v128_load(f + 4), r2 = wasm_v128_load(f + 8), r3 = wasm_v128_load(f + 12);
      transpose4(&r0, &r1, &r2, &r3);
      float *out = ring[p] + x;
      wasm_v128_store(out + ((y0 + 0) & (RING_ROWS - 1)) * padded_width, r0);
      if (y0 + 1 < h) wasm_v128_store(out + ((y0 + 1) & (RING_ROWS - 1)) * padded_width, r1);
      if (y0 + 2 < h) wasm_v128_store(out + ((y0 + 2) & (RING_ROWS - 1)) * padded_width, r2);
      if (y0 + 3 < h) wasm_v128_store(out + ((y0 + 3) & (RING_ROWS - 1)) * padded_width, r3);
    }
  }
}

enum { NEITHER, TOP, BOTTOM, BOTH };

/*
 * One step of the vertical recurrences of four columns: from SUM and the two
 * last outputs PREV and PREV2 (per k, float64 pairs of float32 values),
 * f32(sum * N2_k - f32(prev * D1_k + prev2)) written over PREV2; returns
 * f32(o1 + o3) + o5.
 */
INLINE v128_t vertical_step(v128_t sum, const v128_t *prev, v128_t *prev2) {
  const v128_t d1 = wasm_f64x2_splat(D1_1), d3 = wasm_f64x2_splat(D1_3), d5 = wasm_f64x2_splat(D1_5);
  const v128_t n1 = wasm_f64x2_splat(N2_1), n3 = wasm_f64x2_splat(N2_3), n5 = wasm_f64x2_splat(N2_5);
  v128_t low = promote_low(sum), high = promote_high(sum);
#define VERTICAL_K(i, d, n, o)                                                                                   \
  v128_t o;                                                                                                     \
  {                                                                                                             \
    v128_t inner_low = round_to_f32(wasm_f64x2_add(wasm_f64x2_mul(prev[i], d), prev2[i]));                      \
    v128_t inner_high = round_to_f32(wasm_f64x2_add(wasm_f64x2_mul(prev[i + 1], d), prev2[i + 1]));              \
    v128_t out_low = opaque(wasm_f32x4_demote_f64x2_zero(wasm_f64x2_sub(wasm_f64x2_mul(low, n), inner_low)));    \
    v128_t out_high = opaque(wasm_f32x4_demote_f64x2_zero(wasm_f64x2_sub(wasm_f64x2_mul(high, n), inner_high))); \
    prev2[i] = promote_low(out_low);                                                                            \
    prev2[i + 1] = promote_low(out_high);                                                                       \
    o = wasm_i32x4_shuffle(out_low, out_high, 0, 1, 4, 5);                                                      \
  }
  VERTICAL_K(0, d1, n1, o1)
  VERTICAL_K(2, d3, n3, o3)
  VERTICAL_K(4, d5, n5, o5)
#undef VERTICAL_K
  return wasm_f32x4_add(wasm_f32x4_add(o1, o3), o5);
}

/*
 * One output row of the vertical pass of one plane, from ring rows TOP and
 * BOTTOM (which of them are inside the image: MODE), into OUT.
 */
INLINE void vertical_plane(const float *top, const float *bottom, v128_t *prev, v128_t *prev2, float *out, uint32_t w, int mode) {
  for (uint32_t x = 0; x < w; x += 4, prev += 6, prev2 += 6) {
    v128_t sum = mode == BOTH     ? wasm_f32x4_add(wasm_v128_load(top + x), wasm_v128_load(bottom + x))
                 : mode == TOP    ? wasm_v128_load(top + x)
                 : mode == BOTTOM ? wasm_v128_load(bottom + x)
                                  : wasm_f32x4_splat(0);
    wasm_v128_store(out + x, vertical_step(sum, prev, prev2));
  }
}

/*
 * Output rows N to N + 3 of the vertical pass of PLANES planes into OUT,
 * all four with both input rows inside the image: as vertical_row four
 * times, with each column's state loaded and stored once.
 */
static void vertical_rows4(uint32_t planes, uint32_t w, int n, float *const out[4][3]) {
  for (uint32_t p = 0; p < planes; p++) {
    const float *top[4], *bottom[4];
    for (int r = 0; r < 4; r++) {
      top[r] = ring[p] + (uint32_t)((n + r - RADIUS - 1) & (RING_ROWS - 1)) * padded_width;
      bottom[r] = ring[p] + (uint32_t)((n + r + RADIUS - 1) & (RING_ROWS - 1)) * padded_width;
    }
    v128_t *prev = vertical_state[p][n & 1], *prev2 = vertical_state[p][(n & 1) ^ 1];
    for (uint32_t x = 0; x < w; x += 4, prev += 6, prev2 += 6) {
      v128_t a[6], b[6];
      for (int i = 0; i < 6; i++) a[i] = prev[i], b[i] = prev2[i];
      /* Rows n and n + 2 write over b, n + 1 and n + 3 over a. */
      wasm_v128_store(out[0][p] + x, vertical_step(wasm_f32x4_add(wasm_v128_load(top[0] + x), wasm_v128_load(bottom[0] + x)), a, b));
      wasm_v128_store(out[1][p] + x, vertical_step(wasm_f32x4_add(wasm_v128_load(top[1] + x), wasm_v128_load(bottom[1] + x)), b, a));
      wasm_v128_store(out[2][p] + x, vertical_step(wasm_f32x4_add(wasm_v128_load(top[2] + x), wasm_v128_load(bottom[2] + x)), a, b));
      wasm_v128_store(out[3][p] + x, vertical_step(wasm_f32x4_add(wasm_v128_load(top[3] + x), wasm_v128_load(bottom[3] + x)), b, a));
      for (int i = 0; i < 6; i++) prev[i] = a[i], prev2[i] = b[i];
    }
  }
}

/* Output row N of the vertical pass of PLANES planes into OUT. */
static void vertical_row(uint32_t planes, uint32_t w, uint32_t h, int n, float *const out[3]) {
  int top = n - RADIUS - 1, bottom = n + RADIUS - 1;
  int mode = (top >= 0 ? TOP : 0) | (bottom < (int)h ? BOTTOM : 0);
  for (uint32_t p = 0; p < planes; p++) {
    const float *t = ring[p] + (uint32_t)(top & (RING_ROWS - 1)) * padded_width;
    const float *b = ring[p] + (uint32_t)(bottom & (RING_ROWS - 1)) * padded_width;
    v128_t *prev = vertical_state[p][n & 1], *prev2 = vertical_state[p][(n & 1) ^ 1];
    switch (mode) {
      case BOTH: vertical_plane(t, b, prev, prev2, out[p], w, BOTH); break;
      case TOP: vertical_plane(t, b, prev, prev2, out[p], w, TOP); break;
      case BOTTOM: vertical_plane(t, b, prev, prev2, out[p], w, BOTTOM); break;
      default: vertical_plane(t, b, prev, prev2, out[p], w, NEITHER); break;
    }
  }
}

/* The six error terms of four pixels, per term the float64 pairs of pixels 0-1 and 2-3. */
typedef struct {
  v128_t low[6], high[6];
} Terms;

/*
 * The error maps of four pixels (ssimulacra2.js's errorRow): 1 - SSIM'
 * without the luminance denominator and its 4th power, and the edge ratio's
 * artifact and detail-lost parts and their 4th powers. X1, X2, MU1, VAR1 at
 * the row's start in the planes; MU2, S22, S12 the vertical pass's rows.
 */
INLINE void error_terms(const float *x1, const float *x2, const float *mu1, const float *var1, const float *mu2, const float *s22, const float *s12, uint32_t j, Terms *out) {
  const v128_t one = wasm_f64x2_splat(1), half = wasm_f64x2_splat(0.5), zero = wasm_f64x2_splat(0);
  v128_t m1 = wasm_v128_load(mu1 + j), m2 = wasm_v128_load(mu2 + j);
  v128_t mu22 = wasm_f32x4_mul(m2, m2), mu12 = wasm_f32x4_mul(m1, m2), diff = wasm_f32x4_sub(m1, m2);
  v128_t diff_low = promote_low(diff), diff_high = promote_high(diff);
  v128_t num_m = demote_pair(wasm_f64x2_sub(one, wasm_f64x2_mul(diff_low, diff_low)), wasm_f64x2_sub(one, wasm_f64x2_mul(diff_high, diff_high)));
  v128_t num_s = wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_splat(2), wasm_f32x4_sub(wasm_v128_load(s12 + j), mu12)), wasm_f32x4_splat(C2));
  v128_t den_s = wasm_f32x4_add(wasm_f32x4_add(wasm_v128_load(var1 + j), wasm_f32x4_sub(wasm_v128_load(s22 + j), mu22)), wasm_f32x4_splat(C2));
  v128_t ratio = wasm_f32x4_div(wasm_f32x4_mul(num_m, num_s), den_s);
  v128_t edge2 = wasm_f32x4_abs(wasm_f32x4_sub(wasm_v128_load(x2 + j), m2));
  v128_t edge1 = wasm_f32x4_abs(wasm_f32x4_sub(wasm_v128_load(x1 + j), m1));
#define ERROR_HALF(promote, part)                                                                                       \
  {                                                                                                                     \
    v128_t d = wasm_f64x2_pmax(wasm_f64x2_sub(one, promote(ratio)), zero);                                              \
    v128_t dd = wasm_f64x2_mul(d, d);                                                                                   \
    v128_t e = wasm_f64x2_sub(wasm_f64x2_div(wasm_f64x2_add(one, promote(edge2)), wasm_f64x2_add(one, promote(edge1))), one); \
    v128_t magnitude = wasm_f64x2_abs(e);                                                                               \
    v128_t art = wasm_f64x2_mul(wasm_f64x2_add(e, magnitude), half);                                                   \
    v128_t lost = wasm_f64x2_mul(wasm_f64x2_sub(e, magnitude), half);                                                  \
    v128_t a2 = wasm_f64x2_mul(art, art), l2 = wasm_f64x2_mul(lost, lost);                                              \
    out->part[0] = d;                                                                                                   \
    out->part[1] = wasm_f64x2_mul(dd, dd);                                                                              \
    out->part[2] = art;                                                                                                 \
    out->part[3] = wasm_f64x2_mul(a2, a2);                                                                              \
    out->part[4] = lost;                                                                                                \
    out->part[5] = wasm_f64x2_mul(l2, l2);                                                                              \
  }
  ERROR_HALF(promote_low, low)
  ERROR_HALF(promote_high, high)
#undef ERROR_HALF
}

/*
 * The error maps of rows N and N + 1 (ROWS_DONE 2; the vertical pass's rows
 * OUT_A and OUT_B) or of row N alone (1; OUT_B is OUT_A), added to SUM (six float64):
 * per row, each map summed column after column from 0 (lane 0 row N, lane 1
 * row N + 1: each lane's additions are in ssimulacra2.js's order), then the
 * row sums added, row N first.
 */
static void error_rows(const Level *level, uint32_t c, const float *x2, int n, uint32_t rows_done, float *const out_a[3], float *const out_b[3], double *sum) {
  uint32_t w = level->width;
  /* One row: lane 1 repeats row N, and is not added. */
  uint32_t start_a = (uint32_t)n * w, start_b = rows_done == 2 ? start_a + w : start_a;
  const float *x1 = level->x[c], *mu1 = level->mu[c], *var1 = level->variance[c];
  v128_t acc[6];
  for (uint32_t k = 0; k < 6; k++) acc[k] = wasm_f64x2_splat(0);
  for (uint32_t j = 0; j < w; j += 4) {
    Terms a, b;
    error_terms(x1 + start_a, x2 + start_a, mu1 + start_a, var1 + start_a, out_a[0], out_a[1], out_a[2], j, &a);
    error_terms(x1 + start_b, x2 + start_b, mu1 + start_b, var1 + start_b, out_b[0], out_b[1], out_b[2], j, &b);
    uint32_t columns = w - j < 4 ? w - j : 4;
    for (uint32_t k = 0; k < 6; k++) {
      v128_t column0 = wasm_i64x2_shuffle(a.low[k], b.low[k], 0, 2), column1 = wasm_i64x2_shuffle(a.low[k], b.low[k], 1, 3);
      v128_t column2 = wasm_i64x2_shuffle(a.high[k], b.high[k], 0, 2), column3 = wasm_i64x2_shuffle(a.high[k], b.high[k], 1, 3);
      /* lost1 -= lost, the others += */
      if (k == 4) {
        acc[k] = wasm_f64x2_sub(acc[k], column0);
        if (columns > 1) acc[k] = wasm_f64x2_sub(acc[k], column1);
        if (columns > 2) acc[k] = wasm_f64x2_sub(acc[k], column2);
        if (columns > 3) acc[k] = wasm_f64x2_sub(acc[k], column3);
      } else {
        acc[k] = wasm_f64x2_add(acc[k], column0);
        if (columns > 1) acc[k] = wasm_f64x2_add(acc[k], column1);
        if (columns > 2) acc[k] = wasm_f64x2_add(acc[k], column2);
        if (columns > 3) acc[k] = wasm_f64x2_add(acc[k], column3);
      }
    }
  }
  for (uint32_t k = 0; k < 6; k++) sum[k] += wasm_f64x2_extract_lane(acc[k], 0);
  if (rows_done == 2) {
    for (uint32_t k = 0; k < 6; k++) sum[k] += wasm_f64x2_extract_lane(acc[k], 1);
  }
}

/* Row N of the reference's mu1 and variance (blur(x1 * x1) - mu1^2) from the vertical pass's rows OUT. */
static void reference_row(const Level *level, uint32_t c, int n, float *const out[3]) {
  uint32_t w = level->width, start = (uint32_t)n * w;
  float *mu = level->mu[c] + start, *variance = level->variance[c] + start;
  for (uint32_t j = 0; j < w; j++) {
    float m = out[0][j];
    mu[j] = m;
    variance[j] = out[1][j] - m * m;
  }
}

/*
 * The recursive Gaussian of X1 (and X1*X1), or of X2, X2*X2 and X1*X2 when
 * X2 is given, zero outside the image: horizontal pass four rows at a time
 * into the ring, vertical pass row n once row n + RADIUS - 1 is there; each
 * output row into LEVEL's mu and variance planes of channel C (the
 * reference), or into the error maps' SUM (the distorted image).
 */
static void blur(const Level *level, uint32_t c, const float *x2, double *sum) {
  uint32_t w = level->width, h = level->height, planes = x2 ? 3 : 2;
  const float *x1 = level->x[c];
  for (uint32_t p = 0; p < planes; p++) {
    for (uint32_t half = 0; half < 2; half++) {
      v128_t *state = vertical_state[p][half];
      for (uint32_t i = 0; i < (w + 3) / 4 * 6; i++) state[i] = wasm_f64x2_splat(0);
    }
  }
  int n = -RADIUS + 1;
  for (uint32_t y0 = 0; y0 < h; y0 += 4) {
    transpose_sources(x1, x2, w, h, y0);
    horizontal_rows(planes, w, h, y0);
    uint32_t done = y0 + 4 < h ? y0 + 4 : h;
    int last = done == h ? (int)h - 1 : (int)done - RADIUS;
    while (n <= last) {
      if (n >= RADIUS + 1 && n + 3 <= last && n + 3 + RADIUS - 1 < (int)h) {
        vertical_rows4(planes, w, n, rows);
        if (x2) {
          error_rows(level, c, x2, n, 2, rows[0], rows[1], sum);
          error_rows(level, c, x2, n + 2, 2, rows[2], rows[3], sum);
        } else {
          for (int r = 0; r < 4; r++) reference_row(level, c, n + r, rows[r]);
        }
        n += 4;
        continue;
      }
      vertical_row(planes, w, h, n, rows[0]);
      if (n >= 0) {
        if (x2) error_rows(level, c, x2, n, 1, rows[0], rows[0], sum);
        else reference_row(level, c, n, rows[0]);
      }
      n++;
    }
  }
}

/* ---- Exports ---- */

/* Sizes the scorer for WIDTH x HEIGHT with PYRAMIDS reference pyramids (2 with transparency); 0 when memory runs out. */
EXPORT("setup") uint32_t setup(uint32_t image_width, uint32_t image_height, uint32_t pyramids) {
  width = image_width;
  height = image_height;
  padded_width = (width + 3) & ~3u;
  uint32_t w = width, h = height;
  num_levels = 0;
  for (uint32_t scale = 0; scale < NUM_SCALES; scale++) {
    for (uint32_t p = 0; p < pyramids; p++) {
      Level *level = &levels[p][scale];
      level->width = w;
      level->height = h;
      for (uint32_t c = 0; c < 3; c++) {
        if (!(level->x[c] = allocate(4ull * w * h))) return 0;
        if (!(level->mu[c] = allocate(4ull * w * h))) return 0;
        if (!(level->variance[c] = allocate(4ull * w * h))) return 0;
      }
    }
    num_levels++;
    if (!(scale + 1 < NUM_SCALES && w >= MIN_SIZE && h >= MIN_SIZE)) break;
    w = (w + 1) / 2;
    h = (h + 1) / 2;
  }
  uint64_t full = (uint64_t)width * height, half = (uint64_t)((width + 1) / 2) * ((height + 1) / 2);
  if (!(pixels = allocate(4 * full)) || !(blend = allocate(4 * 65536))) return 0;
  for (uint32_t c = 0; c < 3; c++) {
    if (!(work_a[c] = allocate(4 * full)) || !(work_b[c] = allocate(4 * half))) return 0;
    if (!(sources[c] = allocate(16ull * padded_width)) || !(filtered[c] = allocate(16ull * padded_width))) return 0;
    if (!(ring[c] = allocate(4ull * RING_ROWS * padded_width))) return 0;
    for (uint32_t r = 0; r < 4; r++) {
      if (!(rows[r][c] = allocate(4ull * padded_width))) return 0;
    }
    for (uint32_t half_index = 0; half_index < 2; half_index++) {
      if (!(vertical_state[c][half_index] = allocate(16ull * 6 * (padded_width / 4)))) return 0;
    }
  }
  return 1;
}

EXPORT("pixels_address") uint8_t *pixels_address(void) { return pixels; }
EXPORT("srgb_address") float *srgb_address(void) { return srgb; }
EXPORT("blend_address") float *blend_address(void) { return blend; }
EXPORT("sums_address") double *sums_address(void) { return sums; }

/* For the test: f32(Math.cbrt(x)) as XYB computes it, for the COUNT (at most 4096) float32 from bit pattern FIRST on. */
static float cube_roots_out[4096];
EXPORT("cube_roots_address") float *cube_roots_address(void) { return cube_roots_out; }
EXPORT("cube_roots") void cube_roots(uint32_t first, uint32_t count) {
  for (uint32_t i = 0; i < count; i += 4) {
    v128_t x = wasm_i32x4_add(wasm_i32x4_splat((int32_t)(first + i)), wasm_i32x4_make(0, 1, 2, 3));
    v128_t recheck = wasm_i32x4_splat(0);
    wasm_v128_store(cube_roots_out + i, cbrt_f32x4(x, &recheck));
    if (!wasm_v128_any_true(recheck)) continue;
    float inputs[4];
    wasm_v128_store(inputs, x);
    for (uint32_t lane = 0; lane < 4; lane++) cube_roots_out[i + lane] = (float)cbrt_fdlibm(inputs[lane]);
  }
}

/* The reference's pyramid PYRAMID from the pixels (CHANNELS 3 or 4; the blend table loaded for 4). */
EXPORT("reference") void reference(uint32_t pyramid, uint32_t channels) {
  Level *pyramid_levels = levels[pyramid];
  to_linear(channels, pyramid_levels[0].x);
  for (uint32_t scale = 0; scale < num_levels; scale++) {
    Level *level = &pyramid_levels[scale];
    if (scale + 1 < num_levels) {
      for (uint32_t c = 0; c < 3; c++) downscale(level->x[c], pyramid_levels[scale + 1].x[c], level->width, level->height);
    }
    to_positive_xyb(level->x, level->width * level->height);
    for (uint32_t c = 0; c < 3; c++) blur(level, c, 0, 0);
  }
}

/* The sums of the error maps of the pixels (the distorted image) against pyramid PYRAMID, per scale and channel; returns the number of scales. */
EXPORT("compare") uint32_t compare(uint32_t pyramid, uint32_t channels) {
  Level *pyramid_levels = levels[pyramid];
  to_linear(channels, work_a);
  for (uint32_t scale = 0; scale < num_levels; scale++) {
    Level *level = &pyramid_levels[scale];
    float **current = scale % 2 == 0 ? work_a : work_b, **next = scale % 2 == 0 ? work_b : work_a;
    if (scale + 1 < num_levels) {
      for (uint32_t c = 0; c < 3; c++) downscale(current[c], next[c], level->width, level->height);
    }
    to_positive_xyb(current, level->width * level->height);
    for (uint32_t c = 0; c < 3; c++) {
      double *sum = sums + (scale * 3 + c) * 6;
      for (uint32_t k = 0; k < 6; k++) sum[k] = 0;
      blur(level, c, current[c], sum);
    }
  }
  return num_levels;
}

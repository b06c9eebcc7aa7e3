/**
 * The passes pagediet runs, in the fixed order they run in: one module under
 * src/passes/ each, named by its file. The order matters: text images are
 * replaced before images are converted (no work on images that go away),
 * images before markup (references are rewritten first), content-hashed
 * names once every subresource's bytes are final, and precompression last,
 * on final bytes. A pass is a module that exports a Pass (src/build/pass.js).
 */

/** The pass modules, in run order. */
const MODULES = [
  'text-images',
  'gif-to-png',
  'animations',
  'png',
  'photos',
  'image-markup',
  'svg',
  'scripts',
  'fonts',
  'html-case',
  'minify-html',
  'css',
  'hash-names',
  'precompress',
];

const loaded = await Promise.all(MODULES.map(async (name) => {
  const url = new URL(`./${name}.js`, import.meta.url);
  return { pass: /** @type {import('../build/pass.js').AnyPass} */ ((await import(url.href)).default), url };
}));

/** @type {readonly import('../build/pass.js').AnyPass[]} pagediet's passes, in run order */
export const PASSES = loaded.map(({ pass }) => pass);

/** The names of pagediet's passes, in run order. */
export const PASS_ORDER = PASSES.map((pass) => pass.name);

const CODE = new Map(loaded.map(({ pass, url }) => [pass, url]));

/**
 * The module of one of pagediet's passes (its code is fingerprinted for the
 * cache); null for a pass given from outside.
 * @param {import('../build/pass.js').AnyPass} pass
 */
export function passCode(pass) {
  return CODE.get(pass) ?? null;
}

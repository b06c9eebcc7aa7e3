/**
 * pagediet as a Vite (and Rollup) build step: after the bundle is written,
 * the output directory is optimized as `pagediet build` would, and replaced
 * by the optimized copy. The input of a pagediet build is never modified, so
 * the copy is built beside the output directory and swapped in by renames.
 *
 *   // vite.config.js
 *   import pagediet from 'pagediet/vite';
 *   export default { plugins: [pagediet()] };
 *
 * Options are `optimize()`'s (see src/build/pipeline.js BuildOptions), without
 * `input` and `output`, and the plugin's own: `quiet`, `verbose` and
 * `inlineImages` (PagedietPluginOptions; docs/vite.md). The server configs go
 * beside the output directory (`dist-configs/` for Vite's default
 * `dist`), not into it, so that they are not deployed with the site;
 * `configs: '<dir>'` or `configs: false` says otherwise. The scripts pass is
 * skipped: the bundler minified its scripts already, with their source maps;
 * `only` or `skip` in the options choose the passes instead.
 *
 * Vite inlines assets under 4 KiB (`build.assetsInlineLimit`) as data: URIs
 * before pagediet sees them: small GIFs, PNGs and SVGs, exactly the text
 * images, icons and rules pagediet replaces or converts. The plugin makes
 * Vite emit images as files (`inlineImages: true` restores Vite's way), and
 * leaves every other asset to the user's own `assetsInlineLimit`.
 *
 * After the build it logs through Vite's logger: errors and warnings grouped
 * by code (`logger.warn`, with a count and up to three files), and at `info`
 * the savings line, why passes kept files (grouped by reason), and the
 * messages counted by severity. `verbose: true`, or `vite build --debug`
 * (DEBUG matching `vite:pagediet`), lists every decision and message.
 */
import path from 'node:path';
import { optimizeInPlace } from './in-place.js';
import { examples, logLines, plural, yellow } from './log-lines.js';

/**
 * @typedef {object} PagedietPluginOwnOptions The plugin's own options, besides the build's.
 * @property {boolean} [quiet] log no `info` lines of pagediet's (the savings line, why files were kept, the count of
 *   messages); errors and warnings are still logged (default false)
 * @property {boolean} [verbose] also list every decision of every pass and every message, information included, at
 *   `info`; `vite build --debug` (or DEBUG naming `vite:pagediet`) does the same (default false)
 * @property {boolean} [inlineImages] let Vite inline small images (GIF, PNG, JPEG, WebP, AVIF, SVG) as data: URIs
 *   under `build.assetsInlineLimit` as it does without pagediet; pagediet cannot replace or convert an image in a
 *   data: URI. Without it images are emitted as files (default false)
 */

/**
 * The plugin's options: every option of `optimize()` but `input` and `output`
 * (src/options/build-options.js), and the plugin's own.
 * @typedef {Omit<import('../build/pipeline.js').BuildOptions, 'input' | 'output'> & PagedietPluginOwnOptions} PagedietPluginOptions
 */

/**
 * Vite's `build.assetsInlineLimit`: a size in bytes under which an asset is
 * inlined, or a function saying whether to inline a file (`undefined`:
 * Vite's default limit decides).
 * @typedef {number | ((filePath: string, content: Buffer) => boolean | undefined)} AssetsInlineLimit
 */

/**
 * The part of Vite's config (user config or one environment's) the plugin reads and sets.
 * @typedef {{ build?: { assetsInlineLimit?: AssetsInlineLimit } }} ConfigLike
 */

/**
 * The part of Vite's logger the plugin uses (Vite's `Logger`).
 * @typedef {object} LoggerLike
 * @property {(message: string, options?: { timestamp?: boolean }) => void} info
 * @property {(message: string, options?: { timestamp?: boolean }) => void} warn
 */

/**
 * The smallest part of Vite's resolved config the plugin reads.
 * @typedef {{ root: string, build: { outDir: string, write?: boolean, watch?: unknown }, logger: LoggerLike }} ResolvedConfigLike
 */

/**
 * The plugin, as Vite and Rollup take it (a Vite `Plugin`).
 * @typedef {object} PagedietPlugin
 * @property {'pagediet'} name
 * @property {'build'} apply
 * @property {'post'} enforce
 * @property {(config: ConfigLike) => ConfigLike} config Vite: images are emitted as files, not inlined
 * @property {(name: string, config: ConfigLike) => ConfigLike | undefined} configEnvironment Vite 6 and later: the
 *   same for an environment's own `build.assetsInlineLimit`
 * @property {(config: ResolvedConfigLike) => void} configResolved Vite: where the bundle goes, and the logger
 * @property {(output: { dir?: string, file?: string }) => void} writeBundle Rollup: where the bundle went
 * @property {(error?: Error) => Promise<void>} closeBundle optimizes the written bundle and logs what pagediet did
 */

/** Vite's default `build.assetsInlineLimit`, in bytes. */
const VITE_INLINE_LIMIT = 4096;

/** Images pagediet may replace or convert: Vite must not inline them. */
const IMAGE = /\.(?:gif|png|apng|jpe?g|jfif|pjpeg|pjp|webp|avif|svg)$/i;

/** What a Git LFS pointer starts with: Vite never inlines one. */
const GIT_LFS = Buffer.from('version https://git-lfs.github.com');

/** Inline-limit functions of this plugin's, not wrapped again. @type {WeakSet<Function>} */
const OURS = new WeakSet();

/**
 * @param {PagedietPluginOptions} [options]
 * @returns {PagedietPlugin}
 */
export default function pagediet(options = {}) {
  const { quiet = false, verbose = false, inlineImages = false, ...given } = options;
  const buildOptions = given.only || given.skip ? given : { ...given, skip: ['scripts'] };
  /** @type {string | undefined} */
  let outDir;
  let write = true;
  let watching = false;
  /** @type {LoggerLike} */
  let logger = { info: (m) => console.log(m), warn: (m) => console.warn(m) };
  /** Images Vite inlined (only with `inlineImages`), by file. @type {Set<string>} */
  const inlined = new Set();
  let root = process.cwd();

  /** @param {AssetsInlineLimit | undefined} setting */
  const limit = (setting) => inlineLimit(setting, { inlineImages, inlined });

  return {
    name: 'pagediet',
    apply: 'build',
    enforce: 'post',

    config(config) {
      return { build: { assetsInlineLimit: limit(config.build?.assetsInlineLimit) } };
    },

    configEnvironment(_name, config) {
      // An environment inherits the top-level function set above; only its own setting is wrapped.
      const setting = config.build?.assetsInlineLimit;
      if (typeof setting === 'function' && OURS.has(setting)) return undefined;
      return { build: { assetsInlineLimit: limit(setting) } };
    },

    configResolved(config) {
      root = config.root;
      outDir = path.resolve(config.root, config.build.outDir);
      write = config.build.write !== false;
      watching = Boolean(config.build.watch);
      logger = config.logger;
    },

    writeBundle(output) {
      outDir ??= output.dir ? path.resolve(output.dir) : output.file ? path.dirname(path.resolve(output.file)) : undefined;
    },

    async closeBundle(error) {
      // A failed bundle, or one not written (`build.write: false`), leaves nothing to optimize.
      if (error || !outDir || !write) return;
      const summary = await optimizeInPlace(outDir, buildOptions);
      const lines = logLines(summary, { verbose: verbose || debugging(), quiet });
      if (inlined.size && !quiet) {
        const files = [...inlined].map((f) => path.relative(root, f).split(path.sep).join('/')).sort();
        lines.splice(1, 0, { level: 'info', text: `pagediet: Vite inlined ${plural(files.length, 'image')} as ${files.length === 1 ? 'a data: URI' : 'data: URIs'} (inlineImages: true), which pagediet leaves as ${files.length === 1 ? 'it is' : 'they are'} ${examples(files)}` });
      }
      for (const line of lines) {
        if (line.level === 'warn') logger.warn(yellow(line.text), { timestamp: watching });
        else logger.info(line.text, { timestamp: watching });
      }
    },
  };
}

/**
 * Vite's `build.assetsInlineLimit` with images taken out: a function that
 * says false for the images pagediet may replace, and decides everything
 * else as the user's setting (a number, a function, or Vite's default) does.
 * @param {AssetsInlineLimit | undefined} setting the user's
 * @param {{ inlineImages?: boolean, inlined?: Set<string> }} [options] inlineImages: decide images as the user's
 *   setting does too; inlined: gets the images inlined that way
 * @returns {(filePath: string, content: Buffer) => boolean | undefined}
 */
function inlineLimit(setting, options = {}) {
  /** @type {(filePath: string, content: Buffer) => boolean | undefined} */
  const decide = (filePath, content) => {
    const image = IMAGE.test(filePath.replace(/[?#].*$/, ''));
    if (image && !options.inlineImages) return false;
    const inline = viteInlines(setting, filePath, content);
    if (image && inline) options.inlined?.add(filePath);
    return inline;
  };
  OURS.add(decide);
  return decide;
}

/**
 * Whether Vite inlines a file under the user's setting, as Vite decides it
 * (its shouldInline after the `?inline`, `?no-inline` and entry checks).
 * @param {AssetsInlineLimit | undefined} setting
 * @param {string} filePath
 * @param {Buffer} content
 */
function viteInlines(setting, filePath, content) {
  let bytes = VITE_INLINE_LIMIT;
  if (typeof setting === 'function') {
    const chosen = setting(filePath, content);
    if (chosen != null) return chosen;
  } else if (setting !== undefined) bytes = Number(setting);
  return content.length < bytes && !(content.length >= GIT_LFS.length && GIT_LFS.equals(content.subarray(0, GIT_LFS.length)));
}

/**
 * Whether Vite runs with `--debug` for pagediet: DEBUG (which `vite --debug`
 * sets to `vite:*`, `--debug pagediet` to `vite:pagediet`) names
 * `vite:pagediet`, as the debug package matches names.
 * @param {string} [namespaces] DEBUG
 */
function debugging(namespaces = process.env.DEBUG ?? '') {
  let on = false;
  for (const name of namespaces.split(/[\s,]+/).filter(Boolean)) {
    const negated = name.startsWith('-');
    const pattern = new RegExp(`^${(negated ? name.slice(1) : name).replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*?')}$`);
    if (!pattern.test('vite:pagediet')) continue;
    if (negated) return false;
    on = true;
  }
  return on;
}

/**
 * pagediet as a Vite (and Rollup) build step: after the bundle is written,
 * the output directory is optimized as `pagediet build` would, and replaced
 * by the optimized copy. The input of a pagediet build is never modified, so
 * the copy is built beside the output directory and swapped in by renames.
 *
 *   // vite.config.js
 *   import pagediet from 'pagediet/vite';
 *   export default { plugins: [pagediet({ lossy: false })] };
 *
 * Options are `optimize()`'s (see src/pipeline.js BuildOptions), without
 * `input` and `output`; `quiet: true` leaves out the savings line. The
 * server configs go beside the output directory (`<root>/pagediet-configs/`
 * for Vite's default `dist`), not into it, so that they are not deployed
 * with the site; `configs: '<dir>'` or `configs: false` says otherwise.
 * The scripts pass is skipped: the bundler minified its scripts already, with
 * their source maps; `only` or `skip` in the options choose the passes instead.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { build } from '../pipeline.js';
import { MARKER } from '../output.js';
import { formatBytes } from '../report/build-text.js';

/**
 * @typedef {Omit<import('../pipeline.js').BuildOptions, 'input' | 'output'> & { quiet?: boolean }} PagedietPluginOptions
 */

/**
 * The smallest part of Vite's resolved config the plugin reads.
 * @typedef {{ root: string, build: { outDir: string }, logger: { info(message: string): void, warn(message: string): void } }} ResolvedConfigLike
 */

/**
 * @param {PagedietPluginOptions} [options]
 */
export default function pagediet(options = {}) {
  const { quiet = false, ...given } = options;
  const buildOptions = given.only || given.skip ? given : { ...given, skip: ['scripts'] };
  /** @type {string | undefined} */
  let outDir;
  /** @type {ResolvedConfigLike['logger']} */
  let logger = { info: (m) => console.log(m), warn: (m) => console.warn(m) };

  return {
    name: 'pagediet',
    apply: /** @type {const} */ ('build'),
    enforce: /** @type {const} */ ('post'),

    /** Vite: where the bundle goes, and its logger. @param {ResolvedConfigLike} config */
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
      logger = config.logger;
    },

    /** Rollup (and Vite, whose hooks are Rollup's): the directory each output was written to. @param {{ dir?: string, file?: string }} output */
    writeBundle(output) {
      outDir ??= output.dir ? path.resolve(output.dir) : output.file ? path.dirname(path.resolve(output.file)) : undefined;
    },

    /** @param {Error} [error] set when the bundle failed: then there is nothing to optimize */
    async closeBundle(error) {
      if (error || !outDir) return;
      const summary = await optimizeInPlace(outDir, buildOptions);
      for (const w of summary.warnings) logger.warn(`pagediet: ${w.file ? `${w.file}: ` : ''}${w.message}`);
      if (!quiet) logger.info(savingsLine(summary));
    },
  };
}

/**
 * Builds an optimized copy of a directory beside it and swaps it in: the
 * directory is whole at every moment but for the instant between two renames.
 * @param {string} dir
 * @param {Omit<import('../pipeline.js').BuildOptions, 'input' | 'output'>} options
 */
export async function optimizeInPlace(dir, options) {
  const stamp = `${process.pid}-${Date.now()}`;
  const built = `${dir}.pagediet-${stamp}`;
  const old = `${dir}.pagediet-old-${stamp}`;
  try {
    const configs = options.configs ?? path.join(path.dirname(dir), 'pagediet-configs');
    const summary = await build({ ...options, configs, input: dir, output: built });
    // The marker guards pagediet's own output directories; a bundle directory is Vite's, and it would be deployed.
    await fs.rm(path.join(built, MARKER), { force: true });
    await fs.rename(dir, old);
    await fs.rename(built, dir);
    return summary;
  } finally {
    await fs.rm(built, { recursive: true, force: true });
    await fs.rm(old, { recursive: true, force: true });
  }
}

/**
 * One line in Vite's style: what the pages load before and after.
 * @param {import('../summary.js').BuildSummary} s
 */
export function savingsLine(s) {
  const t = s.totals;
  const saved = t.pageBytesBefore - t.pageBytesAfter;
  const percent = t.pageBytesBefore ? ((saved / t.pageBytesBefore) * 100).toFixed(1) : '0.0';
  const requests = t.requestsBefore - t.requestsAfter;
  const changed = s.passes.reduce((n, p) => n + p.files.length, 0);
  return `${green('✓')} pagediet: ${t.pages} page${t.pages === 1 ? '' : 's'} load ${formatBytes(t.pageBytesBefore)} → ${formatBytes(t.pageBytesAfter)} (−${percent}%)`
    + `${requests > 0 ? `, ${requests} request${requests === 1 ? '' : 's'} fewer` : ''}; ${changed} file${changed === 1 ? '' : 's'} written, in ${(s.ms / 1000).toFixed(2)}s`;
}

/** Green as Vite's ✓, only on a terminal that wants colour. @param {string} text */
function green(text) {
  return process.stdout.isTTY && !process.env.NO_COLOR ? `\x1b[32m${text}\x1b[39m` : text;
}

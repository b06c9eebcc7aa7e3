/**
 * pagediet as an Eleventy plugin: after each build (`eleventy.after`), the
 * output folder is optimized as `pagediet build` would, and replaced by the
 * optimized copy (src/plugins/in-place.js).
 *
 *   // eleventy.config.js
 *   import pagediet from 'pagediet/eleventy';
 *   export default function (eleventyConfig) {
 *     eleventyConfig.addPlugin(pagediet, { photoScore: 85 });
 *   }
 *
 * Options are `optimize()`'s (src/build/pipeline.js BuildOptions) without `input`
 * and `output`, and `quiet` and `verbose` as the Vite plugin has them
 * (docs/plugins.md). Only `eleventy --build` runs are optimized: with
 * `--serve` or `--watch` the dev server serves the folder as Eleventy writes
 * it, and a swap under it would race its next write. Every pass runs, the
 * scripts pass included: Eleventy copies scripts as they are.
 */
import { optimizeInPlace } from './in-place.js';
import { logLines, yellow } from './log-lines.js';

/**
 * @typedef {object} PagedietEleventyOwnOptions
 * @property {boolean} [quiet] log no `info` lines (the savings line, why files were kept, the count of
 *   messages); errors and warnings are still logged (default false)
 * @property {boolean} [verbose] also list every decision of every pass and every message, information included
 *   (default false)
 */

/**
 * The plugin's options: every option of `optimize()` but `input` and `output`, and the plugin's own.
 * @typedef {Omit<import('../build/pipeline.js').BuildOptions, 'input' | 'output'> & PagedietEleventyOwnOptions} PagedietEleventyOptions
 */

/**
 * What Eleventy passes to `eleventy.after` handlers (Eleventy 3), as far as the plugin reads it.
 * @typedef {object} EleventyAfter
 * @property {{ output: string }} [directories] Eleventy 3's folders, relative to the project
 * @property {{ output: string }} [dir] the same, as Eleventy 2 names them
 * @property {'build' | 'watch' | 'serve'} [runMode]
 */

/**
 * The part of Eleventy's config API the plugin uses.
 * @typedef {object} EleventyConfigLike
 * @property {(event: 'eleventy.after', handler: (after: EleventyAfter) => Promise<void>) => void} on
 */

/**
 * @param {EleventyConfigLike} eleventyConfig
 * @param {PagedietEleventyOptions} [options]
 */
export default function pagediet(eleventyConfig, options = {}) {
  if (typeof eleventyConfig?.on !== 'function') throw new TypeError('pagediet/eleventy: give it to eleventyConfig.addPlugin(pagediet, options), not call it');
  const { quiet = false, verbose = false, ...buildOptions } = options;
  eleventyConfig.on('eleventy.after', async ({ directories, dir, runMode = 'build' }) => {
    if (runMode !== 'build') return;
    const output = directories?.output ?? dir?.output;
    if (!output) return;
    const summary = await optimizeInPlace(output, buildOptions);
    for (const line of logLines(summary, { verbose, quiet })) {
      if (line.level === 'warn') console.warn(yellow(line.text));
      else console.log(line.text);
    }
  });
}

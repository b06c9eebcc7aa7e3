/**
 * pagediet as an Astro integration: after Astro writes the site
 * (`astro:build:done`), its output folder is optimized as `pagediet build`
 * would, and replaced by the optimized copy (src/plugins/in-place.js).
 *
 *   // astro.config.mjs
 *   import { defineConfig } from 'astro/config';
 *   import pagediet from 'pagediet/astro';
 *   export default defineConfig({ integrations: [pagediet()] });
 *
 * Options are `optimize()`'s (src/build/pipeline.js BuildOptions) without `input`
 * and `output`, and `quiet` and `verbose` as the Vite plugin has them
 * (docs/plugins.md). The scripts pass is skipped, as with the Vite plugin:
 * Astro's bundler minified its scripts already; `only` or `skip` choose the
 * passes instead. Lines go to Astro's logger, under the integration's name.
 */
import { fileURLToPath } from 'node:url';
import { optimizeInPlace } from './in-place.js';
import { logLines } from './log-lines.js';

/**
 * @typedef {object} PagedietAstroOwnOptions
 * @property {boolean} [quiet] log no `info` lines (the savings line, why files were kept, the count of
 *   messages); errors and warnings are still logged (default false)
 * @property {boolean} [verbose] also list every decision of every pass and every message, information included
 *   (default false)
 */

/**
 * The integration's options: every option of `optimize()` but `input` and `output`, and its own.
 * @typedef {Omit<import('../build/pipeline.js').BuildOptions, 'input' | 'output'> & PagedietAstroOwnOptions} PagedietAstroOptions
 */

/**
 * The part of Astro's integration logger the integration uses.
 * @typedef {{ info: (message: string) => void, warn: (message: string) => void }} AstroLoggerLike
 */

/**
 * An Astro integration (AstroIntegration).
 * @typedef {object} PagedietAstroIntegration
 * @property {'pagediet'} name
 * @property {{ 'astro:build:done': (done: { dir: URL, logger: AstroLoggerLike }) => Promise<void> }} hooks
 */

/**
 * @param {PagedietAstroOptions} [options]
 * @returns {PagedietAstroIntegration}
 */
export default function pagediet(options = {}) {
  const { quiet = false, verbose = false, ...given } = options;
  const buildOptions = given.only || given.skip ? given : { ...given, skip: ['scripts'] };
  return {
    name: 'pagediet',
    hooks: {
      'astro:build:done': async ({ dir, logger }) => {
        const summary = await optimizeInPlace(fileURLToPath(dir), buildOptions);
        for (const line of logLines(summary, { verbose, quiet })) {
          // Astro's logger prefixes each line with the integration's name.
          const text = line.text.replace(/^pagediet: /, '');
          if (line.level === 'warn') logger.warn(text);
          else logger.info(text);
        }
      },
    },
  };
}

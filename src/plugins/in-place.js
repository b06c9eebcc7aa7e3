/**
 * A generator's output folder optimized in place, for the plugins (Vite,
 * Eleventy, Astro): the optimized copy is built beside the folder and
 * swapped in by two renames, so the folder is whole at every moment but the
 * instant between them, and the input of the build is never modified. The
 * server configs go beside the folder (`dist-configs/` for `dist`), not into
 * it, so that they are not deployed with the site, unless `configs` says
 * otherwise.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { MARKER } from '../build/output.js';

/**
 * Builds an optimized copy of a directory beside it and swaps it in: the
 * directory is whole at every moment but for the instant between two renames.
 * @param {string} folder
 * @param {Omit<import('../build/pipeline.js').BuildOptions, 'input' | 'output'>} options
 */
export async function optimizeInPlace(folder, options) {
  // Resolved, trailing separators dropped: the sibling folders' names are made by appending to it.
  const dir = path.resolve(folder);
  const stamp = `${process.pid}-${Date.now()}`;
  const built = `${dir}.pagediet-${stamp}`;
  const old = `${dir}.pagediet-old-${stamp}`;
  try {
    const configs = options.configs ?? `${dir}-configs`;
    // Loaded when the output is written, not with the config: the pass list loads its modules with a top-level
    // await, and a CommonJS project's config require()s the plugin, which Node refuses for such a graph.
    const { build } = await import('../build/pipeline.js');
    const summary = await build({ ...options, configs, input: dir, output: built });
    // The marker guards pagediet's own output directories; this one is the generator's, and it would be deployed.
    await fs.rm(path.join(built, MARKER), { force: true });
    await fs.rename(dir, old);
    await fs.rename(built, dir);
    return summary;
  } finally {
    await fs.rm(built, { recursive: true, force: true });
    await fs.rm(old, { recursive: true, force: true });
  }
}

/**
 * pagediet's programmatic API.
 */
import { build } from './pipeline.js';

export { build, selectPasses } from './pipeline.js';
export { Site, SiteFile } from './site/site.js';
export { REFERENCE_KINDS } from './site/reference-kinds.js';
export { PASSES, PASS_ORDER } from './passes/index.js';
export { UserError } from './errors.js';
export { VERSION } from './summary.js';

/**
 * Optimizes a site; returns the same summary as `pagediet build --json`.
 * @param {import('./pipeline.js').BuildOptions} options
 */
export function optimize(options) {
  return build(options);
}

/**
 * Identity helper that gives a config file completion and type checks.
 * @param {import('./config.js').FileConfig} config
 */
export function defineConfig(config) {
  return config;
}

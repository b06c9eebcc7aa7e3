/**
 * pagediet's programmatic API.
 *
 *   import { optimize, load, report } from 'pagediet';
 *   const summary = await optimize({ input: 'site', output: 'dist' });   // as `pagediet build --json`
 *   const { runs } = await load({ root: 'dist', networks: ['slow-4g'] }); // as `pagediet load --json`
 *   const savings = await report({ before: 'site', after: 'dist' });      // as `pagediet report --json`
 */
import { build } from './build/pipeline.js';
import { loadSite } from './loader/load.js';
import { compareSites } from './report/compare.js';

export { build, selectPasses } from './build/pipeline.js';
export { Site, SiteFile } from './site/site.js';
export { REFERENCE_KINDS } from './site/reference-kinds.js';
export { PASSES, PASS_ORDER } from './passes/index.js';
export { NETWORKS } from './loader/networks.js';
export { STRATEGIES } from './loader/client.js';
export { startServer } from './loader/server.js';
export { UserError } from './build/errors.js';
export { VERSION } from './build/summary.js';

/**
 * The types a caller names.
 * @typedef {import('./build/pipeline.js').BuildOptions} BuildOptions what optimize() takes
 * @typedef {import('./build/summary.js').BuildSummary} BuildSummary what optimize() returns
 * @typedef {import('./loader/load.js').LoadSiteOptions} LoadOptions what load() takes
 * @typedef {import('./loader/load.js').LoadResult} LoadResult what load() returns
 * @typedef {import('./report/compare.js').CompareOptions} ReportOptions what report() takes
 * @typedef {import('./report/compare.js').ReportData} ReportData what report() returns
 * @typedef {import('./cli/config-file.js').FileConfig} Config what a config file gives (defineConfig)
 * @typedef {import('./build/pass.js').AnyPass} Pass a pass (src/build/pass.js), for the `passes` option
 */

/**
 * Optimizes a site; returns the same summary as `pagediet build --json`.
 * @param {import('./build/pipeline.js').BuildOptions} options
 * @returns {Promise<import('./build/summary.js').BuildSummary>}
 */
export function optimize(options) {
  return build(options);
}

/**
 * Loads pages of a site with the robot, over each strategy, and models each
 * load on each network; returns the runs `pagediet load --json` prints (and
 * the raw traces).
 * @param {import('./loader/load.js').LoadSiteOptions} options
 * @returns {Promise<import('./loader/load.js').LoadResult>}
 */
export function load(options) {
  return loadSite(options);
}

/**
 * Loads two versions of a site and compares them; returns what
 * `pagediet report --json` prints: { before, after, savings }.
 * @param {import('./report/compare.js').CompareOptions} options
 * @returns {Promise<import('./report/compare.js').ReportData>}
 */
export function report(options) {
  return compareSites(options);
}

/**
 * Identity helper that gives a config file completion and type checks.
 * @param {import('./cli/config-file.js').FileConfig} config
 */
export function defineConfig(config) {
  return config;
}

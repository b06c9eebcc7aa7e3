/**
 * The pass contract. A pass is one module under src/passes/ that exports a
 * Pass: its `name`, a one-line `description`, its `options` (entries of the
 * option table, src/options/table.js), and `run(site, ctx)`. Everything a
 * pass needs comes through the site model and `ctx`; a pass never reads
 * another pass's options nor the build's. docs/architecture.md, "Adding a
 * pass", is a worked example.
 */

/**
 * @typedef {import('../site/site.js').Site} Site
 * @typedef {import('../options/table.js').OptionDefinitions} OptionDefinitions
 */

/**
 * A pass's options as it receives them: each the value given, or its default.
 * @template {OptionDefinitions} O
 * @typedef {{ [K in keyof O]: O[K] extends import('../options/table.js').OptionDefinition<infer V> ? V : never }} ResolvedOptions
 */

/**
 * @typedef {object} Decision what a pass decided for one candidate, and why
 * @property {string} file
 * @property {'changed' | 'kept' | 'skipped'} action
 * @property {string} reason
 * @property {number} [score]
 *
 * @typedef {object} Metric one measured figure of one file, before and after a pass
 * @property {string} file
 * @property {string} name e.g. 'gzip' (bytes gzipped)
 * @property {number} before
 * @property {number} after
 */

/**
 * @template [R=Record<string, any>]
 * @typedef {object} PassContext
 * @property {R} options the pass's own options, resolved
 * @property {number} threads how many things to do at once (the worker pool's size)
 * @property {(file: string, before: number, after: number) => void} touched record a file changed or created
 * @property {(count: number) => void} rewrote record references rewritten
 * @property {(count: number) => void} removedRequests record requests a page no longer makes
 * @property {(decision: Decision) => void} decide
 * @property {(file: string, code: string, message: string) => void} warn
 * @property {(metric: Metric) => void} measure record a figure measured before and after (kept in the report's metrics)
 * @property {(message: string, count?: import('./progress.js').ProgressCount) => void} progress what the pass is at: a file,
 *   how many of how many, and which of its steps
 * @property {(job: string, bytes: Uint8Array, options: object) => Promise<any>} compute runs a job of src/build/jobs.js in the
 *   worker pool, or takes its result from the persistent cache (keyed by the job's code, the bytes and the options).
 *   A job that throws, stops at the time limit or loses its worker gives `{ status: 'failed', reason, jobFailed: true }`
 *   (never cached): the pass keeps its file as it was, with one `job-failed` warning
 * @property {{ get(): Promise<import('../browser/launch.js').LaunchedBrowser> }} browser the build's Chromium
 *   (src/browser/build-browser.js), started on first use and shared by every pass: a pass opens its own contexts in
 *   it and closes them, never the browser; get() throws NoBrowserError when none starts, and starts another after one
 *   closed or crashed
 * @property {<T>(key: unknown, compute: () => Promise<T>) => Promise<T>} cached a result of the pass's own (not a worker
 *   job) from the persistent cache, or computed and kept: keyed by `key` (JSON) and the fingerprint of the pass's code;
 *   results must be v8-serializable
 */

/**
 * @template {OptionDefinitions} [O=OptionDefinitions]
 * @typedef {object} Pass
 * @property {string} name stable, kebab-case
 * @property {string} description one line
 * @property {O} [options] the options it reads (entries of the option table)
 * @property {boolean} [enabledByDefault] false: runs only when its enabling option (its name in camel case) is set or --only names it
 * @property {(site: Site, ctx: PassContext<ResolvedOptions<O>>) => Promise<void>} run
 * @property {(site: Site, ctx: { options: ResolvedOptions<O>, outputDir: string, shard: boolean, warn: PassContext['warn'] }) => Promise<string[]>} [artifacts]
 *   files the pass writes beside the site once every pass has run (precompress: the server configs), as site
 *   artifacts (site.artifacts) or into a folder of their own; returns what it wrote
 */

/** @typedef {Pass<any>} AnyPass */

export {};

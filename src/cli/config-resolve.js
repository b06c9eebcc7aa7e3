/**
 * Module resolution hooks for config files: a `pagediet.config.js` that
 * imports `pagediet` (for defineConfig) gets this copy of pagediet when its
 * project has none of its own, as when pagediet runs through npx. A
 * project's own installed pagediet always wins. Node 22.15 and newer take
 * the synchronous hook (module.registerHooks, in the thread that imports);
 * node 20 the asynchronous one of module.register(), which this file is
 * loaded as (initialize and resolve below, in node's loader thread).
 */

/**
 * The synchronous hook: SPECIFIER as node resolves it, else the URL ENTRIES give it.
 * @param {Record<string, string>} entries the package's entry points, as file URLs
 * @returns {(specifier: string, context: object, nextResolve: (specifier: string, context: object) => { url: string }) => { url: string, shortCircuit?: boolean }}
 */
export function resolveWithin(entries) {
  return (specifier, context, nextResolve) => {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      return entryFor(entries, specifier, error);
    }
  };
}

/**
 * Where node could not resolve SPECIFIER (ERROR): the package's own entry point for it, or ERROR again.
 * @param {Record<string, string>} entries
 * @param {string} specifier
 * @param {unknown} error
 */
function entryFor(entries, specifier, error) {
  if (!Object.hasOwn(entries, specifier)) throw error;
  return { url: entries[specifier], shortCircuit: true };
}

/** @type {Record<string, string>} the package's entry points, as file URLs */
let entries = {};

/** @param {{ entries: Record<string, string> }} data */
export async function initialize(data) {
  entries = data.entries;
}

/**
 * @param {string} specifier
 * @param {object} context
 * @param {(specifier: string, context: object) => Promise<{ url: string }>} nextResolve
 */
export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    return entryFor(entries, specifier, error);
  }
}

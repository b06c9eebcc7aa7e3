/**
 * A module resolution hook (node:module register()) for config files: a
 * `pagediet.config.js` that imports `pagediet` (for defineConfig) gets this
 * copy of pagediet when its project has none of its own, as when pagediet
 * runs through npx. A project's own installed pagediet always wins.
 */

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
    if (!Object.hasOwn(entries, specifier)) throw error;
    return { url: entries[specifier], shortCircuit: true };
  }
}

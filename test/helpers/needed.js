/**
 * What a test needs from the machine (a real server, a reference tool, root
 * for a network namespace). Where it is missing the test is skipped with the
 * reason, except under CI (the CI variable set), where it fails: CI runs
 * every test, and .ci/run installs what they need.
 */

/**
 * The reason to skip, or null; throws under CI when something is missing.
 * @param {string | null} missing why the test cannot run here, or null
 * @param {string} what the tests, for the message
 * @returns {string | null}
 */
export function needed(missing, what) {
  if (!missing) return null;
  if (process.env.CI) throw new Error(`${what} cannot run: ${missing}; CI must run them (.ci/run installs what they need)`);
  console.warn(`${what} skipped: ${missing}`);
  return missing;
}

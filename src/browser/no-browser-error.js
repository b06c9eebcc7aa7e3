/**
 * The error of a build that needs Chromium and has none: no browser was
 * found, or none of those found launched. Passes catch it to keep their files
 * as they were, so it lives apart from the code that launches.
 */

/** No browser was found, or none of those found launched. */
export class NoBrowserError extends Error {
  /** @param {string} message @param {string[]} failed */
  constructor(message, failed) {
    super(message);
    this.name = 'NoBrowserError';
    this.failed = failed;
  }
}

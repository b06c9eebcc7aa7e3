/**
 * The worker-pool job of the text-images pass (src/build/jobs.js) for one page:
 * the rules of its replacements minified with csso, which merges the
 * declarations they share. A pure function of the rules' text.
 */
import { minify } from 'csso';

/**
 * @param {{ bytes: Uint8Array }} input the rules, UTF-8
 * @returns {string}
 */
export function minifyReplacementCss({ bytes }) {
  return minifyRules(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
}

/**
 * The same in this thread.
 * @param {string} rules
 */
export function minifyRules(rules) {
  return minify(rules).css;
}

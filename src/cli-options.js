/**
 * Parsers for command-line option values, shared by every command.
 */

/** A comma-separated list. @param {string} value */
export const list = (value) => value.split(',').map((s) => s.trim()).filter(Boolean);

/** A repeatable option: every occurrence is kept. @param {string} value @param {string[]} previous */
export const collect = (value, previous = []) => [...previous, value];

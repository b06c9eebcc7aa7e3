/**
 * Parsers for command-line option values, shared by every command.
 */
import { InvalidArgumentError } from 'commander';

/** A comma-separated list. @param {string} value */
export const list = (value) => value.split(',').map((s) => s.trim()).filter(Boolean);

/** A repeatable option: every occurrence is kept. @param {string} value @param {string[]} previous */
export const collect = (value, previous = []) => [...previous, value];

/** A whole number of at least 1. @param {string} value */
export const count = (value) => {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError(`a whole number of at least 1, not '${value}'`);
  return Number(value);
};

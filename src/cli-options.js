/**
 * Parsers for command-line option values, shared by every command.
 */
import { InvalidArgumentError } from 'commander';

/** A comma-separated list. @param {string} value */
export const list = (value) => value.split(',').map((s) => s.trim()).filter(Boolean);

/** A repeatable option: every occurrence is kept. @param {string} value @param {string[]} previous */
export const collect = (value, previous = []) => [...previous, value];

/** A whole number, 0 or more. @param {string} value */
export const nonNegativeInteger = (value) => {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError(`expected a whole number, not '${value}'`);
  return Number(value);
};

/**
 * A quality range MIN-MAX from 0 to 100 (a single number means MIN = MAX).
 * @param {string} value
 * @returns {[number, number]}
 */
export const qualityRange = (value) => {
  const m = /^\s*(\d{1,3})\s*(?:-\s*(\d{1,3})\s*)?$/.exec(value);
  const min = m ? Number(m[1]) : NaN;
  const max = m ? Number(m[2] ?? m[1]) : NaN;
  if (!(min >= 0 && max <= 100 && min <= max)) throw new InvalidArgumentError(`expected MIN-MAX with 0 <= MIN <= MAX <= 100, not '${value}'`);
  return [min, max];
};

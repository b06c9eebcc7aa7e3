/**
 * Parsers and checks of command-line option values, shared by every command.
 */
import path from 'node:path';
import { InvalidArgumentError } from 'commander';
import { UserError } from '../build/errors.js';
import { fileProblem, folderProblem, networkNames, unknownNetworks } from '../build/preflight.js';

/** A comma-separated list. @param {string} value */
export const list = (value) => value.split(',').map((s) => s.trim()).filter(Boolean);

/** A repeatable option: every occurrence is kept. @param {string} value @param {string[]} previous */
export const collect = (value, previous = []) => [...previous, value];

/** A whole number of at least 1. @param {string} value */
export const count = (value) => {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError(`a whole number of at least 1, not '${value}'`);
  return Number(value);
};

/**
 * The command's places to write and its networks, checked before any work:
 * a mistake there is one line, not a failure after the build.
 * @param {string} cwd what relative paths are relative to
 * @param {{ out?: string, html?: string, file?: string, network?: string[] }} targets
 */
export async function checkTargets(cwd, { out, html, file, network }) {
  if (out !== undefined) {
    const problem = await folderProblem(path.resolve(cwd, out));
    if (problem) throw new UserError(`--out ${out}: ${problem}`);
  }
  for (const [flag, target] of /** @type {const} */ ([['--html', html], ['--out', file]])) {
    if (target === undefined) continue;
    const problem = await fileProblem(path.resolve(cwd, target));
    if (problem) throw new UserError(`${flag} ${target}: ${problem}`);
  }
  const unknown = unknownNetworks(network ?? []);
  if (unknown.length) throw new UserError(`--network: unknown network '${unknown[0]}' (known: ${networkNames()})`);
}

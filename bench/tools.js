// Helpers the benchmarks share.
import { execFileSync } from 'node:child_process';

/**
 * Whether a command is on the PATH.
 * @param {string} command
 */
export function has(command) {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * glibc's malloc gives each thread that allocates its own arena (up to eight
 * per core) and hands little of what is freed there back to the system. A
 * build's worker threads (libvips, tesseract, compression) leave hundreds of
 * megabytes so stranded: on 500 generated pages, text-images alone peaked at
 * 830 MiB with the default arenas and 551 MiB with two (docs/scaling.md).
 * And a freed block in the middle of the main heap stays resident: glibc
 * only gives back the heap's top, and it raises the size above which a block
 * gets pages of its own (mmap, given back when freed) from 128 KiB up to
 * 32 MiB as the program frees such blocks, so a build's page buffers (tens
 * of kilobytes each) all end up in the heap. A fixed threshold of 32 KiB
 * gives them back (on 2,000 pages, 68 MB less while Chromium runs).
 * glibc reads both from the environment when the process starts, so
 * the CLI starts itself again with them when it runs on glibc without the
 * arena limit.
 */
import { spawn } from 'node:child_process';
import { SIGNALS } from './signals.js';

/** The variable glibc reads at start-up, and the value pagediet sets. */
export const ARENA_VARIABLE = 'MALLOC_ARENA_MAX';
export const ARENA_LIMIT = '2';
/** Blocks of this many bytes or more get pages of their own; setting it also stops glibc raising it. */
export const MMAP_THRESHOLD_VARIABLE = 'MALLOC_MMAP_THRESHOLD_';
export const MMAP_THRESHOLD = String(32 * 1024);

/**
 * Whether this process should start again with the arena limit: on glibc,
 * with no limit set by the user (any value of theirs is kept, and a restarted
 * process has one, so this never loops).
 * @param {NodeJS.ProcessEnv} [env]
 * @param {() => string | undefined} [glibcVersion] the running glibc's version, undefined elsewhere;
 *   asked only when the variable is unset (node makes a whole diagnostic report to tell)
 */
export function wantsArenaLimit(env = process.env, glibcVersion = runningGlibc) {
  return env[ARENA_VARIABLE] === undefined && glibcVersion() !== undefined;
}

/** The running glibc's version, as node reports it; undefined on musl, macOS and Windows. */
export function runningGlibc() {
  const report = /** @type {{ header?: { glibcVersionRuntime?: string } } | undefined} */ (process.report?.getReport?.());
  return report?.header?.glibcVersionRuntime;
}

/**
 * Runs this same command again with the arena limit and the mmap threshold
 * set (a threshold of the user's is kept), passing on its
 * terminal, exit code and signals.
 * @returns {Promise<number>} the exit code to leave with
 */
export function restartWithArenaLimit() {
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { [MMAP_THRESHOLD_VARIABLE]: MMAP_THRESHOLD, ...process.env, [ARENA_VARIABLE]: ARENA_LIMIT },
  });
  // A terminal's Ctrl-C reaches both processes; the child decides how the build ends.
  for (const signal of SIGNALS) process.on(signal, () => child.kill(signal));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal) {
        // End the way the child ended, so a shell sees the same signal.
        process.removeAllListeners(signal);
        process.kill(process.pid, signal);
      }
      resolve(code ?? 1);
    });
  });
}

/**
 * A build ended by Ctrl-C or `kill` still cleans up. Node's default for
 * SIGINT, SIGTERM and SIGHUP ends the process at once, without its 'exit'
 * handlers, which would leave the byte store's scratch directory (up to the
 * site's size) in the temporary directory. While a build runs, these signals
 * end it through process.exit with the shell's code for the signal (128 + its
 * number), so the 'exit' handlers run: the scratch directory is removed and
 * Playwright stops Chromium. Files being written to the output stay as
 * `.pagediet-tmp` files, which the next build removes.
 */
import os from 'node:os';

/** The signals that end a build (and that a restarted CLI passes on to its child, arena-limit.js). */
export const SIGNALS = /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP']);

/**
 * Ends the process through process.exit on those signals until the returned
 * function is called.
 * @returns {() => void} stops listening
 */
export function exitOnSignal() {
  const listeners = SIGNALS.map((signal) => {
    const listener = () => process.exit(128 + os.constants.signals[signal]);
    process.on(signal, listener);
    return /** @type {const} */ ([signal, listener]);
  });
  return () => {
    for (const [signal, listener] of listeners) process.off(signal, listener);
  };
}

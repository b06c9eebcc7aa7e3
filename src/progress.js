/**
 * Progress of a build for people: on a terminal, one bar per phase, redrawn in
 * place, with counts and the current file; in a CI log (stderr not a terminal
 * and CI set), plain lines at most every few seconds; piped elsewhere, or with
 * --quiet, nothing. Progress goes to stderr, so stdout stays the result.
 */

/**
 * What the pipeline reports as it goes.
 * @typedef {object} ProgressEvent
 * @property {string} phase 'read', 'write', 'report' or a pass's name
 * @property {string} message
 * @property {number} [done] items of the phase finished
 * @property {number} [total] items of the phase
 */

/**
 * @typedef {object} ProgressStream
 * @property {(s: string) => void} write
 * @property {boolean} isTTY
 * @property {number} [columns]
 */

/** Plain lines in a CI log come at most this often, but for the first and last of each phase. */
export const LOG_INTERVAL_MS = 5000;
const BAR_WIDTH = 20;

/** @typedef {{ onProgress: (event: ProgressEvent) => void, end: () => void }} Progress */

/**
 * @param {{ stream: ProgressStream, quiet?: boolean, ci?: boolean, now?: () => number, intervalMs?: number }} options
 * @returns {Progress}
 */
export function createProgress({ stream, quiet = false, ci = Boolean(process.env.CI), now = Date.now, intervalMs = LOG_INTERVAL_MS }) {
  if (quiet || (!stream.isTTY && !ci)) return { onProgress: () => {}, end: () => {} };
  return stream.isTTY ? terminalProgress(stream) : logProgress(stream, now, intervalMs);
}

/** @param {ProgressStream} stream @returns {Progress} */
function terminalProgress(stream) {
  let phase = '';
  let drawn = false;
  return {
    onProgress(event) {
      if (event.phase !== phase && drawn) stream.write('\n');
      phase = event.phase;
      const width = Math.max(40, stream.columns || 80) - 1; // a pseudo-terminal may say 0 columns
      stream.write(`\r\x1b[K${fit(barLine(event), width)}`);
      drawn = true;
    },
    end() {
      if (drawn) stream.write('\n');
      drawn = false;
    },
  };
}

/** @param {ProgressStream} stream @param {() => number} now @param {number} intervalMs @returns {Progress} */
function logProgress(stream, now, intervalMs) {
  let phase = '';
  let last = -Infinity;
  /** @type {ProgressEvent | null} the latest event not printed */
  let pending = null;
  const print = (/** @type {ProgressEvent} */ event) => {
    stream.write(`pagediet: ${event.phase}: ${event.total ? `${event.done}/${event.total} ` : ''}${event.message}\n`);
    last = now();
    pending = null;
  };
  return {
    onProgress(event) {
      const newPhase = event.phase !== phase;
      if (newPhase && pending) print(pending); // the last count of the phase before
      phase = event.phase;
      const finished = event.total !== undefined && event.done === event.total;
      if (newPhase || finished || now() - last >= intervalMs) print(event);
      else pending = event;
    },
    end() {
      if (pending) print(pending);
    },
  };
}

/** @param {ProgressEvent} event */
function barLine(event) {
  if (!event.total) return `pagediet ${event.phase}: ${event.message}`;
  const done = Math.min(event.done ?? 0, event.total);
  const filled = Math.round((done / event.total) * BAR_WIDTH);
  return `pagediet ${event.phase} ${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)} ${done}/${event.total} ${event.message}`;
}

/** Cuts a line to the terminal's width so that \r redraws it in place. @param {string} line @param {number} width */
function fit(line, width) {
  const chars = [...line];
  return chars.length <= width ? line : `${chars.slice(0, width - 1).join('')}…`;
}

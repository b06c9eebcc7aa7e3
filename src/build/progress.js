/**
 * Progress of a build for people: on a terminal, one bar per phase, redrawn in
 * place, with counts, the time left on long phases and the current file; in a
 * CI log (stderr not a terminal and CI set), plain lines at most every few
 * seconds; piped elsewhere, or with --quiet, nothing. Progress goes to stderr,
 * so stdout stays the result.
 */

/**
 * What the pipeline reports as it goes.
 * @typedef {object} ProgressEvent
 * @property {string} phase 'read', 'write', 'report' or a pass's name
 * @property {string} message
 * @property {number} [done] items of the phase finished
 * @property {number} [total] items of the phase
 * @property {ProgressStep} [step] the sub-phase the count is of, in a pass that goes over its items more than once
 */

/**
 * One of the sub-phases of a pass, each with its own count: the text-images pass reads its images, then checks them in Chromium.
 * @typedef {object} ProgressStep
 * @property {number} n 1 for the first
 * @property {number} of how many the pass has
 * @property {string} label a word or two: 'reading', 'checking'
 */

/**
 * What a pass gives ctx.progress with a file: how many of how many, and of which sub-phase.
 * @typedef {{ done: number, total: number, step?: ProgressStep }} ProgressCount
 */

/**
 * @typedef {object} ProgressStream
 * @property {(s: string) => void} write
 * @property {boolean} isTTY
 * @property {number} [columns]
 */

/** Plain lines in a CI log come at most this often, but for the first and last of each phase. */
export const LOG_INTERVAL_MS = 5000;
/** The time left is shown once a count has run this long... */
export const ESTIMATE_AFTER_MS = 3000;
/** ...and has this many items done: the rate so far is then worth something. */
export const ESTIMATE_AFTER_ITEMS = 3;
const BAR_WIDTH = 20;
/** A narrower bar is left out... */
const MIN_BAR_WIDTH = 5;
/** ...and so is a message with less room (three characters and '…'). */
const MIN_MESSAGE_WIDTH = 4;

/** @typedef {{ onProgress: (event: ProgressEvent) => void, end: () => void }} Progress */

/**
 * @param {{ stream: ProgressStream, quiet?: boolean, ci?: boolean, now?: () => number, intervalMs?: number }} options
 * @returns {Progress}
 */
export function createProgress({ stream, quiet = false, ci = Boolean(process.env.CI), now = Date.now, intervalMs = LOG_INTERVAL_MS }) {
  if (quiet || (!stream.isTTY && !ci)) return { onProgress: () => {}, end: () => {} };
  return stream.isTTY ? terminalProgress(stream, now) : logProgress(stream, now, intervalMs);
}

/** @param {ProgressStream} stream @param {() => number} now @returns {Progress} */
function terminalProgress(stream, now) {
  const clock = countClock(now);
  let phase = '';
  /** @type {ProgressEvent | null} the event on the line, while the line is there */
  let drawn = null;
  const draw = (/** @type {ProgressEvent} */ event, /** @type {string} */ left) => {
    const width = Math.max(10, stream.columns || 80) - 1; // a pseudo-terminal may say 0 columns; the last column would wrap on some terminals
    stream.write(`\r\x1b[K${barLine(event, left, width)}`);
    drawn = event;
  };
  // A phase that ends is done: a count its pass left short (one that counts an item as it starts it) is shown full.
  const close = () => {
    if (!drawn) return;
    if (drawn.total !== undefined && (drawn.done ?? 0) < drawn.total) draw({ ...drawn, done: drawn.total }, '');
    stream.write('\n');
    drawn = null;
  };
  return {
    onProgress(event) {
      if (event.phase !== phase) close();
      phase = event.phase;
      draw(event, clock(event));
    },
    end: close,
  };
}

/** @param {ProgressStream} stream @param {() => number} now @param {number} intervalMs @returns {Progress} */
function logProgress(stream, now, intervalMs) {
  const clock = countClock(now);
  let counter = '';
  let last = -Infinity;
  /** @type {{ event: ProgressEvent, left: string } | null} the latest event not printed */
  let pending = null;
  const print = (/** @type {ProgressEvent} */ event, /** @type {string} */ left) => {
    const count = event.total ? `${event.done}/${event.total} ${left ? `(${left}) ` : ''}` : '';
    stream.write(`pagediet: ${event.phase}${stepLabel(event)}: ${count}${plain(event.message)}\n`);
    last = now();
    pending = null;
  };
  return {
    onProgress(event) {
      const left = clock(event);
      // A sub-phase's count is logged as a phase's is: its first and last line, and one at most every interval.
      const key = event.step ? `${event.phase}\0${event.step.n}` : event.phase;
      const newCounter = key !== counter;
      if (newCounter && pending) print(pending.event, pending.left); // the last count of the phase before
      counter = key;
      const finished = event.total !== undefined && event.done === event.total;
      if (newCounter || finished || now() - last >= intervalMs) print(event, left);
      else pending = { event, left };
    },
    end() {
      if (pending) print(pending.event, pending.left);
    },
  };
}

/**
 * Follows the counts of a build's events and says how long the current one
 * has left, from its rate so far: '' until it has run ESTIMATE_AFTER_MS and
 * done ESTIMATE_AFTER_ITEMS, and once it is done. A count starts with the
 * event before its first (the phase's announcement, or the last of the count
 * before, when its work began) and ends when the phase, the sub-phase or the
 * total changes, or the count goes back.
 * @param {() => number} now
 * @returns {(event: ProgressEvent) => string}
 */
function countClock(now) {
  let phase = '';
  let key = '';
  let done = 0;
  let start = 0;
  /** @type {number | null} */
  let previous = null;
  return (event) => {
    const t = now();
    if (event.phase !== phase) key = '';
    phase = event.phase;
    const before = previous ?? t;
    previous = t;
    if (event.total === undefined) return '';
    const count = event.done ?? 0;
    const eventKey = `${event.step?.n ?? ''}/${event.total}`;
    if (eventKey !== key || count < done) start = before;
    key = eventKey;
    done = count;
    const elapsed = t - start;
    if (count >= event.total || count < ESTIMATE_AFTER_ITEMS || elapsed < ESTIMATE_AFTER_MS) return '';
    return timeLeft(((event.total - count) * elapsed) / count);
  };
}

/**
 * A time left for people, in steps that do not flicker at every redraw:
 * '~7 s left', '~25 s left' (5 s steps), '~1 min 20 s left' (10 s steps), '~2 h 5 min left'.
 * @param {number} ms
 */
export function timeLeft(ms) {
  const s = ms / 1000;
  if (s < 9.5) return `~${Math.max(1, Math.round(s))} s left`;
  if (s < 57.5) return `~${Math.round(s / 5) * 5} s left`;
  if (s < 3595) {
    const tens = Math.round(s / 10) * 10;
    const min = Math.floor(tens / 60);
    return tens % 60 ? `~${min} min ${tens % 60} s left` : `~${min} min left`;
  }
  const minutes = Math.round(s / 60);
  return minutes % 60 ? `~${Math.floor(minutes / 60)} h ${minutes % 60} min left` : `~${minutes / 60} h left`;
}

/** ' (2/2 checking)' for a sub-phase, '' otherwise. @param {ProgressEvent} event */
function stepLabel(event) {
  return event.step ? ` (${event.step.n}/${event.step.of} ${plain(event.step.label)})` : '';
}

/**
 * The terminal's line: the phase, its bar and count, the time left and the
 * message, in `width` columns. The message is cut first, then the bar narrows
 * or goes; a line that still does not fit is cut.
 * @param {ProgressEvent} event
 * @param {string} left the time left, or ''
 * @param {number} width
 */
function barLine(event, left, width) {
  const head = `pagediet ${plain(event.phase)}${stepLabel(event)}`;
  const message = plain(event.message);
  if (!event.total) return cut(`${head}: ${message}`, width);
  const done = Math.min(event.done ?? 0, event.total);
  const count = `${done}/${event.total}${left ? ` (${left})` : ''}`;
  const room = width - columns(head) - columns(count) - 2;
  const barWidth = Math.min(BAR_WIDTH, room);
  const filled = Math.round((done / event.total) * barWidth);
  const bar = barWidth >= MIN_BAR_WIDTH ? ` ${'█'.repeat(filled)}${'░'.repeat(barWidth - filled)}` : '';
  const line = `${head}${bar} ${count}`;
  const rest = width - columns(line) - 1;
  return message && rest >= MIN_MESSAGE_WIDTH ? `${line} ${cut(message, rest)}` : cut(line, width);
}

/** A text on one line: control characters (a file name may hold a newline or an escape) shown as '?'. @param {string} text */
function plain(text) {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
}

/** Characters a terminal draws two columns wide (East Asian wide and fullwidth forms, emoji); marks drawn on the character before. */
const WIDE = /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u;
const ZERO_WIDTH = /[\u0300-\u036f\u200b-\u200f\ufe00-\ufe0f]/u;

/** @param {string} char one code point */
function charColumns(char) {
  return WIDE.test(char) ? 2 : ZERO_WIDTH.test(char) ? 0 : 1;
}

/** Columns a text takes on a terminal. @param {string} text */
function columns(text) {
  let n = 0;
  for (const char of text) n += charColumns(char);
  return n;
}

/** A text cut to `width` columns, ending with '…' when cut, so that \r redraws it in place. @param {string} text @param {number} width */
function cut(text, width) {
  if (columns(text) <= width) return text;
  let out = '';
  let n = 0;
  for (const char of text) {
    const w = charColumns(char);
    if (n + w > width - 1) break;
    out += char;
    n += w;
  }
  return `${out}…`;
}

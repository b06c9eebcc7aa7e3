/**
 * Durations as people write them: `30s`, `10m`, `2h`, `1d`, `1w`, or a
 * number of seconds; and back, for a report to say ("1 day").
 */

/** Seconds in each unit. */
export const DURATION_UNITS = Object.freeze({ s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 });

const NAMES = /** @type {const} */ ([['w', 'week'], ['d', 'day'], ['h', 'hour'], ['m', 'minute']]);

/**
 * A duration in seconds, or null when the text is not one: a number (0 or
 * more, decimals allowed) alone (seconds) or followed by s, m, h, d or w.
 * @param {string} text
 * @returns {number | null}
 */
export function parseDuration(text) {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([smhdw])?\s*$/i.exec(text);
  if (!m) return null;
  const seconds = Number(m[1]) * DURATION_UNITS[/** @type {keyof typeof DURATION_UNITS} */ ((m[2] ?? 's').toLowerCase())];
  return Number.isFinite(seconds) ? seconds : null;
}

/**
 * A duration given as seconds or as text (parseDuration), in seconds; null when it is neither.
 * @param {unknown} value
 * @returns {number | null}
 */
export function durationSeconds(value) {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : null;
  return typeof value === 'string' ? parseDuration(value) : null;
}

/**
 * Seconds in the largest unit that counts them whole: "1 day", "2 hours", "90 seconds".
 * @param {number} seconds
 */
export function formatDuration(seconds) {
  for (const [unit, name] of NAMES) {
    const size = DURATION_UNITS[unit];
    if (seconds >= size && seconds % size === 0) return `${seconds / size} ${name}${seconds === size ? '' : 's'}`;
  }
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

/**
 * A stable reason for an image that sharp could not decode.
 *
 * libvips collects decoder messages in one error buffer shared by its threads,
 * so the text sharp throws for a damaged file depends on what else was being
 * decoded at the time ("vipspng: libpng read error" once, twice, or only
 * "Warning treated as error due to failOn setting"). Reasons end up in the
 * summary and the cache, which must be the same from build to build, so any
 * message from libvips' buffer becomes one fixed phrase. sharp's own messages
 * ("Input image exceeds pixel limit", "Input buffer contains unsupported image
 * format") and pagediet's own are stable and kept.
 */

/**
 * A line that holds libvips' error buffer: a decoder's domain ("vipspng:",
 * "gifload:", "VipsJpeg:") at its start or after sharp's own words
 * ("Input buffer has corrupt header: gifload_buffer: ..."), sharp's failOn
 * wrapper, or sharp's corrupt-header line, whose tail is the buffer (empty
 * when another thread has just cleared it).
 */
const LIBVIPS_LINE = /(?:^|\s)(?:vips|Vips|[a-z0-9]+(?:load|save)\w*:)|failOn setting|^Input (?:buffer|file) has corrupt header/;

export const DAMAGED_IMAGE = 'damaged image data';

/**
 * @param {unknown} error
 * @returns {string}
 */
export function imageErrorReason(error) {
  const message = String(/** @type {Error} */ (error)?.message ?? error);
  const lines = message.split('\n').filter((line) => line.trim() !== '');
  if (lines.length === 0) return DAMAGED_IMAGE;
  return lines.some((line) => LIBVIPS_LINE.test(line)) ? DAMAGED_IMAGE : lines[0];
}

/**
 * Finds the URLs of a srcset attribute with their offsets, following the HTML
 * standard's "parse a srcset attribute" algorithm (URLs are runs of non-space
 * characters; trailing commas end a candidate; descriptors run to the next comma
 * outside parentheses).
 *
 * @param {string} value the attribute's raw text
 * @returns {{ start: number, end: number, descriptor: string }[]} URL ranges within value, with their
 *   descriptors' text ('' when none, '480w', '2x')
 */
export function srcsetUrls(value) {
  /** @type {{ start: number, end: number, descriptor: string }[]} */
  const urls = [];
  const isSpace = (/** @type {string} */ c) => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f';
  let i = 0;
  const n = value.length;
  while (i < n) {
    while (i < n && (isSpace(value[i]) || value[i] === ',')) i++;
    if (i >= n) break;
    const start = i;
    while (i < n && !isSpace(value[i])) i++;
    let end = i;
    if (value[end - 1] === ',') {
      while (end > start && value[end - 1] === ',') end--;
      if (end > start) urls.push({ start, end, descriptor: '' });
      continue;
    }
    const url = { start, end, descriptor: '' };
    urls.push(url);
    // Skip the descriptors, up to a comma that is not inside parentheses.
    let depth = 0;
    while (i < n) {
      const c = value[i];
      if (c === '(') depth++;
      else if (c === ')' && depth > 0) depth--;
      else if (c === ',' && depth === 0) break;
      i++;
    }
    url.descriptor = value.slice(end, i).trim();
  }
  return urls;
}

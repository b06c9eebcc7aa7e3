/**
 * The source map a script names: the URL of its last `//# sourceMappingURL=`
 * comment (or the older `//@`, or `/*# ... *\/`), as devtools read it.
 */

const COMMENT = /(?:\/\/[#@][ \t]+sourceMappingURL=([^\s'"]+)[ \t]*$|\/\*[#@][ \t]+sourceMappingURL=([^\s*'"]+)[ \t]*\*\/[ \t]*$)/gm;

/**
 * @param {string} text the script's text (URL characters are ASCII, so latin1 text of UTF-8 bytes serves)
 * @returns {string | null} the URL as written, or null when the script names no map
 */
export function sourceMappingUrl(text) {
  const at = text.lastIndexOf('sourceMappingURL=');
  if (at < 0) return null;
  // From the start of the line that holds the last one: a large file is not scanned from its start.
  COMMENT.lastIndex = text.lastIndexOf('\n', at) + 1;
  /** @type {string | null} */
  let url = null;
  for (let m = COMMENT.exec(text); m; m = COMMENT.exec(text)) url = m[1] ?? m[2];
  return url;
}

/**
 * Whether a source map URL is a map inline in the script, in the form
 * terser reads (base64 JSON).
 * @param {string} url
 */
export function isInlineMap(url) {
  return /^data:application\/json(;[\w=-]*)?;base64,/i.test(url);
}

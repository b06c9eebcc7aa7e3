/**
 * Content-coding negotiation: which of a file's representations (the file
 * itself and its precompressed `.br`, `.zst`, `.gz` sidecars) to send for a
 * request's Accept-Encoding, with q-values as RFC 9110 §12.5.3 defines them.
 */

/** Content codings in the order preferred when q-values tie: smallest first. */
export const CODING_PREFERENCE = /** @type {const} */ (['br', 'zstd', 'gzip', 'identity']);

/** @typedef {typeof CODING_PREFERENCE[number]} Coding */

/** Sidecar file extensions by content coding. */
export const SIDECAR_EXTENSIONS = /** @type {const} */ ({ br: 'br', zstd: 'zst', gzip: 'gz' });

/**
 * Chooses the coding to send, or null when none of the available ones is
 * acceptable (the caller answers 406).
 * @param {string | undefined} header the Accept-Encoding value, undefined when absent
 * @param {readonly Coding[]} available the codings the file has; identity is always there
 * @returns {Coding | null}
 */
export function chooseEncoding(header, available) {
  // No header allows any coding, but a client that says nothing may not
  // decode anything: identity is what servers send then.
  if (header === undefined) return available.includes('identity') ? 'identity' : null;
  const weights = parseAcceptEncoding(header);
  /** @type {Coding | null} */
  let best = null;
  let bestQ = -1;
  for (const coding of CODING_PREFERENCE) {
    if (!available.includes(coding)) continue;
    const q = quality(coding, weights);
    // Strictly greater: on a tie, the earlier coding in CODING_PREFERENCE stays.
    if (q !== null && q > bestQ) {
      best = coding;
      bestQ = q;
    }
  }
  return best;
}

/**
 * The weight of each coding named in the header, lower-cased; `x-gzip` is
 * gzip. Items with a malformed q-value are ignored.
 * @param {string} header
 * @returns {Map<string, number>}
 */
export function parseAcceptEncoding(header) {
  /** @type {Map<string, number>} */
  const weights = new Map();
  for (const item of header.split(',')) {
    const [name, ...params] = item.split(';').map((s) => s.trim());
    if (!name) continue;
    let q = 1;
    for (const param of params) {
      const match = /^q\s*=\s*(.*)$/i.exec(param);
      if (!match) continue;
      q = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(match[1]) ? Number(match[1]) : NaN;
    }
    if (Number.isNaN(q)) continue;
    const coding = name.toLowerCase() === 'x-gzip' ? 'gzip' : name.toLowerCase();
    if (!weights.has(coding)) weights.set(coding, q);
  }
  return weights;
}

/**
 * A coding's q-value, or null when it is not acceptable. Identity that the
 * header neither names nor covers with `*` is acceptable but least wanted (0).
 * @param {Coding} coding
 * @param {Map<string, number>} weights
 * @returns {number | null}
 */
function quality(coding, weights) {
  const q = weights.get(coding) ?? weights.get('*');
  if (q !== undefined) return q > 0 ? q : null;
  return coding === 'identity' ? 0 : null;
}

/**
 * `_headers` (Netlify, Cloudflare Pages): these hosts compress responses
 * themselves and cannot serve .br/.gz sidecars, so the file sets only the
 * cache headers: a year for each fingerprinted file, revalidation for each
 * page (and its directory's URL when it is an index), listed one by one
 * because path patterns differ between hosts.
 */
import { CONFIGS_DIR, IMMUTABLE, REVALIDATE, headerComment, isFingerprinted, isPage, isSidecar, urlPath } from './shared.js';

/** @param {import('./shared.js').SiteFacts} facts */
export function headersConfig(facts) {
  const files = facts.files.filter((f) => !isSidecar(f) && !f.startsWith(`${CONFIGS_DIR}/`));
  /** @type {string[]} */
  const blocks = [];
  for (const f of files) {
    if (isFingerprinted(f)) blocks.push(`${urlPath(f)}\n  Cache-Control: ${IMMUTABLE}\n`);
    else if (isPage(f)) {
      const base = f.slice(f.lastIndexOf('/') + 1);
      if (base === 'index.html') blocks.push(`${urlPath(f.slice(0, -'index.html'.length)).replace(/\/+$/, '')}/\n  Cache-Control: ${REVALIDATE}\n`);
      blocks.push(`${urlPath(f)}\n  Cache-Control: ${REVALIDATE}\n`);
    }
  }
  return `${headerComment('#', [
    '_headers for hosts that read one (Netlify, Cloudflare Pages).',
    '',
    'Copy it to the root of the published directory as _headers. These hosts compress',
    'responses themselves and do not serve .br/.gz files: this file sets only Cache-Control.',
    'Delete the .br and .gz files before publishing there, or build with --skip precompress.',
  ])}
${blocks.join('')}`;
}

/**
 * `_headers` (Netlify, Cloudflare Pages): these hosts compress responses
 * themselves and cannot serve .br/.gz sidecars, so the file sets only the
 * cache headers: a year for fingerprinted files, revalidation for each page
 * (and its directory's URL when it is an index), with a page's image and font
 * preloads as `Link` headers (page-preloads.js). A folder whose files are
 * all fingerprinted (a bundler's assets/) is one rule, `/assets/*`; other
 * fingerprinted files are listed one by one. No catch-all rule: both hosts
 * join the values of every rule that matches a path, so a default would
 * spoil the others (each host's own default applies to the rest).
 */
import { CONFIGS_DIR, IMMUTABLE, REVALIDATE, cachePolicy, headerComment, isSidecar, urlPath } from './shared.js';

/** Cloudflare Pages reads at most this many rules from a _headers file. */
const CLOUDFLARE_RULES = 100;

/** @param {import('./shared.js').SiteFacts} facts */
export function headersConfig(facts) {
  const files = facts.files.filter((f) => !isSidecar(f) && !f.startsWith(`${CONFIGS_DIR}/`));
  const folders = immutableFolders(files);
  /** @type {string[]} */
  const blocks = [];
  /** @param {string} url @param {string} value @param {string[]} [links] Link header values */
  const rule = (url, value, links = []) => blocks.push(`${url}\n  Cache-Control: ${value}\n${links.map((link) => `  Link: ${link}\n`).join('')}`);
  const emitted = new Set();
  for (const f of files) {
    const policy = cachePolicy(f);
    if (policy === 'immutable') {
      const folder = folders.find((d) => f.startsWith(`${d}/`));
      if (!folder) rule(urlPath(f), IMMUTABLE);
      else if (!emitted.has(folder)) {
        emitted.add(folder);
        rule(`${urlPath(folder)}/*`, IMMUTABLE);
      }
    } else if (policy === 'revalidate') {
      const base = f.slice(f.lastIndexOf('/') + 1);
      const links = facts.preloads.get(f);
      if (base === 'index.html') rule(`${urlPath(f.slice(0, -'index.html'.length)).replace(/\/+$/, '')}/`, REVALIDATE, links);
      rule(urlPath(f), REVALIDATE, links);
    }
  }
  return `${headerComment('#', [
    '_headers for hosts that read one (Netlify, Cloudflare Pages).',
    '',
    'Copy it to the root of the published directory as _headers. These hosts compress',
    'responses themselves and do not serve .br/.gz files: this file sets only Cache-Control,',
    'a year for fingerprinted names (a folder of them as /folder/*), no-cache for pages; other',
    'files keep the host\'s default. A page that preloads images or fonts sends the preloads as Link',
    'headers too (Cloudflare Pages turns them into 103 Early Hints). Delete the .br and .gz files',
    'before publishing there, or build with --skip precompress.',
    ...(blocks.length > CLOUDFLARE_RULES ? [`${blocks.length} rules: Cloudflare Pages reads the first ${CLOUDFLARE_RULES} only.`] : []),
  ])}
${blocks.join('')}`;
}

/**
 * The outermost folders (never the root) whose every file is fingerprinted.
 * @param {string[]} files site paths, no sidecars
 * @returns {string[]}
 */
function immutableFolders(files) {
  /** Per folder: whether every file beneath it is fingerprinted. @type {Map<string, boolean>} */
  const all = new Map();
  for (const f of files) {
    const fingerprinted = cachePolicy(f) === 'immutable';
    const parts = f.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) {
      const folder = parts.slice(0, i).join('/');
      all.set(folder, (all.get(folder) ?? true) && fingerprinted);
    }
  }
  const folders = [...all].filter(([, yes]) => yes).map(([d]) => d);
  return folders.filter((d) => !folders.some((outer) => d.startsWith(`${outer}/`)));
}

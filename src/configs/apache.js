/**
 * Apache: an `.htaccess` for the root of the built site (the same lines
 * work in a <Directory> block). mod_rewrite sends x.css.br or x.css.gz in
 * place of x.css when the client accepts that coding; mod_mime is told that
 * .gz, .br and .zst are codings, not types or a language (and, for a UTF-8
 * site, that text types are UTF-8); mod_deflate is told to leave the
 * sidecars alone; mod_headers adds Vary and Cache-Control; mod_http2 sends
 * each page's image and font preloads as 103 Early Hints.
 */
import { COMPRESSIBLE, CONFIGS_DIR, IMMUTABLE, PAGE_EXTENSIONS, REVALIDATE, SHORT, TEXT_TYPES, charsetComment, fingerprintPattern, headerComment } from './shared.js';

/**
 * Matches a coding in Accept-Encoding unless its q is 0 ("gzip;q=0, br" refuses gzip).
 * @param {string} coding
 */
export function acceptsPattern(coding) {
  return `(^|,)\\s*${coding}\\s*(,|$|;(?!\\s*q\\s*=\\s*0(\\.0*)?\\s*(,|$)))`;
}

/** @param {import('./shared.js').SiteFacts} facts */
export function apacheConfig(facts) {
  const types = COMPRESSIBLE.join('|');
  /** @type {[string, string][]} coding, extension; in the order they are preferred */
  const codings = [['br', 'br'], ...(facts.zstd ? [/** @type {[string, string]} */ (['zstd', 'zst'])] : []), ['gzip', 'gz']];
  const sidecars = codings.map(([, ext]) => ext).join('|');
  const rules = codings.map(([coding, ext]) => [
    `    RewriteCond "%{HTTP:Accept-Encoding}" "${acceptsPattern(coding)}"`,
    `    RewriteCond "%{REQUEST_FILENAME}.${ext}" -f`,
    `    RewriteRule "\\.(${types})$" "%{REQUEST_URI}.${ext}" [L]`,
  ].join('\n')).join('\n\n');
  const charset = facts.charset
    ? `
    # charset=utf-8 on the text types (x.css.gz is .css too: it gets it as well).
    AddCharset utf-8 ${Object.keys(TEXT_TYPES).map((e) => `.${e}`).join(' ')}
`
    : '';
  return `${headerComment('#', [
    'Apache .htaccess that serves a pagediet build with its precompressed files.',
    '',
    'Copy it to the root of the built site as .htaccess (or put its lines in the <Directory>',
    'block of that root). Needs Apache 2.4 (tested with 2.4.71 on Debian) with mod_rewrite,',
    'mod_headers and mod_mime (Debian: a2enmod rewrite headers), and, for the root directory,',
    'AllowOverride FileInfo (rewrites, types, encodings, headers) and Options FollowSymLinks',
    'or SymLinksIfOwnerMatch (mod_rewrite needs one of them).',
    ...(facts.preloads.size ? ['Pages that preload images or fonts send them as 103 Early Hints over HTTP/2: that needs', 'mod_http2 and H2EarlyHints on in the server or virtual host config.'] : []),
    ...charsetComment(facts),
  ])}

<IfModule mod_rewrite.c>
    RewriteEngine On

    # Older pagediet builds wrote their configs into the site: never serve them.
    RewriteRule "^${CONFIGS_DIR}/" - [R=404,L]

    # x.css.br (or .gz) in place of x.css when the client accepts that coding (q=0 refuses it)
    # and the sidecar exists. The preferred coding comes first.
${rules}

    # A sidecar is already compressed: mod_deflate (and mod_brotli) must not compress it again.
    RewriteRule "\\.(${sidecars})$" - [E=no-gzip:1,E=no-brotli:1]
</IfModule>

<IfModule mod_mime.c>
    # Only for sidecars, so that a download such as x.tar.gz keeps its type and no coding.
    <FilesMatch "\\.(${types})\\.(${sidecars})$">
        # Codings, not types: without RemoveType, x.css.gz is sent as application/gzip (Debian's
        # mime.types) instead of text/css. Without RemoveLanguage, .br is Breton: x.html.br
        # gets Content-Language: br.
        RemoveType .gz .br .zst
        RemoveLanguage .br
        AddEncoding gzip .gz
        AddEncoding br .br
        AddEncoding zstd .zst
    </FilesMatch>
${charset}</IfModule>

<IfModule mod_headers.c>
    # Compressed and identity responses of a compressible file alike, so no shared cache hands
    # compressed bytes to a client that cannot read them.
    <FilesMatch "\\.(${types})(\\.(${sidecars}))?$">
        Header merge Vary "Accept-Encoding"
    </FilesMatch>
    # Cache-Control: an hour then revalidation by default, a year for fingerprinted names,
    # revalidation on every use for pages. Later sections win.
    Header set Cache-Control "${SHORT}"
    <FilesMatch "${fingerprintPattern(`(\\.(${sidecars}))?$`)}">
        Header set Cache-Control "${IMMUTABLE}"
    </FilesMatch>
    <FilesMatch "\\.(${PAGE_EXTENSIONS.join('|')})(\\.(${sidecars}))?$">
        Header set Cache-Control "${REVALIDATE}"
    </FilesMatch>
</IfModule>
${earlyHints(facts.preloads)}`;
}

/**
 * The `<If>` blocks that give each page's preloads to mod_http2 as 103 Early Hints, or '' when no page has one.
 * A page is matched by its path as the request's, after DirectoryIndex made `/docs/` into `/docs/index.html`
 * (such a request gets the hints twice in its one 103: a browser fetches each once). A page whose path a
 * quoted expression cannot hold as written is left out.
 * @param {Map<string, string[]>} preloads the `Link` values of each page's image and font preloads, by site path
 */
function earlyHints(preloads) {
  const pages = [...preloads].filter(([page]) => /^[\w./~ -]+$/u.test(page));
  if (!pages.length) return '';
  const quoted = (/** @type {string} */ value) => `"${value.replace(/["\\]/g, '\\$&')}"`;
  const blocks = pages.map(([page, links]) => [
    `    <If "%{REQUEST_URI} == '/${page}'">`,
    ...links.map((link) => `        H2EarlyHint Link ${quoted(link)}`),
    '    </If>',
  ].join('\n'));
  return `
<IfModule mod_http2.c>
    # 103 Early Hints over HTTP/2: each page's image and font preloads, before the page's response.
    # Needs H2EarlyHints on in the server or virtual host config (an .htaccess cannot turn it on).
${blocks.join('\n')}
</IfModule>
`;
}

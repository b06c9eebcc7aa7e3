/**
 * nginx: a snippet to `include` inside the `server {}` block whose `root`
 * is the built site, and an optional second one for the brotli module.
 * gzip_static (built into stock nginx) serves the .gz files; brotli_static
 * (the ngx_brotli module, which stock nginx lacks and which makes
 * `brotli_static` an unknown directive) the .br files, so it is a file of
 * its own, included only where the module is loaded. nginx has no
 * zstd_static, so .zst files are not served. Cache-Control is chosen with
 * server-level `if`/`set` (safe: only rewrite-module directives inside) and
 * one `add_header`, so the snippet adds no `location` that could shadow the
 * site's own (but the one that refuses an older build's configs).
 */
import { CONFIGS_DIR, FINGERPRINT_PATTERN, IMMUTABLE, PAGE_EXTENSIONS, REVALIDATE, SHORT, TEXT_TYPES, charsetComment, headerComment } from './shared.js';

/** The Content-Types nginx's mime.types gives the text types (text/html is always in charset_types). */
const NGINX_TEXT_TYPES = ['text/css', 'application/javascript', 'text/javascript', 'image/svg+xml', 'application/json', 'text/plain', 'text/xml', 'application/xml'];

/** @param {import('./shared.js').SiteFacts} facts */
export function nginxConfig(facts) {
  const charset = facts.charset
    ? `
# charset=utf-8 on the text types (${Object.keys(TEXT_TYPES).join(', ')}); nginx adds it to text/html always.
charset utf-8;
charset_types ${NGINX_TEXT_TYPES.join(' ')};
`
    : '';
  return `${headerComment('#', [
    'nginx snippet that serves a pagediet build with its precompressed files.',
    '',
    'Include it inside the server {} block whose root is the built site:',
    '    server { listen 80; root /srv/site; include /srv/site-configs/nginx.conf; }',
    'Needs nginx 1.9 or newer (tested with 1.22.1) and nothing but stock modules: gzip_static',
    'serves the .gz files. The .br files need the ngx_brotli static module: where it is loaded',
    '(Debian: libnginx-mod-http-brotli-static; elsewhere, at the top of nginx.conf,',
    '`load_module modules/ngx_http_brotli_static_module.so;`), also include nginx-brotli.conf,',
    'next to this file. Without the module, that file is an error (unknown directive) and the',
    `.gz files are served alone.${facts.zstd ? ' nginx has no zstd_static module: the .zst files are not served.' : ''}`,
    ...charsetComment(facts),
    'A location {} of your own that has add_header replaces the Cache-Control set here (nginx',
    'does not merge add_header into locations that have their own): copy the add_header line into it.',
  ])}

# x.css.gz beside x.css is sent, with x.css's type, to clients that accept gzip.
gzip_static on;
# Without gzip_vary, gzip_static (and brotli_static) send no Vary: Accept-Encoding, and a shared
# cache could hand compressed bytes to a client that cannot read them. With it, compressed and
# identity responses of a file that has a sidecar both carry it.
gzip_vary on;
${charset}
# Cache-Control: an hour then revalidation by default, a year for fingerprinted names,
# revalidation on every use for pages (and directory URLs, whose answer is an index page).
set $pagediet_cache_control "${SHORT}";
if ($uri ~ "${FINGERPRINT_PATTERN}") {
    set $pagediet_cache_control "${IMMUTABLE}";
}
if ($uri ~* "\\.(${PAGE_EXTENSIONS.join('|')})$") {
    set $pagediet_cache_control "${REVALIDATE}";
}
if ($uri ~ "/$") {
    set $pagediet_cache_control "${REVALIDATE}";
}
add_header Cache-Control $pagediet_cache_control;

# Older pagediet builds wrote their configs into the site: never serve them.
location ^~ /${CONFIGS_DIR}/ {
    return 404;
}
`;
}

/** The optional include for the ngx_brotli static module: the same for every site. */
export function nginxBrotliConfig() {
  return `${headerComment('#', [
    'nginx snippet that also serves the .br files of a pagediet build. NEEDS ngx_brotli.',
    '',
    'Include it after nginx.conf, in the same server {} block, only where the ngx_brotli static',
    'module is loaded (Debian: libnginx-mod-http-brotli-static, which loads it from',
    '/etc/nginx/modules-enabled; elsewhere, at the top of nginx.conf:',
    '    load_module modules/ngx_http_brotli_static_module.so;',
    'Without the module, nginx refuses to start: "unknown directive brotli_static".',
    '    server { root /srv/site; include /srv/site-configs/nginx.conf; include /srv/site-configs/nginx-brotli.conf; }',
    'x.css.br is then sent in place of x.css to clients that accept br; gzip_vary (in nginx.conf)',
    'sends Vary for it too.',
  ])}

brotli_static on;
`;
}

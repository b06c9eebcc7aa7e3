/**
 * nginx: a snippet to `include` inside the `server {}` block whose `root`
 * is the built site. gzip_static (built into Debian's nginx) serves the .gz
 * files, brotli_static (the ngx_brotli module) the .br files; nginx has no
 * zstd_static, so .zst files are not served. Cache-Control is chosen with
 * server-level `if`/`set` (safe: only rewrite-module directives inside) and
 * one `add_header`, so the snippet adds no `location` that could shadow the
 * site's own.
 */
import { CONFIGS_DIR, FINGERPRINT_PATTERN, IMMUTABLE, PAGE_EXTENSIONS, REVALIDATE, headerComment } from './shared.js';

/** @param {import('./shared.js').SiteFacts} facts */
export function nginxConfig(facts) {
  return `${headerComment('#', [
    'nginx snippet that serves a pagediet build with its precompressed files.',
    '',
    'Include it inside the server {} block whose root is the built site:',
    '    server { listen 80; root /srv/site; include /srv/site-configs/nginx.conf; }',
    'Needs nginx 1.9 or newer (tested with 1.22.1). gzip_static is built into Debian\'s nginx;',
    'brotli_static needs the ngx_brotli static module (Debian: libnginx-mod-http-brotli-static,',
    'which enables it in /etc/nginx/modules-enabled). Elsewhere, at the top of nginx.conf:',
    '    load_module modules/ngx_http_brotli_static_module.so;',
    `Without that module, delete the brotli_static line and .gz files are served alone.${facts.zstd ? '\n# nginx has no zstd_static module: the .zst files are not served.' : ''}`,
    'A location {} of your own that has add_header replaces the Cache-Control set here (nginx',
    'does not merge add_header into locations that have their own): copy the add_header line into it.',
  ])}

# x.css.br, x.css.gz beside x.css are sent, with x.css's type, to clients that accept them.
brotli_static on;
gzip_static on;
# Without gzip_vary, gzip_static and brotli_static send no Vary: Accept-Encoding, and a shared
# cache could hand compressed bytes to a client that cannot read them. With it, compressed and
# identity responses of a file that has a sidecar both carry it.
gzip_vary on;

# Cache-Control: a year for fingerprinted names, revalidation for pages, nothing for the rest.
set $pagediet_cache_control "";
if ($uri ~* "\\.(${PAGE_EXTENSIONS.join('|')})$") {
    set $pagediet_cache_control "${REVALIDATE}";
}
if ($uri ~ "/$") {
    set $pagediet_cache_control "${REVALIDATE}";
}
if ($uri ~ "${FINGERPRINT_PATTERN}") {
    set $pagediet_cache_control "${IMMUTABLE}";
}
add_header Cache-Control $pagediet_cache_control;

# pagediet writes these configs into the build; they are not part of the site.
location ^~ /${CONFIGS_DIR}/ {
    return 404;
}
`;
}

/**
 * Caddy: a snippet to `import` inside a site block that sets `root`. Its
 * file_server serves the sidecars by Accept-Encoding and sends
 * Vary: Accept-Encoding itself. Caddy 2.6 needs the encodings listed after
 * `precompressed` (later versions default to all of them).
 */
import { COMPRESSIBLE, CONFIGS_DIR, FINGERPRINT_PATTERN, IMMUTABLE, PAGE_EXTENSIONS, REVALIDATE, headerComment } from './shared.js';

/** @param {import('./shared.js').SiteFacts} facts */
export function caddyConfig(facts) {
  const encodings = facts.zstd ? 'br zstd gzip' : 'br gzip';
  return `${headerComment('#', [
    'Caddyfile snippet that serves a pagediet build with its precompressed files.',
    '',
    'Import it inside the site block that sets root, in place of its file_server:',
    '    example.com {',
    '        root * /srv/site',
    '        import /srv/site-configs/caddy.conf',
    '    }',
    'Needs Caddy 2.6 or newer (tested with 2.6.2); no extra modules. If the site block also has',
    '`encode`, it leaves these responses alone: they already have a Content-Encoding.',
  ])}

# pagediet writes these configs into the build; they are not part of the site.
@pagediet_configs path /${CONFIGS_DIR}/*
respond @pagediet_configs 404

# Cache-Control: a year for fingerprinted names, revalidation for pages.
@pagediet_immutable path_regexp ${FINGERPRINT_PATTERN}
header @pagediet_immutable Cache-Control "${IMMUTABLE}"
@pagediet_pages path ${PAGE_EXTENSIONS.map((e) => `*.${e}`).join(' ')} */
header @pagediet_pages Cache-Control "${REVALIDATE}"

# file_server sends Vary only with a sidecar; identity responses of the same files need it too,
# or a shared cache could keep one for every client. Deferred, so it replaces file_server's own.
@pagediet_compressible path ${COMPRESSIBLE.map((e) => `*.${e}`).join(' ')} */
header @pagediet_compressible {
	Vary Accept-Encoding
	defer
}

file_server {
	# x.css.br, x.css.gz beside x.css, by the client's Accept-Encoding, with x.css's type and
	# Vary: Accept-Encoding. Caddy 2.6 uses only the encodings named here.
	precompressed ${encodings}
}
`;
}

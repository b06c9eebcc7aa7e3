/**
 * Caddy: a snippet to `import` inside a site block that sets `root`. Its
 * file_server serves the sidecars by Accept-Encoding and sends
 * Vary: Accept-Encoding itself. Caddy 2.6 needs the encodings listed after
 * `precompressed` (later versions default to all of them).
 */
import { COMPRESSIBLE, CONFIGS_DIR, IMMUTABLE, PAGE_EXTENSIONS, REVALIDATE, SHORT, TEXT_TYPES, charsetComment, fingerprintRules, headerComment } from './shared.js';

/**
 * The fingerprint rules as a CEL expression (Caddy's `expression` matcher):
 * RE2 has no lookahead, so each rule's regular expressions are joined by `&&`.
 */
export function caddyFingerprintExpression() {
  /** A CEL string literal: backslashes and quotes escaped. @param {string} re */
  const literal = (re) => `"${re.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  return fingerprintRules().map((all) => `(${all.map((re) => `{path}.matches(${literal(re)})`).join(' && ')})`).join(' || ');
}

/** @param {import('./shared.js').SiteFacts} facts */
export function caddyConfig(facts) {
  const encodings = facts.zstd ? 'br zstd gzip' : 'br gzip';
  // Caddy (Go's mime table) sends text/* as charset=utf-8 by itself: a site in another charset gets the bare types.
  const contentTypes = Object.entries(TEXT_TYPES).map(([ext, type]) => [
    `@pagediet_type_${ext} path *.${ext}${ext === 'html' ? ' */' : ''}`,
    `header @pagediet_type_${ext} Content-Type "${type}${facts.charset ? '; charset=utf-8' : ''}"`,
  ].join('\n')).join('\n');
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
    ...charsetComment(facts),
  ])}

# Older pagediet builds wrote their configs into the site: never serve them.
@pagediet_configs path /${CONFIGS_DIR}/*
respond @pagediet_configs 404

# Cache-Control: an hour then revalidation unless set below ("?": only when no other is),
# a year for fingerprinted names (never pages), revalidation on every use for pages.
header ?Cache-Control "${SHORT}"
@pagediet_immutable expression \`(${caddyFingerprintExpression()}) && !{path}.matches("(?i)\\\\.(${PAGE_EXTENSIONS.join('|')})$")\`
header @pagediet_immutable Cache-Control "${IMMUTABLE}"
@pagediet_pages path ${PAGE_EXTENSIONS.map((e) => `*.${e}`).join(' ')} */
header @pagediet_pages Cache-Control "${REVALIDATE}"

# Content-Type of the text types, ${facts.charset ? 'with charset=utf-8' : 'without a charset (the pages declare theirs)'}; file_server keeps one set here.
${contentTypes}

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

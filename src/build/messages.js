/**
 * Every message a build gives, by its code: its severity and what a group of
 * such messages is about. A message is an `error` when the build could not do
 * something it should have, a `warning` when the user should act on it (a
 * broken reference, a file pagediet cannot read), and `info` when it is what
 * pagediet noticed about the input (markup browsers repair, CSS it left as it
 * is). Information is counted in the terminal's summary and listed in --json,
 * the HTML report and with --verbose; it is never printed line by line.
 */

/** @typedef {'error' | 'warning' | 'info'} Severity */

/**
 * @typedef {object} MessageCode
 * @property {Severity} severity
 * @property {string} about what the messages of a group are about, without a file or a figure
 */

/** @type {(severity: Severity, about: string) => MessageCode} */
const code = (severity, about) => ({ severity, about });

/** The codes. A code not listed here is a warning about itself (a pass of the user's may warn with any code). */
export const MESSAGE_CODES = /** @type {const} */ ({
  // What the site model found reading the input.
  'unreadable': code('warning', 'files pagediet cannot read: copied as far as they can be'),
  'skipped-unreadable': code('warning', 'files or folders pagediet cannot read: not in the output'),
  'skipped-broken-link': code('warning', 'symlinks to nothing: not in the output'),
  'skipped-outside-root': code('info', 'symlinks out of the input: not followed'),
  'skipped-special': code('info', 'sockets, devices or FIFOs: skipped'),
  'empty-file': code('warning', 'empty pages or images, copied as they are'),
  'not-an-image': code('warning', 'files named as images whose bytes are no image'),
  'not-html': code('warning', 'files named as pages that are not HTML'),
  'image-mislabelled': code('info', 'images whose name says another format than their bytes'),
  'gif-frame-smaller': code('info', 'GIFs whose first frame is smaller than their screen'),
  'svg-script': code('info', 'SVG with scripts or event handlers: never rendered by pagediet'),
  'markup-repaired': code('info', 'markup browsers repair'),
  'css-unterminated-comment': code('info', 'style sheets with a comment never closed'),
  'frame-loop': code('info', 'frames that contain each other'),
  'import-cycle': code('info', '@import cycles'),
  'integrity-stale': code('info', 'integrity attributes that name other bytes than their file\'s: browsers refuse the file; left as they are'),
  'config-exists': code('info', 'server configs in the input, or files of their names pagediet did not write: kept'),
  'no-pages': code('warning', 'no page in the input'),
  'cache-lost': code('info', 'builds whose cache lost what a replayed pass wrote: built again without replaying'),
  // References.
  'reference-missing': code('warning', 'references to files that do not exist'),
  'reference-escapes': code('warning', 'references that leave the site root'),
  'reference-invalid': code('warning', 'references that are not usable URLs'),
  'reference-ambiguous': code('warning', 'references that match several files'),
  'links-missing': code('info', 'links to pages not in the site'),
  // What passes left as it is, and why.
  'css-invalid': code('info', 'CSS csso cannot parse: kept as it is'),
  'css-would-lose': code('info', 'CSS minifying would change: kept as it is'),
  'css-charset': code('info', 'CSS in a charset pagediet does not rewrite: kept as it is'),
  'css-csso-failed': code('error', 'CSS on which csso failed: kept as it is'),
  'svg-entities': code('info', 'SVG with entities: kept as it is'),
  'svg-file-reference': code('info', 'SVG that names file: URLs: kept as it is'),
  'svg-invalid': code('info', 'SVG that is not well-formed XML: kept as it is'),
  'svg-changed-rendering': code('info', 'SVG svgo would draw differently: kept as it is'),
  'svg-would-lose': code('info', 'pages whose inline SVG would lose a reference: kept as they are'),
  'html-case-xml': code('info', 'XML documents: names left as they are'),
  'script-unparsable': code('info', 'scripts terser cannot parse: copied unchanged'),
  'script-would-break': code('info', 'pages whose scripts would change: copied unchanged'),
  'script-source-map-invalid': code('warning', 'source maps that are not JSON: scripts copied unchanged'),
  'script-minify-failed': code('error', 'scripts on which terser failed: copied unchanged'),
  'layout-changed': code('info', 'pages where image markup moved a box: left as they are'),
  'layout-failed': code('error', 'pages Chromium could not measure: their images and markup left as they are'),
  'font-reference-changed': code('info', 'font rules whose references would change: kept'),
  'font-not-a-font': code('warning', 'font files that are no font'),
  'font-woff2-failed': code('error', 'fonts no WOFF2 could be made of'),
  'font-subset-failed': code('error', 'fonts that could not be subset'),
  'image-unreadable': code('warning', 'images pagediet cannot decode: left as they are'),
  'image-repaired': code('info', 'images whose damage decoders repair'),
  'sidecar-exists': code('warning', 'precompressed files already in the input: kept, they may not match'),
  'compress-failed': code('error', 'files a compressor failed on'),
  'compress-mismatch': code('error', 'compressed files that do not decode to their file: not written'),
  'minify-html-failed': code('error', 'pages the HTML minifier failed on: kept as they are'),
  'render-failed': code('error', 'text images the browser could not render: kept'),
  'job-failed': code('error', 'files whose job failed or stopped: kept as they are'),
  'text-undrawable': code('warning', 'text images whose text cannot be drawn to compare: kept'),
  // The build's tools.
  'no-browser': code('warning', 'no browser to prove replacements in: text images kept'),
  'integrity-updated': code('info', 'pages whose integrity attributes now name the new bytes of the files passes changed'),
  'browser-fallback': code('info', 'browsers that did not start: another one was used'),
  'zstd-unavailable': code('warning', 'no zstd in this Node.js: no .zst files'),
  'configs-shard': code('info', 'shards write no server configs'),
});

/**
 * @param {string} name a message's code
 * @returns {MessageCode}
 */
export function messageCode(name) {
  return Object.hasOwn(MESSAGE_CODES, name) ? MESSAGE_CODES[/** @type {keyof typeof MESSAGE_CODES} */ (name)] : { severity: 'warning', about: name };
}

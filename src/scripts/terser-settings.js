/**
 * Terser's settings, one place for the pass (which gives them to the worker
 * job, so they are part of the job's cache key and of the pass's code
 * fingerprint) and for docs/scripts.md, which says why each is what it is.
 */

/**
 * Terser's settings for one script. Only what differs from terser's
 * defaults is set; no `unsafe*` option is on (they are off by default).
 * @param {{ module: boolean, asciiOnly: boolean }} script asciiOnly: every non-ASCII character written as an escape,
 *   for bytes a browser may read in another charset
 * @returns {import('terser').MinifyOptions}
 */
export function terserSettings({ module, asciiOnly }) {
  return {
    // A module's top-level scope is its own (mangled, unused names dropped); a classic script's is the page's global scope.
    module,
    toplevel: module,
    // Compress forms newer than ES5 are never introduced: what is newer in the output was in the input.
    ecma: 5,
    // Output that Safari 10 and 11 run as they ran the input (their `let` in loops bug).
    safari10: true,
    // Function.prototype.name of declared functions and classes stays what it was.
    keep_fnames: true,
    keep_classnames: true,
    compress: {
      // A property read may run a getter (offsetHeight forces a layout): never dropped as if it did nothing.
      pure_getters: false,
      // `typeof x == "undefined"` is not rewritten to `x === void 0` (host objects of IE10 and older differ).
      typeofs: false,
    },
    format: {
      // Licence comments stay: /*! ... */, @license, @preserve, @copyright, @cc_on.
      comments: 'some',
      ascii_only: asciiOnly,
      // "</script" and "<!--" in strings are written escaped, so the text can sit in a <script> block.
      inline_script: true,
    },
  };
}

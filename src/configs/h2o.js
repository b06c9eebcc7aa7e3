/**
 * h2o: the YAML of the paths that serve the built site, to paste under a
 * host's `paths:`. `file.send-compressed` serves the .br and .gz sidecars
 * (h2o 2.2 knows no .zst). h2o matches paths by prefix and picks the
 * longest, with no patterns: so the site's root revalidates everything
 * (`no-cache`, pages included, where the other servers give files that are
 * neither pages nor fingerprinted an hour) and each fingerprinted file gets
 * a path of its own with the year-long header, listed from the site's files
 * (write the config again when the site changes; `pagediet build` does).
 * h2o 2.2 sends sidecars only to HTTP/1.1 and HTTP/2 requests (its file
 * handler looks for them from version 1.1 on): an HTTP/1.0 client gets the
 * uncompressed file.
 */
import { CONFIGS_DIR, IMMUTABLE, REVALIDATE, TEXT_TYPES, cachePolicy, charsetComment, headerComment, isSidecar } from './shared.js';

/**
 * @param {import('./shared.js').SiteFacts} facts
 * @param {string} root absolute directory of the built site
 */
export function h2oConfig(facts, root) {
  const fingerprinted = facts.files.filter((f) => !isSidecar(f) && !f.startsWith(`${CONFIGS_DIR}/`) && cachePolicy(f) === 'immutable');
  /** For a UTF-8 site, the text types with their charset, in every entry (h2o's types are per path). */
  const types = facts.charset ? Object.entries(TEXT_TYPES).map(([ext, type]) => `    ${JSON.stringify(`${type}; charset=utf-8`)}: ".${ext}"\n`).join('') : '';
  /**
   * A path entry; every entry serves sidecars.
   * @param {string} urlPath decoded, as h2o matches it
   * @param {Record<string, string>} settings
   */
  const pathEntry = (urlPath, settings) => {
    const lines = Object.entries(settings).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}\n`);
    return `${JSON.stringify(urlPath)}:\n${lines.join('')}  file.send-compressed: ON\n${types ? `  file.mime.addtypes:\n${types}` : ''}`;
  };
  const entries = fingerprinted.map((f) => pathEntry(`/${f}`, { 'file.file': `${root}/${f}`, 'header.set': `cache-control: ${IMMUTABLE}` }));
  return `${headerComment('#', [
    'h2o paths that serve a pagediet build with its precompressed files.',
    '',
    'Paste them under the paths: of a host, indented to its level. Needs h2o 2.2 or newer',
    '(tested with 2.2.5); no extra modules. h2o matches paths by prefix, without patterns:',
    'every file revalidates (no-cache) but the fingerprinted ones, listed one by one with a',
    'year-long Cache-Control; write this file again when the site changes. h2o serves no .zst.',
    ...charsetComment(facts),
  ])}
${entries.join('')}${pathEntry(`/${CONFIGS_DIR}/`, { 'file.dir': `${root}/.${CONFIGS_DIR}-not-served` })}${pathEntry('/', { 'file.dir': root, 'header.set': `cache-control: ${REVALIDATE}` })}`;
}

/**
 * What a <script> element is, read from its type and language attributes the
 * way the HTML standard's "prepare the script element" step reads them: a
 * classic script, a module, or something else (JSON, an import map,
 * speculation rules, a template, any unknown type), which is data and never
 * minified.
 */
import { asciiLower } from '../markup/names.js';

/** The JavaScript MIME type essences (HTML standard, "JavaScript MIME type"). */
const JAVASCRIPT_TYPES = new Set([
  'application/ecmascript', 'application/javascript', 'application/x-ecmascript', 'application/x-javascript',
  'text/ecmascript', 'text/javascript', 'text/javascript1.0', 'text/javascript1.1', 'text/javascript1.2',
  'text/javascript1.3', 'text/javascript1.4', 'text/javascript1.5', 'text/jscript', 'text/livescript',
  'text/x-ecmascript', 'text/x-javascript',
]);

/**
 * @param {Record<string, string>} attribs the element's attributes, names lower case, values decoded
 * @returns {'classic' | 'module' | null} null: not a script the browser runs as JavaScript
 */
export function scriptType(attribs) {
  const type = attribs.type;
  const language = attribs.language;
  // No type (or an empty one) and no language (or an empty one): text/javascript.
  if (type === '' || (type === undefined && !language)) return 'classic';
  const given = type ?? `text/${language}`;
  // Leading and trailing ASCII whitespace goes; parameters do not (text/javascript;charset=utf-8 does not run).
  const essence = asciiLower(given.replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, ''));
  if (JAVASCRIPT_TYPES.has(essence)) return 'classic';
  if (essence === 'module') return 'module';
  return null;
}

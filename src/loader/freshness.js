/**
 * A browser's HTTP cache, as RFC 9111 has a private cache decide: whether a
 * response may be stored, how long it stays fresh, how old it is, whether a
 * stored response answers a new request (Vary), and whether it is used as it
 * is, revalidated, or not used at all. Small pure functions of header fields
 * and times; the robot's cache (client.js) is built on them.
 *
 * Where RFC 9111 leaves the choice to the cache, the robot does what
 * Chromium's cache does (net/http/http_response_headers.cc,
 * GetFreshnessLifetimes and GetCurrentAge): Chromium is the engine most
 * visitors' browsers run, and the one pagediet proves its pages in.
 *
 * - Heuristic freshness (§4.2.2): a response with no explicit lifetime
 *   (no max-age, no Expires) and a Last-Modified is fresh for 10% of the
 *   time between its Last-Modified and its Date, with no upper bound, unless
 *   it says must-revalidate; a Last-Modified after the Date gives none.
 *   Firefox takes the same 10% but caps it at a week. Chromium gives it to
 *   200, 203 and 206 only; the robot follows the RFC's list, every status
 *   RFC 9110 §15.1 makes cacheable by default (it stores only 200s, where
 *   the two agree).
 * - `Pragma: no-cache` in a response counts as `Cache-Control: no-cache`, as
 *   in Chromium (RFC 9111 leaves Pragma to requests).
 * - Where RFC 9111 only encourages: an invalid `max-age` (not digits) makes
 *   the response stale; a directive given twice counts once, the first.
 *
 * And the RFC's letter:
 *
 * - `no-store` is never stored (§5.2.2.5); `no-cache` is stored but
 *   revalidated on every use (§5.2.2.4; a field-named no-cache counts as the
 *   whole directive, which §5.2.2.4 allows).
 * - Lifetime (§4.2.1): `max-age`, else `Expires` − `Date` (the response time
 *   when Date is missing or invalid; an invalid Expires, such as `0`, means
 *   already stale, §5.3), else heuristic. `s-maxage` is a shared cache's and
 *   is ignored (§5.2.2.10): so is `private`, which a browser may store.
 * - Age (§4.2.3): `Age` and the request and response times, plus the time
 *   the response has been stored.
 * - `immutable` (RFC 8246): a fresh response stays fresh, even on a reload,
 *   when a browser otherwise revalidates fresh responses. It does not make a
 *   response fresh for longer.
 * - Vary (§4.1): a stored response answers a request only when each field its
 *   Vary names has the same value (after whitespace is normalised) in both
 *   requests, or is absent from both; `Vary: *` never matches.
 * - A 304 updates the stored response's header fields (all but
 *   Content-Length) and its request and response times (§4.3.4).
 *
 * Times are milliseconds since the epoch, on the cache's clock; lifetimes and
 * ages are seconds.
 */

/**
 * Status codes cacheable by default (RFC 9110 §15.1): a response with one of
 * them may be stored, and given heuristic freshness, without an explicit
 * lifetime.
 */
export const HEURISTIC_STATUSES = Object.freeze([200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]);

/** The share of the time since Last-Modified a response stays fresh without an explicit lifetime (Chromium's, Firefox's). */
export const HEURISTIC_FRACTION = 0.1;

/** The greatest delta-seconds a cache needs to tell apart (RFC 9111 §1.2.2): larger values count as this. */
export const MAX_DELTA_SECONDS = 2 ** 31;

/**
 * @typedef {Record<string, string>} Fields header fields by lower-case name, repeated lines joined with ', '
 *
 * @typedef {object} StoredResponse what the rules need of a stored response
 * @property {number} status
 * @property {Fields} headers the response's header fields
 * @property {Fields} requestHeaders the fields of the request that made it, those its Vary names (the others may be absent)
 * @property {number} requestTime when that request was sent, ms since the epoch
 * @property {number} responseTime when the response was received, ms since the epoch
 *
 * @typedef {'fresh' | 'stale' | 'miss'} Decision what a cache does with a request:
 *   'fresh': answer it from the stored response, no request; 'stale': revalidate (a conditional request with its
 *   validators); 'miss': no stored response answers it, a plain request
 */

/**
 * Cache-Control directives: lower-case names, each with its value (quotes
 * removed) or null; the first of a directive given twice.
 * @param {string | undefined} value the Cache-Control field
 * @returns {Map<string, string | null>}
 */
export function cacheDirectives(value) {
  return new Map(directivesOf(value));
}

/** What a few recent field values parse to: a site's responses share a handful of them. Bounded. */
const MEMO_LIMIT = 256;
/** @type {Map<string, ReadonlyMap<string, string | null>>} */
const parsedDirectives = new Map();
/** @type {Map<string, number | null>} */
const parsedDates = new Map();
const NO_DIRECTIVES = /** @type {ReadonlyMap<string, string | null>} */ (new Map());

/**
 * @template T
 * @param {Map<string, T>} memo @param {string} key @param {T} value
 */
function remember(memo, key, value) {
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(key, value);
  return value;
}

/**
 * cacheDirectives, shared and never changed: the rules below only read it.
 * @param {string | undefined} value
 * @returns {ReadonlyMap<string, string | null>}
 */
function directivesOf(value) {
  if (!value) return NO_DIRECTIVES;
  const known = parsedDirectives.get(value);
  if (known) return known;
  /** @type {Map<string, string | null>} */
  const directives = new Map();
  for (const part of splitList(value)) {
    const eq = part.indexOf('=');
    const name = (eq < 0 ? part : part.slice(0, eq)).trim().toLowerCase();
    if (!name || directives.has(name)) continue;
    directives.set(name, eq < 0 ? null : unquote(part.slice(eq + 1).trim()));
  }
  return remember(parsedDirectives, value, directives);
}

/**
 * A comma-separated list, commas inside quoted strings kept, items trimmed, empty ones dropped.
 * @param {string} value
 */
function splitList(value) {
  const parts = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (quoted) {
      current += c;
      if (c === '\\' && i + 1 < value.length) current += value[++i];
      else if (c === '"') quoted = false;
    } else if (c === ',') {
      parts.push(current);
      current = '';
    } else {
      if (c === '"') quoted = true;
      current += c;
    }
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter(Boolean);
}

/** @param {string} value */
function unquote(value) {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1).replace(/\\(.)/g, '$1') : value;
}

/**
 * A delta-seconds value (1*DIGIT), or null when it is not one; past 2^31, 2^31.
 * @param {string | null | undefined} value
 */
export function deltaSeconds(value) {
  if (value === null || value === undefined || !/^\d+$/.test(value.trim())) return null;
  return Math.min(Number(value.trim()), MAX_DELTA_SECONDS);
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d\\d):(\\d\\d):(\\d\\d)';
const IMF_FIXDATE = new RegExp(`^(?:mon|tue|wed|thu|fri|sat|sun), (\\d\\d) ${MONTH} (\\d{4}) ${TIME} gmt$`, 'i');
const RFC850_DATE = new RegExp(`^(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday), (\\d\\d)-${MONTH}-(\\d\\d) ${TIME} gmt$`, 'i');
const ASCTIME_DATE = new RegExp(`^(?:mon|tue|wed|thu|fri|sat|sun) ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`, 'i');

/**
 * An HTTP-date (RFC 9110 §5.6.7: IMF-fixdate, and the obsolete RFC 850 and
 * asctime forms a recipient must accept) as ms since the epoch, or null when
 * it is not one (`0`, `-1`, any other text).
 * @param {string | undefined} value
 * @param {number} [now] for a two-digit RFC 850 year: one that would be more than 50 years ahead is the century before
 * @returns {number | null}
 */
export function parseHttpDate(value, now) {
  if (value === undefined) return null;
  // Only the RFC 850 form depends on `now` (its century): it is not remembered.
  const known = parsedDates.get(value);
  if (known !== undefined) return known;
  const ms = readHttpDate(value, now ?? Date.now());
  if (!RFC850_DATE.test(value.trim())) remember(parsedDates, value, ms);
  return ms;
}

/**
 * @param {string} value
 * @param {number} now
 * @returns {number | null}
 */
function readHttpDate(value, now) {
  const text = value.trim();
  let day;
  let month;
  let year;
  let clock;
  let m;
  if ((m = IMF_FIXDATE.exec(text))) [day, month, year, clock] = [m[1], m[2], Number(m[3]), m.slice(4, 7)];
  else if ((m = ASCTIME_DATE.exec(text))) [month, day, clock, year] = [m[1], m[2], m.slice(3, 6), Number(m[6])];
  else if ((m = RFC850_DATE.exec(text))) {
    [day, month, clock] = [m[1], m[2], m.slice(4, 7)];
    const thisYear = new Date(now).getUTCFullYear();
    year = Math.floor(thisYear / 100) * 100 + Number(m[3]);
    if (year > thisYear + 50) year -= 100;
  } else return null;
  const [h, min, s] = clock.map(Number);
  const d = Number(day);
  const mo = MONTHS.indexOf(month.toLowerCase());
  const ms = Date.UTC(year, mo, d, h, min, s);
  // Date.UTC rolls over (31 Feb, 25:00): a date that does not read back is no date.
  const back = new Date(ms);
  if (back.getUTCDate() !== d || back.getUTCMonth() !== mo || back.getUTCHours() !== h || back.getUTCMinutes() !== min || back.getUTCSeconds() !== s) return null;
  return ms;
}

/**
 * The response's Date, or when it has none (or an invalid one) the time it was received.
 * @param {Pick<StoredResponse, 'headers' | 'responseTime'>} response
 */
export function dateValue(response) {
  return parseHttpDate(response.headers.date) ?? response.responseTime;
}

/**
 * Whether a browser's cache may store a response (§3): never with no-store;
 * a final status, not 206 (partial content is combined, §3.3; the robot asks
 * for no ranges) nor 304 (it updates a stored response, §4.3.4); and either
 * an explicit lifetime or cacheability (max-age, Expires, public, private)
 * or a status cacheable by default. s-maxage alone is a shared cache's.
 * @param {number} status
 * @param {Fields} headers
 */
export function isStorable(status, headers) {
  const directives = directivesOf(headers['cache-control']);
  if (directives.has('no-store')) return false;
  if (status < 200 || status === 206 || status === 304) return false;
  if (directives.has('max-age') || directives.has('public') || directives.has('private') || headers.expires !== undefined) return true;
  return HEURISTIC_STATUSES.includes(status);
}

/**
 * @typedef {object} Lifetime
 * @property {number} seconds how long the response is fresh, from its generation
 * @property {'max-age' | 'expires' | 'heuristic' | 'none'} from what gave it
 */

/**
 * How long a response stays fresh (§4.2.1), with what gave the figure:
 * max-age (s-maxage ignored: a browser's cache is private), else Expires
 * minus Date, else heuristic freshness (§4.2.2, as Chromium: 10% of the time
 * from Last-Modified to Date, for a status cacheable by default or a
 * response marked public, without must-revalidate), else none (0).
 * @param {Pick<StoredResponse, 'status' | 'headers' | 'responseTime'>} response
 * @returns {Lifetime}
 */
export function freshnessLifetime(response) {
  const { headers } = response;
  const directives = directivesOf(headers['cache-control']);
  if (directives.has('max-age')) return { seconds: deltaSeconds(directives.get('max-age')) ?? 0, from: 'max-age' };
  const date = dateValue(response);
  if (headers.expires !== undefined) {
    const expires = parseHttpDate(headers.expires);
    return { seconds: expires === null ? 0 : Math.max(0, (expires - date) / 1000), from: 'expires' };
  }
  const allowed = HEURISTIC_STATUSES.includes(response.status) || directives.has('public');
  const lastModified = parseHttpDate(headers['last-modified']);
  if (allowed && !directives.has('must-revalidate') && lastModified !== null && lastModified <= date) {
    return { seconds: ((date - lastModified) / 1000) * HEURISTIC_FRACTION, from: 'heuristic' };
  }
  return { seconds: 0, from: 'none' };
}

/**
 * A stored response's current age in seconds (§4.2.3):
 * corrected_initial_age (the larger of max(0, response_time − date_value)
 * and Age + response_time − request_time) plus the time since it was received.
 * @param {StoredResponse} response
 * @param {number} now
 */
export function currentAge(response, now) {
  const apparentAge = Math.max(0, (response.responseTime - dateValue(response)) / 1000);
  const responseDelay = (response.responseTime - response.requestTime) / 1000;
  const correctedAgeValue = (deltaSeconds(response.headers.age) ?? 0) + responseDelay;
  const correctedInitialAge = Math.max(apparentAge, correctedAgeValue);
  const residentTime = (now - response.responseTime) / 1000;
  return correctedInitialAge + residentTime;
}

/**
 * Whether the response must be revalidated on every use: Cache-Control
 * no-cache (§5.2.2.4), or Pragma: no-cache (as Chromium).
 * @param {Fields} headers
 */
export function alwaysRevalidates(headers) {
  if (directivesOf(headers['cache-control']).has('no-cache')) return true;
  return (headers.pragma ?? '').split(',').some((p) => p.trim().toLowerCase() === 'no-cache');
}

/**
 * Whether a stored response is fresh now (§4.2): its lifetime is larger than
 * its current age, and it does not have to be revalidated on every use.
 * @param {StoredResponse} response
 * @param {number} now
 */
export function isFresh(response, now) {
  if (alwaysRevalidates(response.headers)) return false;
  return freshnessLifetime(response).seconds > currentAge(response, now);
}

/**
 * The header names a response's Vary lists, lower case (`*` as it is).
 * @param {Fields} headers
 */
export function varyNames(headers) {
  return [...varyNamesOf(headers.vary)];
}

/** @type {Map<string, readonly string[]>} */
const parsedVary = new Map();

/**
 * varyNames of a Vary value, shared and never changed.
 * @param {string | undefined} value
 * @returns {readonly string[]}
 */
function varyNamesOf(value) {
  if (!value) return [];
  return parsedVary.get(value) ?? remember(parsedVary, value, splitList(value).map((n) => n.toLowerCase()));
}

/**
 * The fields of a request that a response's Vary names: what a cache keeps
 * beside the response to match later requests with.
 * @param {Fields} responseHeaders
 * @param {Fields} requestHeaders lower-case names
 * @returns {Fields}
 */
export function varyingFields(responseHeaders, requestHeaders) {
  /** @type {Fields} */
  const kept = {};
  for (const name of varyNamesOf(responseHeaders.vary)) if (name !== '*' && requestHeaders[name] !== undefined) kept[name] = requestHeaders[name];
  return kept;
}

/**
 * A field value with its whitespace normalised: none around commas, runs of it one space.
 * @param {string | undefined} value
 */
function normalised(value) {
  return value === undefined ? undefined : value.trim().replace(/\s*,\s*/g, ',').replace(/\s+/g, ' ');
}

/**
 * Whether a stored response answers a request as far as Vary goes (§4.1):
 * each field it names is the same in both requests, or absent from both;
 * `Vary: *` never matches.
 * @param {Pick<StoredResponse, 'headers' | 'requestHeaders'>} response
 * @param {Fields} requestHeaders the new request's fields, lower-case names
 */
export function varyMatches(response, requestHeaders) {
  for (const name of varyNamesOf(response.headers.vary)) {
    if (name === '*') return false;
    const stored = response.requestHeaders[name];
    const asked = requestHeaders[name];
    if (stored !== asked && normalised(stored) !== normalised(asked)) return false;
  }
  return true;
}

/**
 * What a browser's cache does with a request for a stored response: 'miss'
 * when Vary does not let it answer; 'stale' (revalidate) when it must be
 * revalidated on every use or is no longer fresh, or on a reload unless it
 * is immutable; else 'fresh' (used without a request). The robot's repeat
 * visit is a navigation, not a reload.
 * @param {StoredResponse | undefined} response
 * @param {Fields} requestHeaders
 * @param {number} now
 * @param {{ reload?: boolean }} [options] reload: the user reloaded the page, which revalidates fresh responses too
 * @returns {Decision}
 */
export function cacheDecision(response, requestHeaders, now, options = {}) {
  if (!response || !varyMatches(response, requestHeaders)) return 'miss';
  if (!isFresh(response, now)) return 'stale';
  if (options.reload && !directivesOf(response.headers['cache-control']).has('immutable')) return 'stale';
  return 'fresh';
}

/**
 * A stored response updated by a 304 (§4.3.4, §3.2): the 304's header
 * fields replace the stored ones of the same name (all but Content-Length),
 * and its request and response times become the stored response's.
 * @template {StoredResponse} T
 * @param {T} stored
 * @param {Fields} headers the 304's
 * @param {number} requestTime
 * @param {number} responseTime
 * @returns {T}
 */
export function updatedBy304(stored, headers, requestTime, responseTime) {
  const merged = { ...stored.headers };
  for (const [name, value] of Object.entries(headers)) if (name !== 'content-length') merged[name] = value;
  return { ...stored, headers: merged, requestTime, responseTime };
}

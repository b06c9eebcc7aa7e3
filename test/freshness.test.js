// A browser's cache rules (src/loader/freshness.js) against RFC 9111's cases, with exact figures:
// storability, freshness lifetime (max-age, s-maxage ignored, Expires with Date, heuristic freshness),
// age (§4.2.3), no-cache and no-store, immutable, Vary, and a 304's update.
import { describe, expect, it } from 'vitest';
import {
  HEURISTIC_STATUSES, cacheDecision, cacheDirectives, currentAge, deltaSeconds, freshnessLifetime, isFresh, isStorable,
  parseHttpDate, updatedBy304, varyMatches, varyingFields, varyNames,
} from '../src/loader/freshness.js';

/** 26 Nov 2026, 12:00:00 UTC: whole seconds, as HTTP dates are. */
const T = Date.UTC(2026, 10, 26, 12, 0, 0);
const S = 1000;
const DAY = 86_400;
/** @param {number} ms */
const http = (ms) => new Date(ms).toUTCString();

/**
 * A stored 200 received at T (asked at T), dated T unless told.
 * @param {Record<string, string>} headers
 * @param {Partial<import('../src/loader/freshness.js').StoredResponse>} [more]
 * @returns {import('../src/loader/freshness.js').StoredResponse}
 */
function stored(headers, more = {}) {
  return { status: 200, headers: { date: http(T), ...headers }, requestHeaders: {}, requestTime: T, responseTime: T, ...more };
}

describe('header fields', () => {
  it('reads Cache-Control directives: case, spaces, quoted values with commas, the first of a directive given twice', () => {
    expect([...cacheDirectives('Public, MAX-AGE=60 , no-cache="set-cookie, x-a", max-age=5,immutable')]).toEqual([
      ['public', null], ['max-age', '60'], ['no-cache', 'set-cookie, x-a'], ['immutable', null],
    ]);
    expect(cacheDirectives(undefined).size).toBe(0);
    expect(cacheDirectives(' , ').size).toBe(0);
  });

  it('reads delta-seconds: digits only, capped at 2^31', () => {
    expect([deltaSeconds('0'), deltaSeconds('60'), deltaSeconds(' 7 '), deltaSeconds('99999999999'), deltaSeconds('-1'), deltaSeconds('1.5'), deltaSeconds('abc'), deltaSeconds(null)])
      .toEqual([0, 60, 7, 2 ** 31, null, null, null, null]);
  });

  it('reads the three HTTP-date forms (RFC 9110 §5.6.7) and nothing else', () => {
    const t = Date.UTC(1994, 10, 6, 8, 49, 37);
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(t);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', T)).toBe(t);
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994')).toBe(t);
    // A two-digit year more than 50 years ahead is the century before.
    expect(parseHttpDate('Thursday, 01-Jan-30 00:00:00 GMT', T)).toBe(Date.UTC(2030, 0, 1));
    expect(parseHttpDate('Friday, 01-Jan-99 00:00:00 GMT', T)).toBe(Date.UTC(1999, 0, 1));
    for (const bad of ['0', '-1', '', 'tomorrow', '2026-11-26T12:00:00Z', 'Mon, 30 Feb 2026 00:00:00 GMT', 'Thu, 26 Nov 2026 25:00:00 GMT', 'Thu, 26 Nov 2026 12:00:00 PST']) {
      expect(parseHttpDate(bad), bad).toBeNull();
    }
    expect(parseHttpDate(undefined)).toBeNull();
  });
});

describe('storable (RFC 9111 §3)', () => {
  it('stores a status cacheable by default without any cache header, others only with an explicit lifetime or public/private', () => {
    expect(HEURISTIC_STATUSES).toEqual([200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]);
    expect(isStorable(200, {})).toBe(true);
    expect(isStorable(404, {})).toBe(true);
    expect(isStorable(302, {})).toBe(false);
    expect(isStorable(307, {})).toBe(false);
    expect(isStorable(302, { 'cache-control': 'max-age=60' })).toBe(true);
    expect(isStorable(302, { expires: http(T + 60 * S) })).toBe(true);
    expect(isStorable(302, { 'cache-control': 'private' })).toBe(true);
    expect(isStorable(302, { 'cache-control': 'public' })).toBe(true);
  });

  it('never stores no-store, an interim response, a 206 or a 304; s-maxage alone is a shared cache\'s', () => {
    expect(isStorable(200, { 'cache-control': 'no-store' })).toBe(false);
    expect(isStorable(200, { 'cache-control': 'max-age=600, No-Store' })).toBe(false);
    expect(isStorable(100, {})).toBe(false);
    expect(isStorable(206, { 'cache-control': 'max-age=60' })).toBe(false);
    expect(isStorable(304, { 'cache-control': 'max-age=60' })).toBe(false);
    expect(isStorable(302, { 'cache-control': 's-maxage=600' })).toBe(false);
    // no-cache is stored: it is revalidated on every use, not refused.
    expect(isStorable(200, { 'cache-control': 'no-cache' })).toBe(true);
  });
});

describe('freshness lifetime (§4.2.1)', () => {
  it('max-age', () => {
    expect(freshnessLifetime(stored({ 'cache-control': 'max-age=600' }))).toEqual({ seconds: 600, from: 'max-age' });
    expect(freshnessLifetime(stored({ 'cache-control': 'public, max-age=31536000, immutable' }))).toEqual({ seconds: 31_536_000, from: 'max-age' });
    // The first of two; an invalid one makes the response stale.
    expect(freshnessLifetime(stored({ 'cache-control': 'max-age=60, max-age=6000' })).seconds).toBe(60);
    expect(freshnessLifetime(stored({ 'cache-control': 'max-age=abc', 'last-modified': http(T - 10 * DAY * S) }))).toEqual({ seconds: 0, from: 'max-age' });
  });

  it('ignores s-maxage, a shared cache\'s lifetime: max-age, Expires or the heuristic decide', () => {
    expect(freshnessLifetime(stored({ 'cache-control': 's-maxage=600' }))).toEqual({ seconds: 0, from: 'none' });
    expect(freshnessLifetime(stored({ 'cache-control': 's-maxage=600, max-age=60' }))).toEqual({ seconds: 60, from: 'max-age' });
    expect(freshnessLifetime(stored({ 'cache-control': 's-maxage=600', expires: http(T + 120 * S) }))).toEqual({ seconds: 120, from: 'expires' });
    expect(freshnessLifetime(stored({ 'cache-control': 's-maxage=600', 'last-modified': http(T - 1000 * S) }))).toEqual({ seconds: 100, from: 'heuristic' });
  });

  it('Expires minus Date; the response time without a Date; an invalid Expires is already stale; max-age wins', () => {
    expect(freshnessLifetime(stored({ expires: http(T + 3600 * S) }))).toEqual({ seconds: 3600, from: 'expires' });
    // Expires before Date: stale at once, not negative.
    expect(freshnessLifetime(stored({ expires: http(T - 3600 * S) }))).toEqual({ seconds: 0, from: 'expires' });
    // Dates of a server whose clock is ahead: only their difference counts.
    expect(freshnessLifetime(stored({ date: http(T + 7200 * S), expires: http(T + 7800 * S) })).seconds).toBe(600);
    // No Date (or an invalid one): the time it was received.
    const noDate = { status: 200, headers: { expires: http(T + 3600 * S) }, requestHeaders: {}, requestTime: T, responseTime: T + 10 * S };
    expect(freshnessLifetime(noDate)).toEqual({ seconds: 3590, from: 'expires' });
    expect(freshnessLifetime({ ...noDate, headers: { ...noDate.headers, date: 'yesterday' } }).seconds).toBe(3590);
    for (const invalid of ['0', '-1', 'never', '']) {
      expect(freshnessLifetime(stored({ expires: invalid, 'last-modified': http(T - 10 * DAY * S) })), invalid).toEqual({ seconds: 0, from: 'expires' });
    }
    expect(freshnessLifetime(stored({ expires: 'Thursday, 26-Nov-26 13:00:00 GMT' })).seconds).toBe(3600);
    expect(freshnessLifetime(stored({ 'cache-control': 'max-age=60', expires: http(T + 3600 * S) }))).toEqual({ seconds: 60, from: 'max-age' });
    expect(freshnessLifetime(stored({ 'cache-control': 'max-age=60', expires: '0' })).seconds).toBe(60);
  });

  it('heuristic freshness: 10% of Date minus Last-Modified, without an explicit lifetime, as Chromium', () => {
    expect(freshnessLifetime(stored({ 'last-modified': http(T - 10 * DAY * S) }))).toEqual({ seconds: DAY, from: 'heuristic' });
    // A year old: 36.5 days, no cap (Firefox caps at a week).
    expect(freshnessLifetime(stored({ 'last-modified': http(T - 365 * DAY * S) })).seconds).toBe(36.5 * DAY);
    // Modified just now: nothing; in the future: no heuristic.
    expect(freshnessLifetime(stored({ 'last-modified': http(T) }))).toEqual({ seconds: 0, from: 'heuristic' });
    expect(freshnessLifetime(stored({ 'last-modified': http(T + 60 * S) }))).toEqual({ seconds: 0, from: 'none' });
    // No Last-Modified, nothing to go by.
    expect(freshnessLifetime(stored({ etag: '"x"' }))).toEqual({ seconds: 0, from: 'none' });
    // Every status cacheable by default; others only when marked public.
    expect(freshnessLifetime({ ...stored({ 'last-modified': http(T - 10 * DAY * S) }), status: 404 }).seconds).toBe(DAY);
    expect(freshnessLifetime({ ...stored({ 'last-modified': http(T - 10 * DAY * S) }), status: 302 })).toEqual({ seconds: 0, from: 'none' });
    expect(freshnessLifetime({ ...stored({ 'last-modified': http(T - 10 * DAY * S), 'cache-control': 'public' }), status: 302 }).seconds).toBe(DAY);
    // must-revalidate: none (Chromium).
    expect(freshnessLifetime(stored({ 'last-modified': http(T - 10 * DAY * S), 'cache-control': 'must-revalidate' }))).toEqual({ seconds: 0, from: 'none' });
    // Explicit lifetimes come first, a shorter one too.
    expect(freshnessLifetime(stored({ 'last-modified': http(T - 10 * DAY * S), expires: http(T + 60 * S) })).seconds).toBe(60);
  });
});

describe('age (§4.2.3)', () => {
  it('corrected initial age from Age and the response delay, plus the resident time', () => {
    // Asked at T, answered at T+2 s, dated T+1 s, Age 30: apparent age 1, corrected Age 30 + 2 = 32; 100 s later 132.
    const r = stored({ date: http(T + 1 * S), age: '30' }, { requestTime: T, responseTime: T + 2 * S });
    expect(currentAge(r, T + 2 * S)).toBe(32);
    expect(currentAge(r, T + 102 * S)).toBe(132);
  });

  it('the apparent age when the Date is older than the delay says (a clock behind, or a cache on the way without Age)', () => {
    const r = stored({ date: http(T - 60 * S) }, { requestTime: T, responseTime: T + 500 });
    expect(currentAge(r, T + 500)).toBe(60.5);
    expect(currentAge(r, T + 10_500)).toBe(70.5);
  });

  it('a Date ahead of the response counts nothing; an invalid Age counts 0; no Date is the response time', () => {
    expect(currentAge(stored({ date: http(T + 3600 * S) }, { requestTime: T, responseTime: T + 250 }), T + 1250)).toBe(1.25);
    expect(currentAge(stored({ age: 'soon' }), T + 5 * S)).toBe(5);
    expect(currentAge({ status: 200, headers: {}, requestHeaders: {}, requestTime: T, responseTime: T }, T + 7 * S)).toBe(7);
  });

  it('fresh while the lifetime is larger than the age: a max-age of 600 s is fresh for 600 s, then stale', () => {
    const r = stored({ 'cache-control': 'max-age=600' });
    expect([isFresh(r, T), isFresh(r, T + 599_999), isFresh(r, T + 600 * S)]).toEqual([true, true, false]);
    // An Age of 500 leaves 100 s.
    const aged = stored({ 'cache-control': 'max-age=600', age: '500' });
    expect([isFresh(aged, T + 99 * S), isFresh(aged, T + 100 * S)]).toEqual([true, false]);
    // Heuristic: modified 10 days before, fresh for a day.
    const old = stored({ 'last-modified': http(T - 10 * DAY * S) });
    expect([isFresh(old, T + (DAY - 1) * S), isFresh(old, T + DAY * S)]).toEqual([true, false]);
  });
});

describe('using a stored response', () => {
  const request = { 'accept-encoding': 'br, gzip', accept: '*/*' };

  it('no-cache: revalidated on every use, whatever its lifetime; Pragma: no-cache too (as Chromium)', () => {
    const r = stored({ 'cache-control': 'no-cache, max-age=600' });
    expect(freshnessLifetime(r).seconds).toBe(600);
    expect(isFresh(r, T)).toBe(false);
    expect(cacheDecision(r, request, T)).toBe('stale');
    expect(cacheDecision(stored({ 'cache-control': 'no-cache' }), request, T)).toBe('stale');
    expect(cacheDecision(stored({ 'cache-control': 'no-cache="Set-Cookie"', expires: http(T + 60 * S) }), request, T)).toBe('stale');
    expect(cacheDecision(stored({ pragma: 'no-cache', expires: http(T + 60 * S) }), request, T)).toBe('stale');
    expect(cacheDecision(stored({ expires: http(T + 60 * S) }), request, T)).toBe('fresh');
  });

  it('nothing stored is a miss; fresh is used; stale is revalidated', () => {
    expect(cacheDecision(undefined, request, T)).toBe('miss');
    const r = stored({ 'cache-control': 'public, max-age=3600, must-revalidate' });
    expect(cacheDecision(r, request, T + 3599 * S)).toBe('fresh');
    expect(cacheDecision(r, request, T + 3600 * S)).toBe('stale');
    expect(cacheDecision(r, request, T + DAY * S)).toBe('stale');
  });

  it('immutable: a fresh response stays fresh on a reload, which revalidates any other; it does not live longer', () => {
    const immutable = stored({ 'cache-control': 'public, max-age=31536000, immutable' });
    const plain = stored({ 'cache-control': 'public, max-age=31536000' });
    expect(cacheDecision(immutable, request, T + DAY * S, { reload: true })).toBe('fresh');
    expect(cacheDecision(plain, request, T + DAY * S, { reload: true })).toBe('stale');
    expect(cacheDecision(plain, request, T + DAY * S)).toBe('fresh');
    expect(cacheDecision(immutable, request, T + 31_536_000 * S)).toBe('stale');
    expect(cacheDecision(stored({ 'cache-control': 'immutable' }), request, T + S)).toBe('stale');
  });

  it('Vary: the named fields must be the same in both requests (whitespace aside) or absent from both; * never matches', () => {
    const headers = { vary: 'Accept-Encoding', 'cache-control': 'max-age=600' };
    expect(varyNames({ vary: 'Accept-Encoding, ACCEPT ,user-agent' })).toEqual(['accept-encoding', 'accept', 'user-agent']);
    expect(varyingFields({ vary: 'Accept-Encoding, X-Missing' }, request)).toEqual({ 'accept-encoding': 'br, gzip' });
    const r = stored(headers, { requestHeaders: varyingFields(headers, request) });
    expect(varyMatches(r, request)).toBe(true);
    expect(varyMatches(r, { 'accept-encoding': 'br,gzip' })).toBe(true);
    expect(varyMatches(r, { 'accept-encoding': '  br ,  gzip ' })).toBe(true);
    expect(varyMatches(r, { 'accept-encoding': 'gzip' })).toBe(false);
    expect(varyMatches(r, { 'accept-encoding': 'gzip, br' })).toBe(false);
    expect(varyMatches(r, {})).toBe(false);
    expect(cacheDecision(r, { 'accept-encoding': 'gzip' }, T)).toBe('miss');
    expect(cacheDecision(r, request, T)).toBe('fresh');
    // Absent from both requests: a match.
    const none = stored(headers, { requestHeaders: varyingFields(headers, {}) });
    expect(varyMatches(none, {})).toBe(true);
    expect(varyMatches(none, request)).toBe(false);
    // Two fields, both must match; other fields do not matter.
    const two = stored({ vary: 'accept-encoding, accept' }, { requestHeaders: request });
    expect(varyMatches(two, { ...request, 'user-agent': 'other' })).toBe(true);
    expect(varyMatches(two, { ...request, accept: 'image/png' })).toBe(false);
    // Vary: * never matches, not even the same request.
    const star = stored({ vary: '*', 'cache-control': 'max-age=600' }, { requestHeaders: request });
    expect(varyMatches(star, request)).toBe(false);
    expect(cacheDecision(star, request, T)).toBe('miss');
    expect(varyMatches(stored({ vary: 'Accept-Encoding, *' }, { requestHeaders: request }), request)).toBe(false);
  });

  it('a 304 updates the stored header fields (not Content-Length) and its times, so a stale response is fresh again', () => {
    const r = stored({ 'cache-control': 'max-age=60', etag: '"a"', 'content-length': '1234', 'x-kept': '1' });
    const later = T + DAY * S;
    expect(cacheDecision(r, request, later)).toBe('stale');
    const updated = updatedBy304(r, { date: http(later), 'cache-control': 'max-age=600', etag: '"a"', 'content-length': '0' }, later, later + 20);
    expect(updated.headers).toEqual({ date: http(later), 'cache-control': 'max-age=600', etag: '"a"', 'content-length': '1234', 'x-kept': '1' });
    expect([updated.requestTime, updated.responseTime, updated.status]).toEqual([later, later + 20, 200]);
    expect(currentAge(updated, later + 20)).toBe(0.02);
    expect(cacheDecision(updated, request, later + 599 * S)).toBe('fresh');
    expect(r.headers['cache-control']).toBe('max-age=60');
  });
});

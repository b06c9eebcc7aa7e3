/**
 * A page's charset as a browser finds it: the HTML standard's prescan, so a
 * declaration inside a comment, or `charset=` in another meta's content, is
 * not taken for the page's.
 */
import { describe, expect, it } from 'vitest';
import { detectHtmlCharset } from '../src/site/charset.js';

/** @param {string} text */
const latin = (text) => Buffer.from(text, 'latin1');

describe('detectHtmlCharset', () => {
  it('passes over a commented-out <meta charset> to the real one', () => {
    expect(detectHtmlCharset(latin('<!doctype html><!-- <meta charset="iso-8859-2"> --><meta charset="utf-8"><p>\u00e9'))).toEqual({ charset: 'utf-8', source: 'meta', bomLength: 0 });
    // Nothing else declares one: valid UTF-8 is UTF-8, anything else windows-1252.
    expect(detectHtmlCharset(latin('<!-- <meta charset="koi8-r"> --><p>caf\u00e9'))).toEqual({ charset: 'windows-1252', source: 'sniffed', bomLength: 0 });
  });

  it('does not take charset= in the content of a meta that is not Content-Type', () => {
    expect(detectHtmlCharset(latin('<meta name="description" content="charset=koi8-r"><p>caf\u00e9'))).toEqual({ charset: 'windows-1252', source: 'sniffed', bomLength: 0 });
    expect(detectHtmlCharset(latin('<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-2">'))).toEqual({ charset: 'iso-8859-2', source: 'meta', bomLength: 0 });
  });

  it('reads a declaration of windows-1252 as one, and a UTF-16 declaration in ASCII bytes as UTF-8', () => {
    expect(detectHtmlCharset(latin('<meta charset=windows-1252><p>x'))).toEqual({ charset: 'windows-1252', source: 'meta', bomLength: 0 });
    expect(detectHtmlCharset(latin('<meta charset=utf-16><p>x'))).toEqual({ charset: 'utf-8', source: 'meta', bomLength: 0 });
    expect(detectHtmlCharset(Buffer.from([0xef, 0xbb, 0xbf, 0x3c]))).toEqual({ charset: 'utf-8', source: 'bom', bomLength: 3 });
  });
});

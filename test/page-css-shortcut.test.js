/**
 * The css pass's way around parsing a page whose only CSS is <style> blocks
 * csso cannot make smaller (styleBlocksMinimal): the job's result with it is
 * the parsed page's, on hand-made pages where the scan and the parser could
 * disagree and on pages put together from such pieces (fuzz, fixed seed).
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../scripts/fixtures/random.js';
import { DocumentView } from '../src/site/document-view.js';
import { pageCssEdits, styleBlocksMinimal } from '../src/markup/page-css.js';

/** The fuzz's seed, printed so that a failure can be run again. */
const SEED = 20261127;

const MINIMAL = '.pd1{width:71px;color:#fff}';
const LOOSE = '.a { color : red ; }';

/** @param {string} html */
const view = (html) => new DocumentView(Buffer.from(html, 'latin1'), 'windows-1252');

/** @param {string} html */
function both(html) {
  const fast = pageCssEdits(view(html));
  const parsed = pageCssEdits(view(html), { shortcut: false });
  return { fast, parsed };
}

describe('styleBlocksMinimal', () => {
  it('holds for a page whose one <style> is minified (what text-images writes), and the result is the parsed one', () => {
    const html = `<html><head><style>${MINIMAL}</style></head><body><span class=pd1>x</span></body></html>`;
    expect(styleBlocksMinimal(view(html))).toBe(true);
    const { fast, parsed } = both(html);
    expect(fast).toEqual({ edits: [], blocks: 0, attributes: 0, kept: [] });
    expect(parsed).toEqual(fast);
  });

  it.each([
    ['a block csso makes smaller', `<style>${LOOSE}</style>`],
    ['a style attribute', `<style>${MINIMAL}</style><p style="color : red">x</p>`],
    ['a quote in a start tag, which may hide its end', `<style media="a>b">${MINIMAL}</style>`],
    ['a block csso cannot parse', '<style>.a{color:red}}</style>'],
    ['a block that would close itself once minified', '<style>.a::after{content:"<\\/style>"}</style>'],
  ])('does not hold for %s', (_, html) => {
    expect(styleBlocksMinimal(view(html))).toBe(false);
  });

  it.each([
    ['a loose block in a comment', `<!-- <style>${LOOSE}</style> --><style>${MINIMAL}</style>`],
    ['a loose block in a script', `<script>"<style>${LOOSE}</style>"</script>`],
    ['a loose block in a textarea', `<textarea><style>${LOOSE}</style></textarea>`],
    ['a loose block in SVG', `<svg><style>${LOOSE}</style></svg>`],
    ['a loose block of another type', `<style type=text/less>${LOOSE}</style>`],
    ['a loose block in upper case', `<STYLE>${LOOSE}</STYLE >`],
    ['an unclosed loose block', `<style>${LOOSE}`],
    ['a tag that only begins like style', `<styles>${LOOSE}</styles>`],
    ['a block that ends at a slash', `<style>${LOOSE}</style/>`],
    ['an end tag in a comment of the CSS', `<style>/* </style> */${MINIMAL}</style>`],
  ])('gives the parsed result with %s', (_, html) => {
    const { fast, parsed } = both(`<html><head></head><body>${html}</body></html>`);
    expect(fast).toEqual(parsed);
  });

  it(`gives the parsed result on pages of such pieces (fuzz, seed ${SEED})`, () => {
    console.log(`page css shortcut fuzz: seed ${SEED}`);
    const rng = new Rng(SEED);
    const pieces = [
      `<style>${MINIMAL}</style>`, `<style>${LOOSE}</style>`, '<style>', '</style>', '</style >', '<STYLE>', '<style/>',
      '<style media="a>b">', "<style media='x'>", '<style type=text/less>', '<!--', '-->', '<script>', '</script>',
      '<textarea>', '</textarea>', '<svg>', '</svg>', '<![CDATA[', ']]>', '<p>', '</p>', 'text ', '>', '<', '"', "'",
      MINIMAL, LOOSE, '.b{margin:0 0 0 0}', '.c{color:red}}', '/*', '*/', '<p class=x>', '<title>', '</title>', '<noscript>', '</noscript>',
    ];
    let shortcuts = 0;
    for (let n = 0; n < 3000; n++) {
      const parts = [];
      for (let i = rng.int(1, 12); i > 0; i--) parts.push(rng.pick(pieces));
      const html = `<!doctype html><html><head>${parts.join('')}`;
      if (styleBlocksMinimal(view(html))) shortcuts++;
      const { fast, parsed } = both(html);
      expect(fast, html).toEqual(parsed);
    }
    // The shortcut is taken often enough for the comparison to say something.
    expect(shortcuts).toBeGreaterThan(300);
  });
});

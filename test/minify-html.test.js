// The optional minify-html pass: off unless asked, removes comments (not
// conditional ones or <!--! -->) and whitespace between blocks, nothing else.
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseDocument } from 'htmlparser2';
import { describe, expect, it } from 'vitest';
import { build } from '../src/build/pipeline.js';
import minifyHtml from '../src/passes/minify-html.js';
import { tempDir, writeTree } from './helpers/tmp.js';

const MARKUP = path.resolve('fixtures/markup');
const MICROSCAPE = path.resolve('fixtures/microscape');

/** @param {import('../src/build/summary.js').BuildSummary} summary */
const report = (summary) => /** @type {import('../src/build/pipeline.js').PassReport} */ (summary.passes.find((p) => p.name === 'minify-html'));

/**
 * htmlparser2's tree without comments (except conditional ones) and without
 * text nodes that are only whitespace: what must be the same after the pass.
 * @param {string} text
 */
function treeWithoutCommentsAndBlankText(text) {
  /** @param {any} node @returns {unknown} */
  const walk = (node) => ({
    type: node.type,
    ...(node.name !== undefined && { name: node.name }),
    ...(node.attribs && { attribs: Object.entries(node.attribs) }),
    ...(node.data !== undefined && { data: node.data }),
    ...(node.children && {
      children: node.children
        .filter((/** @type {any} */ c) => !(c.type === 'comment' && !/^\[if|^\[endif|^<!\[endif|^!/.test(c.data)) && !(c.type === 'text' && /^[\t\n\f\r ]*$/.test(c.data)))
        .map(walk),
    }),
  });
  return walk(parseDocument(text));
}

describe('minify-html', () => {
  it('is off unless asked for: with it in the passes but no --minify-html, nothing changes', async () => {
    const out = path.join(await tempDir(), 'out');
    const summary = await build({ input: MARKUP, output: out, passes: [minifyHtml], cache: false });
    // Not run at all: off by default (enabledByDefault: false).
    expect(summary.passes).toEqual([]);
    expect(await fs.readFile(path.join(out, 'minify.html'))).toEqual(await fs.readFile(path.join(MARKUP, 'minify.html')));
  });

  it('removes a comment left open at the end of a page up to the end, and nothing past it (found by fuzzing)', async () => {
    const pages = { 'a.html': '<p>a</p>\n<!-- open', 'b.html': '<p>a <!-- x', 'c.html': '<p>a</p> <!--' };
    const input = await writeTree(await tempDir(), pages);
    const out = path.join(await tempDir(), 'out');
    const summary = await build({ input, output: out, passes: [minifyHtml], cache: false, minifyHtml: true });
    expect(summary.warnings.filter((w) => w.code === 'minify-html-failed')).toEqual([]);
    expect((await fs.readFile(path.join(out, 'a.html'))).toString()).toBe('<p>a</p>');
    expect((await fs.readFile(path.join(out, 'b.html'))).toString()).toBe('<p>a ');
    expect((await fs.readFile(path.join(out, 'c.html'))).toString()).toBe('<p>a</p>');
  });

  it('removes comments and whitespace between blocks, and keeps conditional and <!--! --> comments, bogus comments, pre, textarea, script and inline whitespace', async () => {
    const out = path.join(await tempDir(), 'out');
    const summary = await build({ input: MARKUP, output: out, passes: [minifyHtml], minifyHtml: true, cache: false });
    expect(await fs.readFile(path.join(out, 'minify.html'), 'utf8')).toBe(`<!DOCTYPE html>

<html>
<head><meta charset="utf-8"><title>Minify: what goes and what stays</title><!--[if lt IE 9]><script src="html5shiv.js"></script><![endif]--></head><body><div><p>First   paragraph, <b>bold</b> <i>italic</i></p><!--! kept: the author marked it --><p>Second</p></div><ul><li>One</li><li>Two <a href="#">link</a> </li></ul><pre>
    
    indented   text
  </pre>
  <textarea>  <!-- not a comment: textarea text -->  </textarea>
  <span> inline </span> <span>neighbours</span>
  <?php echo "bogus comment"; ?>
  <table><tr><td> </td><td>cell</td></tr></table>
  <script>var s = "<!-- not a comment -->";</script>
</body>
</html>
`);
    expect(report(summary).decisions.find((d) => d.file === 'minify.html')).toEqual({ file: 'minify.html', action: 'changed', reason: '3 comments and 21 whitespace runs removed, 832 → 648 B' });
    // XML documents are not touched.
    expect(report(summary).decisions.filter((d) => d.action === 'skipped').map((d) => d.file)).toEqual(['xhtml-as-xml.xhtml', 'xml-declaration.html']);
  });

  it('keeps whitespace on a page whose CSS could show it (white-space, inline-block), and still removes comments', async () => {
    const page = (/** @type {string} */ css) => `<!DOCTYPE html><html><head><link rel="stylesheet" href="s.css"><style>${css}</style></head><body>\n<!-- x -->\n<div>a</div>\n<div>b</div>\n</body></html>`;
    const input = await writeTree(await tempDir(), {
      'pre.html': page('div { white-space: pre }'),
      'inline.html': page('div { display : inline-block }'),
      'sheet.html': page(''),
      's.css': '',
      'other/sheet.html': '<!DOCTYPE html><link rel="stylesheet" href="t.css"><body>\n<div>a</div>\n<div>b</div>\n</body>',
      'other/t.css': '@import "u.css";',
      'other/u.css': 'div { display: inline }',
    });
    const out = path.join(await tempDir(), 'out');
    const summary = await build({ input, output: out, passes: [minifyHtml], minifyHtml: true, cache: false });
    const size = (/** @type {string} */ css) => page(css).length;
    const comment = '<!-- x -->'.length;
    expect(report(summary).decisions.map((d) => [d.file, d.reason])).toEqual([
      ['inline.html', `1 comments and 0 whitespace runs removed; whitespace kept (a <style> says "display : inline"), ${size('div { display : inline-block }')} → ${size('div { display : inline-block }') - comment} B`],
      ['other/sheet.html', 'nothing to remove; whitespace kept (other/u.css says "display: inline")'],
      ['pre.html', `1 comments and 0 whitespace runs removed; whitespace kept (a <style> says "white-space"), ${size('div { white-space: pre }')} → ${size('div { white-space: pre }') - comment} B`],
      ['sheet.html', `1 comments and 4 whitespace runs removed, ${size('')} → ${size('') - comment - 4} B`],
    ]);
    expect(await fs.readFile(path.join(out, 'pre.html'), 'utf8')).toBe(page('div { white-space: pre }').replace('<!-- x -->', ''));
    expect(await fs.readFile(path.join(out, 'sheet.html'), 'utf8')).toBe('<!DOCTYPE html><html><head><link rel="stylesheet" href="s.css"><style></style></head><body><div>a</div><div>b</div></body></html>');
  });

  it('on microscape, changes nothing but comments and blank text: htmlparser2 reads the same tree without them', async () => {
    const out = path.join(await tempDir(), 'out');
    const summary = await build({ input: MICROSCAPE, output: out, only: ['minify-html'], cache: false });
    const before = await fs.readFile(path.join(MICROSCAPE, 'index.html'), 'latin1');
    const after = await fs.readFile(path.join(out, 'index.html'), 'latin1');
    expect(after.length).toBeLessThan(before.length);
    expect(treeWithoutCommentsAndBlankText(after)).toEqual(treeWithoutCommentsAndBlankText(before));
    expect(report(summary).decisions[0].reason).toBe(`7 comments and 62 whitespace runs removed, ${before.length} → ${after.length} B`);
  });
});

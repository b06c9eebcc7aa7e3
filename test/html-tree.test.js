import fs from 'node:fs/promises';
import path from 'node:path';
import * as cheerio from 'cheerio';
import { describe, expect, it } from 'vitest';
import { detectHtmlCharset } from '../src/site/charset.js';
import { DocumentView } from '../src/site/document-view.js';
import { htmlReferences, referencesInTree } from '../src/site/html-refs.js';
import { nodes, parsePage } from '../src/site/html-tree.js';

/** Markup where tree construction does more than nest tags, each with references. */
const TRICKY_PAGES = {
  'foster parenting': '<table><img src=a.gif><tr><td>x</td></tr>text<img src=b.gif style="background:url(c.gif)"></table>',
  'reopened formatting elements': '<p><b><font face=x><img src=d.gif></p><p><img src=e.gif></p><b><b><b><b><img src=f.gif></b></b>',
  'adoption agency': '<a href=1.html><p>x</a>y<img src=g.gif><b><p>1</b>2<img src=h.gif></p>',
  'template, noscript, frames': '<template><img src=i.gif></template><noscript><img src=j.gif></noscript><frameset><frame src=k.html></frameset>',
  'foreign content': '<svg><image xlink:href="l.png" href="m.png"/><style>@import "n.css";</style><script src=o.js></script>' +
    '</svg><math><annotation-xml encoding="text/html"><img src=p.gif></annotation-xml></math><img src=q.gif>',
  'adopted attributes': '<html lang=en><body background=r.gif><html class=x><body background=s.gif style="background:url(t.gif)">',
  'style open at the end': '<base href="/sub/"><base href="/other/"><img src=u.gif><style>body { background: url(v.gif) }',
  'picture and entities': '<picture><source srcset="w&amp;w.webp 1x, x.webp 2x"><img src="y&euro;.jpg" srcset="z.jpg 2x"></picture>' +
    '<img src=aa.gif <img src=bb.gif>a<!-- c -->b<input type=image src=cc.gif><link rel=stylesheet href=dd.css>',
  'quirks mode table': '<p><table><tr><td background=ee.gif><img src=ff.gif></td></tr></table>',
};

/**
 * A tree as a list of what the passes read: each node's type, name,
 * namespace, attributes, data and source location, in document order.
 * @param {import('domhandler').AnyNode} root
 */
function flatten(root) {
  return [...nodes(root)].map((n) => {
    const el = /** @type {any} */ (n);
    return [n.type, el.name, el.namespace, el.attribs, el.data, n.sourceCodeLocation ?? null, el.children?.length ?? -1];
  });
}

/** @param {Buffer} bytes */
function view(bytes) {
  const { charset, bomLength } = detectHtmlCharset(bytes);
  return new DocumentView(bytes, charset, bomLength);
}

describe('parsePage builds the tree cheerio.load builds', () => {
  /** @param {DocumentView} v */
  const cheerioTree = (v) => cheerio.load(v.text, { sourceCodeLocationInfo: true }).root()[0];

  it('on every page of the fixtures, node for node with source locations, and the same references', async () => {
    const entries = await fs.readdir('fixtures', { recursive: true, withFileTypes: true });
    const pages = entries.filter((e) => e.isFile() && /\.html?$/.test(e.name)).map((e) => path.join(e.parentPath, e.name));
    expect(pages.length).toBeGreaterThan(10);
    for (const page of pages) {
      const v = view(await fs.readFile(page));
      const ours = parsePage(v);
      expect([page, flatten(ours)]).toEqual([page, flatten(cheerioTree(v))]);
      const model = htmlReferences(v);
      expect([page, { references: model.references, baseHref: model.baseHref }]).toEqual([page, referencesInTree(v, cheerioTree(v))]);
    }
    expect(htmlReferences(view(await fs.readFile('fixtures/microscape/index.html'))).references).toHaveLength(137 + 108 + 1 + 1);
  });

  it.each(Object.entries(TRICKY_PAGES))('where tree construction is subtle: %s', (_name, markup) => {
    for (const prefix of ['<!doctype html>', '']) {
      const v = view(Buffer.from(`${prefix}${markup}`, 'utf8'));
      const tree = flatten(parsePage(v));
      expect(tree.length).toBeGreaterThanOrEqual(4);
      expect(tree).toEqual(flatten(cheerioTree(v)));
      expect(htmlReferences(v).references.length).toBeGreaterThan(0);
    }
  });

  it('reports parse errors with their offsets in the view', () => {
    /** @type {{ code: string, startOffset: number }[]} */
    const errors = [];
    parsePage(view(Buffer.from('<!doctype html><p a=1 a=2>x</b><!-- x --!>', 'utf8')), (e) => errors.push({ code: e.code, startOffset: e.startOffset }));
    expect(errors).toEqual([{ code: 'duplicate-attribute', startOffset: 23 }, { code: 'incorrectly-closed-comment', startOffset: 41 }]);
  });
});

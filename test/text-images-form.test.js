/**
 * Image buttons (<input type=image>) rewritten as a submit <button> and a
 * hidden field: the form data must stay the same. Proven in real Chromium by
 * submitting the same forms before and after the pass, with a click and with
 * Enter in a text field, and comparing the URLs the browser asks for; and
 * the conditions (the form's only submit control, no scripts) checked on the
 * parsed markup.
 */
import path from 'node:path';
import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { build } from '../src/build/pipeline.js';
import { pageImages } from '../src/text-images/elements.js';
import { contentDeclarations, imageButtonMarkup } from '../src/text-images/markup.js';
import { startServer } from '../src/loader/server.js';
import { chromiumTest, launchChromium } from './helpers/chromium.js';
import { readTree, tempDir, writeTree } from './helpers/tmp.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const searchGif = path.join(root, 'fixtures', 'microscape', 'images', 'search.gif');

/** Two forms whose only submit control is an image button (one named, one not, with FORMACTION), and one that has a second submit control. */
const PAGE = `<!DOCTYPE html><html><head><title>forms</title></head><body style="margin:0;font:16px DejaVu Sans">
<form method=get action="/result"><input type=text name=qu size=16> <input type=image name=go src="search.gif" width=62 height=18 border=0 align=absmiddle alt="Search"></form>
<form method=get action="/result"><input type=hidden name=lang value=en><input type=text name=q2 value="a b"> <input type=image src="search.gif" width=62 height=18 align=absmiddle alt="Search" formaction="/other"><input type=text name=after value=z></form>
<form method=get action="/result"><input type=text name=q3> <input type=image name=go src="search-too.gif" align=absmiddle alt="Search"> <input type=submit value=Go></form>
</body></html>`;

/**
 * The URL each way of submitting a page's first two forms asks for: a click
 * on the submit control (an image button at its top-left pixel, so its
 * coordinates are 0,0; a <button> in its middle), and Enter in a text field.
 * @param {import('playwright-core').Browser} browser
 * @param {string} dir
 * @param {{ first: string, second: string }} controls selectors
 */
async function submissions(browser, dir, controls) {
  const server = await startServer({ root: dir });
  const context = await browser.newContext({ viewport: { width: 800, height: 300 }, deviceScaleFactor: 1 });
  try {
    await context.route((url) => !url.href.startsWith(server.url), (route) => route.abort('blockedbyclient'));
    // The form handlers: answered here, their URLs recorded.
    await context.route((url) => url.href.startsWith(server.url) && /^\/(result|other)/.test(url.pathname), (route) => route.fulfill({ status: 200, contentType: 'text/plain', body: 'ok' }));
    const page = await context.newPage();
    /** @param {() => Promise<void>} act */
    const submit = async (act) => {
      await page.goto(`${server.url}/index.html`, { waitUntil: 'load' });
      const [request] = await Promise.all([page.waitForRequest((r) => /\/(result|other)/.test(new URL(r.url()).pathname)), act()]);
      const url = new URL(request.url());
      return `${url.pathname}${url.search}`;
    };
    /** @param {string} selector */
    const click = (selector) => async () => {
      const image = (await page.getAttribute(selector, 'type'))?.toLowerCase() === 'image';
      await page.click(selector, image ? { position: { x: 0, y: 0 } } : {});
    };
    return {
      firstClick: await submit(click(controls.first)),
      firstEnter: await submit(async () => {
        await page.fill('input[name=qu]', 'css1 & png');
        await page.press('input[name=qu]', 'Enter');
      }),
      secondClick: await submit(click(controls.second)),
      secondEnter: await submit(() => page.press('input[name=q2]', 'Enter')),
    };
  } finally {
    await context.close();
    await server.close();
  }
}

describe('text-images: image buttons', () => {
  chromiumTest('a form\'s only submit control becomes a <button> that submits the same form data, by click and by Enter', async () => {
    const gif = await fs.readFile(searchGif);
    const input = await writeTree(await tempDir(), { 'index.html': PAGE, 'search.gif': gif, 'search-too.gif': gif });
    const out = await tempDir();
    const summary = await build({ input, output: out, only: ['text-images'], cache: false, threads: 1 });
    const decisions = Object.fromEntries(summary.passes[0].decisions.map((d) => [d.file, d]));
    expect(decisions['search.gif'].action).toBe('changed');
    expect(decisions['search.gif'].reason).toMatch(/^text "Search" \(ALT\), .*, image button as a submit <button> \(sends go\.x=0&go\.y=0\), similarity 0\.\d\d;/);
    expect(decisions['search-too.gif']).toEqual({ file: 'search-too.gif', action: 'kept', reason: "a form's image button in index.html: its form has another submit control (<input type=submit>), so a <button> could change the form data" });

    const html = (await readTree(out)).get('index.html')?.toString('latin1') ?? '';
    expect(html).toMatch(/<input type=text name=qu size=16> <button type=submit class=pd1 name="go\.x" value=0>Search<\/button><input type=hidden name="go\.y" value=0><\/form>/);
    expect(html).toMatch(/<input type=text name=q2 value="a b"> <button type=submit class=pd1 name="x" value=0 formaction="\/other">Search<\/button><input type=hidden name="y" value=0><input type=text name=after value=z><\/form>/);
    expect(html).toContain('<input type=image name=go src="search-too.gif"');

    const browser = await launchChromium();
    try {
      const before = await submissions(browser, input, { first: 'input[name=go]', second: 'input[formaction]' });
      const after = await submissions(browser, out, { first: 'button[name="go.x"]', second: 'button[name=x]' });
      // The original image buttons clicked at their top-left pixel send 0,0, as implicit submission (Enter) does.
      expect(before).toEqual({
        firstClick: '/result?qu=&go.x=0&go.y=0',
        firstEnter: '/result?qu=css1+%26+png&go.x=0&go.y=0',
        secondClick: '/other?lang=en&q2=a+b&x=0&y=0&after=z',
        secondEnter: '/other?lang=en&q2=a+b&x=0&y=0&after=z',
      });
      expect(after).toEqual(before);
    } finally {
      await browser.close();
    }
  }, 180_000);
});

describe('text-images: when an image button is its form\'s only submitter', () => {
  /** @param {string} body */
  const issue = (body) => {
    const images = pageImages(Buffer.from(`<!DOCTYPE html><html><head><title>t</title></head><body>${body}</body></html>`, 'latin1'), 'windows-1252', 0).images;
    return images.filter((i) => i.name === 'input').map((i) => i.formIssue);
  };
  const image = '<input type=image src=s.gif alt=Go>';

  it('is when nothing else submits the form', () => {
    expect(issue(`<form><input name=q>${image}<button type=button>Clear</button><button type=reset>Reset</button><input type=reset></form>`)).toEqual([null]);
    expect(issue(`<form id=f><input name=q></form><p><input type=image form=f src=s.gif>`)).toEqual([null]);
  });

  it('is not with another submit control, counting FORM attributes and the parser\'s form pointer', () => {
    expect(issue(`<form><input name=q>${image}<input type=submit></form>`)).toEqual(['its form has another submit control (<input type=submit>)']);
    expect(issue(`<form><input name=q>${image}<button>Go</button></form>`)).toEqual(['its form has another submit control (<button>)']);
    expect(issue(`<form>${image}${image}</form>`)).toEqual(['its form has another submit control (<input type=image>)', 'its form has another submit control (<input type=image>)']);
    expect(issue(`<form id=f>${image}</form><button form=f type=submit>Go</button>`)).toEqual(['its form has another submit control (<button type=submit>)']);
    // The cell's end closes the <form> element, but the second cell's button still belongs to the form.
    expect(issue(`<table><tr><td><form><input name=q>${image}</td><td><input type=submit></td></tr></table></form>`)).toEqual(['its form has another submit control (<input type=submit>)']);
    // A button after the form's end tag, or in another form, is not its.
    expect(issue(`<form>${image}</form><form><input type=submit></form><button>x</button>`)).toEqual([null]);
  });

  it('is not outside a form, or on a page with scripts', () => {
    expect(issue(image)).toEqual(['not inside a <form>']);
    expect(issue(`<form><input type=image form=nowhere src=s.gif></form>`)).toEqual(['its FORM attribute names no <form>']);
    expect(issue(`<form onsubmit="return check(this)">${image}</form>`)).toEqual(['the page has scripts (ONSUBMIT on <form>), which may submit the form or read its controls']);
    expect(issue(`<script>var x;</script><form>${image}</form>`)).toEqual(['the page has a <script>, which may submit the form or read its controls']);
    expect(issue(`<form>${image}</form><a href="javascript:document.forms[0].submit()">go</a>`)).toEqual(['the page has scripts (a javascript: URL on <a>), which may submit the form or read its controls']);
  });

  it('becomes a button named NAME.x and a hidden NAME.y, keeping what it submits and says', () => {
    expect(imageButtonMarkup({ type: 'image', name: 'go', src: 's.gif', alt: 'Search', value: 'ignored' }, 'pd3', 'Search', 'utf-8'))
      .toBe('<button type=submit class=pd3 name="go.x" value=0>Search</button><input type=hidden name="go.y" value=0>');
    expect(imageButtonMarkup({ type: 'image', src: 's.gif', form: 'f', formmethod: 'post', formnovalidate: '', disabled: '', title: 'Find "it"' }, 'pd1', 'Find', 'windows-1252'))
      .toBe('<button type=submit class=pd1 name="x" value=0 form="f" formmethod="post" formnovalidate disabled title="Find &quot;it&quot;">Find</button><input type=hidden name="y" value=0 form="f" disabled>');
  });

  it('resets the button\'s border and padding, with a bottom padding that keeps the text where a span puts it', () => {
    const plan = /** @type {const} */ ({ status: 'text', width: 62, height: 18, bg: [0, 51, 102], fg: [255, 255, 255], transparent: false, ink: { left: 0, top: 0, right: 1, bottom: 1 }, estimates: [], source: 'alt', ocr: null });
    const style = /** @type {const} */ ({ text: 'Search', name: 'DejaVu Sans', family: 'sans-serif', weight: 'bold', style: 'normal', size: 11, letterSpacing: 0, score: 1 });
    const span = contentDeclarations(plan, 62, 18, style, { indent: 2, lineHeight: 13 });
    expect(contentDeclarations(plan, 62, 18, style, { indent: 2, lineHeight: 13 }, 'button')).toEqual([...span, ['border', '0'], ['padding', '0 0 5px']]);
    expect(contentDeclarations({ ...plan, transparent: true }, 62, 18, style, { indent: 2, lineHeight: 20 }, 'button').slice(-3)).toEqual([['border', '0'], ['padding', '0'], ['background', 'none']]);
  });
});

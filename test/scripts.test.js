// The scripts pass: JavaScript files and inline <script> blocks through
// terser. Classic scripts keep their top-level names, modules have theirs
// mangled; data blocks (JSON-LD, import maps, templates) and everything
// outside the blocks keep their bytes; source maps compose; what terser
// cannot parse or shrink is copied unchanged. In Chromium, every page does
// the same before and after: the same DOM once loaded and the same console.
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { SourceMapConsumer } from '@jridgewell/source-map';
import { minify } from 'terser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../src/build/pipeline.js';
import { formatBuildSummary } from '../src/report/build-text.js';
import { chromiumMissing, chromiumTest, launchChromium } from './helpers/chromium.js';
import { readTree, tempDir, writeTree } from './helpers/tmp.js';

/** @param {import('../src/build/summary.js').BuildSummary} summary */
const scriptsReport = (summary) => /** @type {import('../src/build/pipeline.js').PassReport} */ (summary.passes.find((p) => p.name === 'scripts'));

const INDEX = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Scripts</title>
<script type="application/ld+json">
{ "@context": "https://schema.org", "@type": "Organization", "name": "Example" }
</script>
<script type="importmap">
{ "imports": { "greeting": "./js/app.mjs" } }
</script>
<script type="speculationrules">
{ "prefetch": [{ "source": "list", "urls": ["legacy.html"] }] }
</script>
<script type="text/template" id="row">
  <li class="row">{{ name }}</li>
</script>
<script type="text/javascript;charset=utf-8">
  var notRun = 'a type with a parameter is not JavaScript';
</script>
<script src="js/classic.js"></script>
<script src="js/mapped.js"></script>
<script src="js/already.min.js"></script>
<script>
  // Counts clicks: the button's handler calls it by name.
  var clickCount = 0;
  function countClick(button) {
    clickCount = clickCount + 1;
    button.textContent = formatGreeting('click ' + clickCount);
  }
</script>
<script type="module">
  import { greet } from './js/app.mjs';
  const message = greet('the module');
  document.body.dataset.greeting = message;
  console.log(message);
</script>
</head>
<body>
<button id="button" onclick="countClick(this)">Click</button>
<p id="out"></p>
<script>
  var closingTag = "<\\/script>";
  document.getElementById('out').textContent = 'A string that holds ' + closingTag + ' and <!-- too';
  console.log(document.getElementById('out').textContent, increment(1), typeof notRun);
</script>
<script>
  /*! a licence comment that holds <!-- must stay, and cannot in a minified block */
  console.log( 'kept'   );
</script>
</body>
</html>
`;

/** The inline blocks of INDEX, minified: what the page holds after the pass. */
const INDEX_SCRIPTS = [
  ['<script>\n  // Counts clicks: the button\'s handler calls it by name.\n  var clickCount = 0;\n  function countClick(button) {\n    clickCount = clickCount + 1;\n    button.textContent = formatGreeting(\'click \' + clickCount);\n  }\n</script>',
    '<script>var clickCount=0;function countClick(c){clickCount+=1,c.textContent=formatGreeting("click "+clickCount)}</script>'],
  ['<script type="module">\n  import { greet } from \'./js/app.mjs\';\n  const message = greet(\'the module\');\n  document.body.dataset.greeting = message;\n  console.log(message);\n</script>',
    '<script type="module">import{greet as o}from"./js/app.mjs";const e=o("the module");document.body.dataset.greeting=e,console.log(e);</script>'],
  ['<script>\n  var closingTag = "<\\/script>";\n  document.getElementById(\'out\').textContent = \'A string that holds \' + closingTag + \' and <!-- too\';\n  console.log(document.getElementById(\'out\').textContent, increment(1), typeof notRun);\n</script>',
    '<script>var closingTag="<\\/script>";document.getElementById("out").textContent="A string that holds "+closingTag+" and \\x3c!-- too",console.log(document.getElementById("out").textContent,increment(1),typeof notRun);</script>'],
];

/** The original source of js/mapped.js and js/inline-map.js, before a build step made them (with their maps). */
const MAPPED_SOURCE = `// The original source of js/mapped.js.
function describeNumber(value) {
  if (value > 10) {
    return 'large';
  }
  return 'small';
}

console.log('mapped:', describeNumber(42));
`;

/** A windows-1252 page: "café" is one byte (0xE9), and so is the "ï" of js/latin.js (0xEF). */
const LEGACY = Buffer.concat([
  Buffer.from('<!doctype html>\n<html><head><meta charset="windows-1252"><title>Legacy</title>\n<script src="js/latin.js"></script>\n<script>\n  var word = "caf'),
  Buffer.from([0xe9]),
  Buffer.from('";\n  console.log(word + " " + accented, word.length);\n</script>\n</head><body><p>Legacy</p></body></html>\n'),
]);

/** A script loaded with Subresource Integrity, and an inline one a Content-Security-Policy allows by its hash. */
const PINNED_SCRIPT = 'window.pinned = function (value) {\n  return value * 2;\n};\n';
const HASHED_INLINE = "\n  console.log('allowed by its hash', pinned(21));\n";
const PINNED = `<!doctype html>
<html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="script-src 'self' 'sha256-${crypto.createHash('sha256').update(HASHED_INLINE).digest('base64')}'">
<title>Pinned</title>
<script src="js/pinned.js" integrity="sha384-${crypto.createHash('sha384').update(PINNED_SCRIPT).digest('base64')}"></script>
<script>${HASHED_INLINE}</script>
</head><body><p>Pinned</p></body></html>
`;

const BROKEN = '<!doctype html>\n<title>Broken</title>\n<script>\n  var fine = 1;\n  var = 2;\n</script>\n<script>var x = ;</script>\n<p>A page whose scripts do not parse.</p>\n';

/** The test site: every case of the pass in one build. */
async function writeSite() {
  const root = await tempDir();
  const beautified = await minify({ 'src/mapped-source.js': MAPPED_SOURCE }, { compress: false, mangle: false, format: { beautify: true, comments: 'all' }, sourceMap: { filename: 'mapped.js', url: 'mapped.js.map', root: '../', includeSources: true } });
  const inline = await minify({ 'src/mapped-source.js': MAPPED_SOURCE }, { compress: false, mangle: false, format: { beautify: true }, sourceMap: { url: 'inline', includeSources: true } });
  return writeTree(root, {
    'index.html': INDEX,
    'legacy.html': LEGACY,
    'broken.html': BROKEN,
    'pinned.html': PINNED,
    'js/pinned.js': PINNED_SCRIPT,
    'js/classic.js': '/*! classic.js: licence comment that must stay */\n// Formats a greeting; the page\'s scripts call it by name.\nfunction formatGreeting(name) {\n  var prefix = \'Hello, \';\n  var suffix = \'!\';\n  return prefix + name + suffix;\n}\n\nvar greetingCount = 0;\n',
    'js/app.mjs': 'import { exclaim } from \'./shout.js\';\n\nconst greetingPrefix = \'Hello from \';\n\nfunction buildGreeting(source) {\n  return exclaim(greetingPrefix + source);\n}\n\nexport function greet(source) {\n  return buildGreeting(source);\n}\n',
    // Imported by app.mjs and loaded by no page: a module.
    'js/shout.js': 'const exclamationMark = \'!\';\nlet exclamations = 0;\n\nexport function exclaim(text) {\n  exclamations = exclamations + 1;\n  return text + exclamationMark.repeat(exclamations);\n}\n',
    'js/already.min.js': 'window.increment=function(n){return n+1};',
    // Minified by htmx's build: terser writes 40 bytes fewer that gzip to 83 bytes more.
    'vendor/htmx.min.js': await fs.readFile(path.resolve('node_modules/htmx.org/dist/htmx.min.js')),
    'js/mapped.js': /** @type {string} */ (beautified.code),
    'js/mapped.js.map': /** @type {string} */ (beautified.map),
    'js/inline-map.js': /** @type {string} */ (inline.code),
    'js/missing-map.js': 'window.plusOne = function (value) {\n  return value + 1;\n};\n//# sourceMappingURL=missing-map.js.map\n',
    'js/broken.js': 'function broken( {\n  return 1;\n}\n',
    'js/data.js': '{ "name": "data", "values": [1, 2, 3] }\n',
    'js/latin.js': Buffer.concat([Buffer.from('// Loaded by legacy.html, a windows-1252 page.\nvar accented = "na'), Buffer.from([0xef]), Buffer.from('ve";\n')]),
  });
}

describe('scripts on a site of every case', () => {
  /** @type {string} */
  let input;
  /** @type {string} */
  let out;
  /** @type {import('../src/build/summary.js').BuildSummary} */
  let summary;
  beforeAll(async () => {
    input = await writeSite();
    out = path.join(await tempDir(), 'out');
    summary = await build({ input, output: out, only: ['scripts'], cache: false });
  }, 120_000);
  const read = (/** @type {string} */ root, /** @type {string} */ file) => fs.readFile(path.join(root, file));
  const text = async (/** @type {string} */ root, /** @type {string} */ file) => (await read(root, file)).toString('utf8');
  const decision = (/** @type {string} */ file) => scriptsReport(summary).decisions.find((d) => d.file === file);
  const unchanged = async (/** @type {string} */ file) => (await read(out, file)).equals(await read(input, file));

  it('minifies a classic script, keeping its top-level names (the page\'s scripts call them) and its licence comment', async () => {
    expect(await text(out, 'js/classic.js')).toBe('/*! classic.js: licence comment that must stay */\nfunction formatGreeting(e){return"Hello, "+e+"!"}var greetingCount=0;');
    expect(decision('js/classic.js')).toEqual({ file: 'js/classic.js', action: 'changed', reason: '246 → 119 B' });
  });

  it('mangles the top-level names of modules: a .mjs file, and a .js file only a module imports', async () => {
    // Top-level variables are renamed or inlined; exports and function names stay (Function.prototype.name).
    expect(await text(out, 'js/app.mjs')).toBe('import{exclaim as r}from"./shout.js";export function greet(t){return function buildGreeting(t){return r("Hello from "+t)}(t)}');
    expect(await text(out, 'js/shout.js')).toBe('let e=0;export function exclaim(t){return e+=1,t+"!".repeat(e)}');
    expect(decision('js/shout.js')).toEqual({ file: 'js/shout.js', action: 'changed', reason: '175 → 63 B as a module' });
  });

  it('minifies the inline classic and module scripts in place; every other byte of the page stays, JSON-LD, import map, speculation rules and templates included', async () => {
    let expected = INDEX;
    for (const [before, after] of INDEX_SCRIPTS) expected = expected.replace(before, after);
    expect(await text(out, 'index.html')).toBe(expected);
    expect(decision('index.html')).toEqual({ file: 'index.html', action: 'changed', reason: `3 inline scripts minified, ${Buffer.byteLength(INDEX)} → ${Buffer.byteLength(expected)} B; 1 kept (inline <script> at line 47: the minified text would hold "</script" or "<!--")` });
  });

  it('writes "</script>" in a string escaped: the page still has each <script> element, with the text meant', async () => {
    const page = await text(out, 'index.html');
    expect(page.match(/<script\b/g)).toHaveLength(INDEX.match(/<script\b/g)?.length ?? 0);
    expect(page).toContain('var closingTag="<\\/script>";');
  });

  it('keeps a minified file terser cannot shrink byte for byte, and counts it', async () => {
    expect(await unchanged('js/already.min.js')).toBe(true);
    expect(decision('js/already.min.js')).toEqual({ file: 'js/already.min.js', action: 'kept', reason: 'not smaller once minified (41 B against 41 B)' });
  });

  it('keeps a minified file that terser makes shorter but larger gzipped', async () => {
    expect(await unchanged('vendor/htmx.min.js')).toBe(true);
    expect(decision('vendor/htmx.min.js')).toEqual({ file: 'vendor/htmx.min.js', action: 'kept', reason: 'larger gzipped once minified (13470 B against 13387 B)' });
  });

  it('composes the source map a file names: the written map leads from the minified file to the original source', async () => {
    const minified = await text(out, 'js/mapped.js');
    expect(minified).toBe('function describeNumber(e){return e>10?"large":"small"}console.log("mapped:",describeNumber(42));\n//# sourceMappingURL=mapped.js.map');
    const map = JSON.parse(await text(out, 'js/mapped.js.map'));
    expect({ file: map.file, sourceRoot: map.sourceRoot, sources: map.sources, sourcesContent: map.sourcesContent }).toEqual({ file: 'mapped.js', sourceRoot: '../', sources: ['src/mapped-source.js'], sourcesContent: [MAPPED_SOURCE] });
    const consumer = new SourceMapConsumer(map);
    const at = (/** @type {string} */ token) => consumer.originalPositionFor({ line: 1, column: minified.indexOf(token) });
    expect(at('"large"')).toMatchObject({ source: '../src/mapped-source.js', line: 4, column: 11 });
    expect(at('"small"')).toMatchObject({ source: '../src/mapped-source.js', line: 6, column: 9 });
    expect(at('console')).toMatchObject({ source: '../src/mapped-source.js', line: 9, column: 0 });
    const size = (await read(input, 'js/mapped.js')).length;
    expect(decision('js/mapped.js')).toEqual({ file: 'js/mapped.js', action: 'changed', reason: `${size} → ${Buffer.byteLength(minified)} B, source map js/mapped.js.map composed` });
    expect(decision('js/mapped.js.map')?.action).toBe('changed');
  });

  it('composes a source map inline in a data: URL into a new inline map', async () => {
    const minified = await text(out, 'js/inline-map.js');
    const [code, url] = minified.split('\n//# sourceMappingURL=');
    expect(code).toBe('function describeNumber(e){return e>10?"large":"small"}console.log("mapped:",describeNumber(42));');
    const map = JSON.parse(Buffer.from(url.replace(/^data:application\/json;charset=utf-8;base64,/, ''), 'base64').toString('utf8'));
    const consumer = new SourceMapConsumer(map);
    expect(consumer.originalPositionFor({ line: 1, column: code.indexOf('"large"') })).toMatchObject({ source: 'src/mapped-source.js', line: 4, column: 11 });
  });

  it('keeps a file whose source map is not in the site: minifying it would make that map wrong', async () => {
    expect(await unchanged('js/missing-map.js')).toBe(true);
    expect(decision('js/missing-map.js')).toEqual({ file: 'js/missing-map.js', action: 'kept', reason: 'names a source map that is not in the site (missing-map.js.map)' });
  });

  it('copies a file with a syntax error unchanged, with one warning that gives terser\'s message and where', async () => {
    expect(await unchanged('js/broken.js')).toBe(true);
    expect(summary.warnings.filter((w) => w.file === 'js/broken.js').map((w) => [w.code, w.message])).toEqual([
      ['script-unparsable', 'scripts: terser cannot parse it: Unexpected token num «1», expected punc «:» at 2:10; copied unchanged'],
    ]);
  });

  it('copies inline scripts that do not parse unchanged, with one warning for the page, at the page\'s line and column', async () => {
    expect(await unchanged('broken.html')).toBe(true);
    expect(summary.warnings.filter((w) => w.file === 'broken.html').map((w) => [w.code, w.message])).toEqual([
      ['script-unparsable', 'scripts: 2 inline scripts do not parse; the first, inline <script> at line 3: terser cannot parse it: Name expected at 5:7; copied unchanged'],
    ]);
  });

  it('leaves a .js file that holds JSON unchanged, without a warning: it is data, not a script', async () => {
    expect(await unchanged('js/data.js')).toBe(true);
    expect(decision('js/data.js')).toEqual({ file: 'js/data.js', action: 'skipped', reason: 'a JSON value, not a script' });
    expect(summary.warnings.filter((w) => w.file === 'js/data.js')).toEqual([]);
  });

  it('keeps a file a page loads with an integrity attribute, and the inline scripts of a page whose Content-Security-Policy allows them by hash', async () => {
    expect(await unchanged('js/pinned.js')).toBe(true);
    expect(decision('js/pinned.js')).toEqual({ file: 'js/pinned.js', action: 'kept', reason: 'a page loads it with an integrity attribute: changed bytes would not load' });
    expect(await unchanged('pinned.html')).toBe(true);
    expect(decision('pinned.html')).toEqual({ file: 'pinned.html', action: 'kept', reason: 'its Content-Security-Policy allows scripts by hash: a changed inline script would not run' });
  });

  it('reads a windows-1252 page\'s scripts in windows-1252 and writes non-ASCII characters as escapes', async () => {
    expect(await text(out, 'js/latin.js')).toBe('var accented="na\\xefve";');
    const page = await read(out, 'legacy.html');
    const expected = Buffer.from(LEGACY.toString('latin1').replace(/<script>\n[^<]*<\/script>/, '<script>var word="caf\\xe9";console.log(word+" "+accented,word.length);</script>'), 'latin1');
    expect(page.equals(expected)).toBe(true);
  });

  it('reports each file with its bytes before and after, and the bytes saved in the build\'s summary', async () => {
    const report = scriptsReport(summary);
    const files = Object.fromEntries(report.files.map((f) => [f.path, f.after - f.before]));
    expect(Object.keys(files).sort()).toEqual(['index.html', 'js/app.mjs', 'js/classic.js', 'js/inline-map.js', 'js/latin.js', 'js/mapped.js', 'js/mapped.js.map', 'js/shout.js', 'legacy.html']);
    expect(report.bytesBefore - report.bytesAfter).toBe(-Object.values(files).reduce((a, b) => a + b, 0));
    const saved = summary.totals.bytesIn - summary.totals.bytesOut;
    expect(saved).toBe(report.bytesBefore - report.bytesAfter);
    const fmt = (/** @type {number} */ n) => n.toLocaleString('en-US');
    const changed = report.decisions.filter((d) => d.action === 'changed').length;
    expect(formatBuildSummary(summary)).toMatch(new RegExp(`\\n  scripts +\\S+ m?s  ${changed} changed(, \\d+ kept)?, ${fmt(report.bytesBefore)} B -> ${fmt(report.bytesAfter)} B\\n`));
  });

  it('writes the same output again from the worker cache', async () => {
    const cacheDir = await tempDir();
    const first = path.join(await tempDir(), 'out');
    const second = path.join(await tempDir(), 'out');
    await build({ input, output: first, only: ['scripts'], cacheDir });
    const again = await build({ input, output: second, only: ['scripts'], cacheDir });
    const strip = (/** @type {Map<string, Buffer>} */ tree) => new Map([...tree].filter(([name]) => !name.startsWith('.pagediet')));
    expect(strip(await readTree(second))).toEqual(strip(await readTree(first)));
    expect(again.work.jobs).toBe(0);
  }, 120_000);
});

describe('scripts in Chromium', () => {
  /** @type {import('playwright-core').Browser} */
  let browser;
  beforeAll(async () => {
    if (!chromiumMissing) browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  chromiumTest('every page of the test site does the same before and after: DOM once loaded, after a click, and console', async () => {
    const input = await writeSite();
    const out = path.join(await tempDir(), 'out');
    await build({ input, output: out, only: ['scripts'], cache: false });
    for (const page of ['index.html', 'legacy.html', 'broken.html', 'pinned.html']) {
      const before = await whatScriptsDid(browser, input, page);
      const after = await whatScriptsDid(browser, out, page);
      expect(after).toEqual(before);
      if (page === 'index.html') {
        // The scripts ran: the handler called a classic script's function, the module its imports.
        expect(before.clicked).toContain('<button id="button" onclick="countClick(this)">Hello, click 1!</button>');
        expect(before.console).toEqual(['log: Hello from the module!', 'log: A string that holds </script> and <!-- too 2 undefined', 'log: mapped: large', 'log: kept'].sort());
      }
      if (page === 'legacy.html') expect(before.console).toEqual(['log: café naïve 4']);
      if (page === 'pinned.html') expect(before.console).toEqual(['log: allowed by its hash 42']);
    }
  }, 120_000);

  chromiumTest('every page of fixtures/modern does the same before and after', async () => {
    const input = path.resolve('fixtures/modern');
    const out = path.join(await tempDir(), 'out');
    await build({ input, output: out, only: ['scripts'], cache: false });
    const pages = [...(await readTree(input)).keys()].filter((p) => p.endsWith('.html')).sort();
    expect(pages.length).toBeGreaterThan(0);
    for (const page of pages) expect({ page, ...(await whatScriptsDid(browser, out, page)) }).toEqual({ page, ...(await whatScriptsDid(browser, input, page)) });
  }, 120_000);
});

const ORIGIN = 'http://site.test';

/** Types as a server that names no charset sends them: pages and classic scripts are read in the page's charset. */
const TYPES = /** @type {Record<string, string>} */ ({ html: 'text/html', js: 'text/javascript', mjs: 'text/javascript', json: 'application/json', map: 'application/json', css: 'text/css', svg: 'image/svg+xml', webp: 'image/webp', jpg: 'image/jpeg', png: 'image/png' });

/**
 * What a page's scripts did in Chromium, served from a folder: the DOM once
 * the page is loaded and idle (each script element's own text left out), the
 * DOM after clicking its first button, and the console messages and page
 * errors, sorted (modules and classic scripts may log in either order).
 * Math.random is seeded, so scripts that use it do the same in both runs.
 * @param {import('playwright-core').Browser} browser
 * @param {string} root
 * @param {string} page
 */
async function whatScriptsDid(browser, root, page) {
  const context = await browser.newContext({ serviceWorkers: 'block' });
  try {
    await context.route('**/*', async (route) => {
      const url = new URL(route.request().url());
      if (url.origin !== ORIGIN) return route.abort('blockedbyclient');
      const file = path.join(root, decodeURIComponent(url.pathname));
      const body = await fs.readFile(file.endsWith('/') ? path.join(file, 'index.html') : file).catch(() => null);
      if (!body) return route.fulfill({ status: 404, body: '' });
      return route.fulfill({ status: 200, body, contentType: TYPES[path.extname(file).slice(1)] ?? 'application/octet-stream' });
    });
    await context.addInitScript(() => {
      let seed = 42;
      Math.random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    });
    const tab = await context.newPage();
    /** @type {string[]} */
    const messages = [];
    tab.on('console', (message) => messages.push(`${message.type()}: ${message.text()}`));
    tab.on('pageerror', (error) => messages.push(`page error: ${error.message}`));
    await tab.goto(`${ORIGIN}/${page}`, { waitUntil: 'networkidle' });
    const dom = () => tab.evaluate(() => {
      const copy = /** @type {Element} */ (document.documentElement.cloneNode(true));
      for (const script of copy.querySelectorAll('script')) script.textContent = '';
      return copy.outerHTML;
    });
    const loaded = await dom();
    const button = tab.locator('button:visible').first();
    let clicked = null;
    if (await button.count()) {
      // What the click starts is waited for by its events, not for a guessed time: an htmx button's request
      // ends with htmx:finally:request, after its swap and settle (htmx 4; htmx:afterSettle or an error event in
      // htmx 1 and 2); then two frames.
      const htmx = await button.evaluate((el) => [...el.attributes].some((a) => /^(data-)?hx-(get|post|put|patch|delete)$/.test(a.name)));
      if (htmx) await tab.evaluate(() => { /** @type {any} */ (window).settled = new Promise((resolve) => { for (const end of ['htmx:finally:request', 'htmx:afterSettle', 'htmx:responseError', 'htmx:sendError']) document.addEventListener(end, resolve, { once: true }); }); });
      await button.click({ timeout: 60_000 }).catch(() => {});
      if (htmx) await tab.evaluate(() => /** @type {any} */ (window).settled);
      await tab.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      clicked = await dom();
    }
    return { dom: loaded, clicked, console: messages.sort() };
  } finally {
    await context.close();
  }
}

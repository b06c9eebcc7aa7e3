/**
 * The README's demo on a machine with no browser of its own: in a mount
 * namespace that covers every browser installed here (test/helpers/hidden-browsers.js),
 * first with only the embedded browser to find, then with none at all.
 * Under CI a machine where browsers cannot be hidden fails these tests.
 */
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { hidingUnavailable, runWithBrowsersHidden } from './helpers/hidden-browsers.js';
import { readTree, tempDir, writeTree } from './helpers/tmp.js';
import textImagesPass from '../src/passes/text-images.js';
import { needed } from './helpers/needed.js';

const unavailable = needed(await hidingUnavailable(), 'test/browser-hidden.test.js');

/** @param {string} stdout */
const textImages = (stdout) => {
  const summary = JSON.parse(stdout);
  return { summary, pass: summary.passes.find((/** @type {{ name: string }} */ p) => p.name === 'text-images') };
};

/**
 * Builds microscape with text-images alone and no browser to find, and holds the output to the input's bytes.
 * @param {string} home
 * @param {string[]} flags
 */
async function buildKeepingEveryImage(home, flags) {
  const out = path.join(home, 'out');
  const build = await runWithBrowsersHidden(['build', path.resolve('fixtures/microscape'), '--out', out, '--only', 'text-images', '--no-report', '--json', '--quiet', ...flags], { home, hideEmbedded: true });
  expect(build.code).toBe(0);
  const result = textImages(build.stdout);
  expect(result.pass.decisions.filter((/** @type {{ action: string }} */ d) => d.action === 'changed')).toEqual([]);
  const written = await readTree(out);
  written.delete('.pagediet-output.json');
  expect(written).toEqual(await readTree('fixtures/microscape'));
  return result;
}

describe.skipIf(unavailable)('with only the embedded browser', () => {
  /** @type {string} */
  let home;
  beforeAll(async () => {
    home = await tempDir('pagediet-home-');
  });

  it('doctor finds the embedded browser alone, unpacks it and is content', async () => {
    const { code, stdout } = await runWithBrowsersHidden(['doctor', '--json'], { home });
    const d = JSON.parse(stdout);
    expect(d.browsersFound.map((/** @type {{ source: string }} */ b) => b.source)).toEqual(['embedded']);
    expect(d.browser.source).toBe('embedded');
    expect(d.browser.path).toBe(path.join(home, 'browsers', 'chromium-153.0.0', 'chromium'));
    expect(d.problems).toEqual([]);
    expect(code).toBe(0);
  }, 120_000);

  it('the demo replaces microscape\'s 24 text images, 43 requests to 19, each above the similarity floor', async () => {
    const out = path.join(home, 'out');
    const { code, stdout, stderr } = await runWithBrowsersHidden(['demo', '--out', out, '--json', '--no-report', '--quiet'], { home });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const { summary, pass } = textImages(stdout);
    const changed = pass.decisions.filter((/** @type {{ action: string }} */ d) => d.action === 'changed');
    expect(changed).toHaveLength(24);
    for (const d of changed) expect(d.score).toBeGreaterThanOrEqual(textImagesPass.options.textImagesThreshold.default);
    expect(pass.requestsRemoved).toBe(24);
    expect([summary.totals.requestsBefore, summary.totals.requestsAfter]).toEqual([43, 19]);
    expect(summary.warnings.map((/** @type {{ code: string }} */ w) => w.code)).toEqual(['links-missing']);
  }, 300_000);
});

describe.skipIf(unavailable)('with no browser at all', () => {
  it('the demo ends with exit 0 and one warning line that says how to get a browser; text-images changes no byte', async () => {
    const home = await tempDir('pagediet-home-');
    const demo = await runWithBrowsersHidden(['demo', '--out', path.join(home, 'demo'), '--no-report', '--quiet'], { home, hideEmbedded: true });
    expect(demo.stderr).toBe('');
    expect(demo.code).toBe(0);
    // One warning, whole (it says what to do), and each pass's decisions counted in one line (image-markup's too:
    // it measures the layout in a browser).
    const lines = demo.stdout.split('\n');
    expect(lines.filter((l) => /browser/.test(l)).slice(0, 3)).toEqual([
      '    skipped 40: no browser to prove the replacement (images/logo.gif, …)',
      '    skipped 1: 1 page left as they are: no browser to measure the layout',
      '  warning 1: no browser to prove replacements in: text images kept',
    ]);
    const at = lines.indexOf('  warning 1: no browser to prove replacements in: text images kept');
    const rest = lines.slice(at + 1);
    const message = rest.slice(0, rest.findIndex((l) => !l.startsWith('    '))).map((l) => l.trim()).join(' ');
    expect(message).toBe('text-images: every text image kept: no browser found to prove replacements: install Chromium (Debian/Ubuntu: apt-get install chromium), reinstall pagediet with its optional dependencies (npm install --include=optional) for the embedded @sparticuz/chromium, or name a browser with --browser <path>');
    // Piped: laid out for 80 columns, and no line cut ('…' at its end).
    expect(lines.filter((line) => line.endsWith('…'))).toEqual([]);
    expect(demo.stdout).toMatch(/, 43 -> 43 requests$/m);
    const { pass } = await buildKeepingEveryImage(home, []);
    expect(pass.decisions.filter((/** @type {{ action: string }} */ d) => d.action === 'skipped')).toHaveLength(40);
  }, 300_000);

  it('a named browser that cannot start, with nothing else to try: every image kept with one warning', async () => {
    const { summary } = await buildKeepingEveryImage(await tempDir('pagediet-home-'), ['--browser', '/bin/false']);
    expect(summary.warnings.filter((/** @type {{ code: string }} */ w) => w.code !== 'links-missing').map((/** @type {{ message: string }} */ w) => w.message)).toEqual([
      expect.stringMatching(/^text-images: every text image kept: no browser started \(the browser named by --browser \(\/bin\/false\) did not start: .*\): install Chromium/),
    ]);
  }, 300_000);

  it('svg changes no SVG without a browser to prove it in, and says so in one decision', async () => {
    const home = await tempDir('pagediet-home-');
    const star = '<?xml version="1.0" encoding="UTF-8"?>\n<!-- Created with an editor -->\n<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" viewBox="0 0 24 24"><title>Star</title><g id="layer1"><path d="M 12.000000 2.000000 L 15.000000 9.000000 L 22.000000 9.500000 L 16.500000 14.000000 L 18.000000 21.000000 L 12.000000 17.000000 Z" fill="#ffcc00"/></g></svg>\n';
    const input = await writeTree(path.join(home, 'site'), { 'star.svg': star, 'index.html': '<!doctype html><title>t</title><img src="star.svg" alt="star">' });
    const out = path.join(home, 'out');
    const build = await runWithBrowsersHidden(['build', input, '--out', out, '--only', 'svg', '--no-report', '--json', '--quiet'], { home, hideEmbedded: true });
    expect(build.code).toBe(0);
    const pass = JSON.parse(build.stdout).passes.find((/** @type {{ name: string }} */ p) => p.name === 'svg');
    expect(pass.decisions).toEqual([{ file: '', action: 'skipped', reason: expect.stringMatching(/^1 SVG drawing svgo makes smaller left as it is: no browser to prove it in \(no browser found/) }]);
    const written = await readTree(out);
    written.delete('.pagediet-output.json');
    expect(written).toEqual(await readTree(input));
  }, 120_000);

  it('doctor exits 1 and says why', async () => {
    const { code, stdout } = await runWithBrowsersHidden(['doctor'], { hideEmbedded: true });
    expect(code).toBe(1);
    expect(stdout).toMatch(/^browser: none started$/m);
    expect(stdout.trim().split('\n').at(-1)).toBe('problem: text-images cannot prove replacements: no browser found: install Chromium (Debian/Ubuntu: apt-get install chromium), reinstall pagediet with its optional dependencies (npm install --include=optional) for the embedded @sparticuz/chromium, or name a browser with --browser <path>');
  }, 120_000);
});

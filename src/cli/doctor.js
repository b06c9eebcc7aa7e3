/**
 * `pagediet doctor`: what this machine gives pagediet, for a user to check
 * before a build and to paste into a bug report. The browser is started as a
 * build would start it; fonts are the families text images are matched in
 * that the browser can draw; OCR data and the caches are looked up where the
 * passes look. The real servers are for contributors (the config tests).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { VERSION } from '../build/summary.js';
import { launchBrowser } from '../browser/launch.js';
import { NoBrowserError } from '../browser/no-browser-error.js';
import { findBrowsers } from '../browser/discovery.js';
import { browserCacheDir } from '../browser/embedded.js';
import { FAMILIES } from '../text-images/estimate.js';
import { englishDataDir } from '../text-images/ocr.js';
import { defaultCacheDir } from '../util/cache.js';

/**
 * @typedef {object} Diagnosis
 * @property {string} pagediet its version
 * @property {string} node
 * @property {string} platform e.g. linux x64
 * @property {{ name: string, source: string, path: string, version: string } | null} browser the browser a build would use
 * @property {{ name: string, source: string, path: string }[]} browsersFound every browser found, in the order they are tried
 * @property {string[]} browserFailures those tried before it that did not start
 * @property {string[]} fonts the families text images are matched in that the browser draws
 * @property {string[]} fontsMissing the others (the browser substitutes another font for them)
 * @property {string | null} ocrData the folder of the English OCR model, or null when it is missing
 * @property {{ results: string, browsers: string }} cache
 * @property {Record<string, string | null>} servers for contributors: each tool the config and precompression tests run, and where it is
 * @property {string[]} problems why a default pass cannot run fully; empty when all can
 */

/** The programs the real-server tests start or compare with (see .ci/run). */
const TEST_TOOLS = ['nginx', 'apache2', 'caddy', 'h2o', 'brotli', 'zopfli'];

/**
 * Looks at this machine.
 * @param {{ browser?: string, cwd?: string }} [options] browser: as build's --browser
 * @returns {Promise<Diagnosis>}
 */
export async function diagnose({ browser: named, cwd = process.cwd() } = {}) {
  /** @type {string[]} */
  const problems = [];
  /** @type {Diagnosis['browser']} */
  let browser = null;
  /** @type {string[]} */
  let browserFailures = [];
  /** @type {string[]} */
  let fonts = [];
  const families = FAMILIES.map(([name]) => name);
  try {
    const launched = await launchBrowser({ browser: named });
    browserFailures = launched.failed;
    try {
      browser = { name: launched.candidate.name, source: launched.candidate.source, path: launched.executable, version: launched.browser.version() };
      fonts = await drawnFamilies(launched.browser, families);
    } finally {
      await launched.browser.close();
    }
  } catch (error) {
    if (!(error instanceof NoBrowserError)) throw error;
    browserFailures = error.failed;
    problems.push(`text-images cannot prove replacements: ${error.message}`);
  }
  if (browser && !fonts.length) problems.push(`text-images can match no text: the browser draws none of ${families.join(', ')} (Debian/Ubuntu: apt-get install fonts-dejavu-core fonts-liberation)`);
  let ocrData = null;
  try {
    const dir = englishDataDir();
    if (fs.existsSync(path.join(dir, 'eng.traineddata.gz'))) ocrData = dir;
  } catch {
    // the package is missing
  }
  if (!ocrData) problems.push('text-images cannot read images with OCR: the English model (@tesseract.js-data/eng) is missing; reinstall pagediet');
  /** @type {Record<string, string | null>} */
  const servers = {};
  for (const tool of TEST_TOOLS) servers[tool] = onPath(tool);
  return {
    pagediet: VERSION,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    browser,
    browsersFound: findBrowsers({ browser: named }),
    browserFailures,
    fonts,
    fontsMissing: families.filter((f) => !fonts.includes(f)),
    ocrData,
    cache: { results: defaultCacheDir(cwd), browsers: browserCacheDir() },
    servers,
    problems,
  };
}

/**
 * The families a browser draws as themselves: a text in `family, fallback`
 * measures as in the fallback alone, for two different fallbacks, only when
 * the family is missing.
 * @param {import('playwright-core').Browser} browser
 * @param {string[]} families
 */
async function drawnFamilies(browser, families) {
  const page = await browser.newPage();
  try {
    return await page.evaluate((names) => {
      const context = /** @type {CanvasRenderingContext2D} */ (document.createElement('canvas').getContext('2d'));
      /** @param {string} font */
      const width = (font) => {
        context.font = `40px ${font}`;
        return context.measureText('mmmmmmmmmmlli WQ@#').width;
      };
      return names.filter((name) => ['monospace', 'serif', 'sans-serif'].some((generic) => width(`"${name}", ${generic}`) !== width(generic)));
    }, families);
  } finally {
    await page.close();
  }
}

/** @param {string} command */
function onPath(command) {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const file = path.join(dir, command);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * The diagnosis as lines for the terminal.
 * @param {Diagnosis} d
 */
export function formatDiagnosis(d) {
  const lines = [`pagediet ${d.pagediet} on node ${d.node}, ${d.platform} (${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB)`];
  lines.push(d.browser ? `browser: ${d.browser.version} from ${d.browser.name}: ${d.browser.path}` : 'browser: none started');
  for (const failure of d.browserFailures) lines.push(`  tried first: ${failure}`);
  const others = d.browsersFound.filter((b) => b.path !== d.browser?.path && !(d.browser?.source === 'embedded' && b.source === 'embedded'));
  if (others.length) lines.push(`  also found: ${others.map((b) => `${b.name} (${b.path})`).join('; ')}`);
  if (d.browser) lines.push(`fonts text images are matched in: ${d.fonts.join(', ') || 'none'}${d.fontsMissing.length ? ` (missing: ${d.fontsMissing.join(', ')})` : ''}`);
  lines.push(`OCR: ${d.ocrData ? `English model in ${d.ocrData}` : 'the English model is missing'}`);
  lines.push(`cache: results in ${d.cache.results}; browsers unpacked in ${d.cache.browsers}`);
  const present = Object.entries(d.servers).filter(([, p]) => p).map(([t]) => t);
  const absent = Object.entries(d.servers).filter(([, p]) => !p).map(([t]) => t);
  lines.push(`for contributors, tools the tests run: ${present.join(', ') || 'none'}${absent.length ? `; missing: ${absent.join(', ')}` : ''}`);
  if (d.problems.length) for (const p of d.problems) lines.push(`problem: ${p}`);
  else lines.push('ok: every default pass can run fully');
  return `${lines.join('\n')}\n`;
}

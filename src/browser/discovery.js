/**
 * Where a Chromium-family browser may be on this machine, in the order
 * pagediet tries them (the first that launches wins, see browser-launch.js):
 *
 * 1. the one the user names: `--browser`, `browser` in the config file, or
 *    PAGEDIET_CHROMIUM;
 * 2. Chromium, Chrome or Edge installed at their standard places on Linux,
 *    macOS and Windows (and on the PATH);
 * 3. browsers already downloaded into Playwright's or Puppeteer's caches,
 *    newest version first;
 * 4. the embedded browser, an optional dependency that ships Chromium inside
 *    its registry package (embedded.js).
 *
 * The standard places are a table here: playwright-core knows Chrome's and
 * Edge's (this table repeats them) but does not export them, and the
 * maintained locators (chrome-launcher, @puppeteer/browsers) know Chrome only,
 * not Chromium, Edge or Playwright's cache. Everything the search reads of the
 * machine comes through a `Host`, so tests give it fake file trees.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * @typedef {'option' | 'env' | 'system' | 'path' | 'playwright' | 'puppeteer' | 'embedded'} BrowserSource
 *
 * @typedef {object} BrowserCandidate
 * @property {BrowserSource} source
 * @property {string} name what it is, for messages ("Google Chrome", "Playwright's chromium-1200")
 * @property {string} path the executable; for 'embedded', the package folder it is unpacked from
 *
 * @typedef {object} Host what the search reads of the machine
 * @property {NodeJS.Platform} platform
 * @property {string} arch
 * @property {Record<string, string | undefined>} env
 * @property {string} home
 * @property {(file: string) => boolean} isExecutable a file that exists (and is executable, off Windows)
 * @property {(dir: string) => string[]} list the names in a folder; [] when it is missing
 * @property {() => string | null} embeddedPackage the embedded browser's package folder, or null when it is not installed
 * @property {(file: string) => string} [realpath] the file a path names through links (a browser found twice is tried once)
 */

/** The embedded browser's package (an optional dependency). */
export const EMBEDDED_PACKAGE = '@sparticuz/chromium';

/**
 * Standard places on Linux and macOS, and on Windows under each program
 * folder (see WINDOWS_PREFIXES). Chromium first: it is what Linux
 * distributions package and what pagediet's fits were calibrated on.
 * @type {Record<'linux' | 'darwin' | 'win32', [string, string][]>} [name, path]
 */
const STANDARD_PLACES = {
  linux: [
    // Debian's binary before its wrapper script, which prints shell errors of its own on some machines.
    ['Chromium', '/usr/lib/chromium/chromium'],
    ['Chromium', '/usr/bin/chromium'],
    ['Chromium', '/usr/bin/chromium-browser'],
    ['Chromium', '/snap/bin/chromium'],
    ['Google Chrome', '/opt/google/chrome/chrome'],
    ['Google Chrome', '/usr/bin/google-chrome-stable'],
    ['Google Chrome', '/usr/bin/google-chrome'],
    ['Google Chrome Beta', '/opt/google/chrome-beta/chrome'],
    ['Google Chrome Dev', '/opt/google/chrome-unstable/chrome'],
    ['Microsoft Edge', '/opt/microsoft/msedge/msedge'],
    ['Microsoft Edge', '/usr/bin/microsoft-edge-stable'],
    ['Microsoft Edge Beta', '/opt/microsoft/msedge-beta/msedge'],
  ],
  darwin: [
    ['Chromium', '/Applications/Chromium.app/Contents/MacOS/Chromium'],
    ['Google Chrome', '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome'],
    ['Google Chrome Beta', '/Applications/Google Chrome Beta.app/Contents/MacOS/Google Chrome Beta'],
    ['Google Chrome Dev', '/Applications/Google Chrome Dev.app/Contents/MacOS/Google Chrome Dev'],
    ['Google Chrome Canary', '/Applications/Google Chrome Canary.app/Contents/MacOS/Google Chrome Canary'],
    ['Microsoft Edge', '/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge'],
    ['Microsoft Edge Beta', '/Applications/Microsoft Edge Beta.app/Contents/MacOS/Microsoft Edge Beta'],
  ],
  win32: [
    ['Chromium', 'Chromium\\Application\\chrome.exe'],
    ['Google Chrome', 'Google\\Chrome\\Application\\chrome.exe'],
    ['Google Chrome Beta', 'Google\\Chrome Beta\\Application\\chrome.exe'],
    ['Google Chrome Dev', 'Google\\Chrome Dev\\Application\\chrome.exe'],
    ['Google Chrome Canary', 'Google\\Chrome SxS\\Application\\chrome.exe'],
    ['Microsoft Edge', 'Microsoft\\Edge\\Application\\msedge.exe'],
    ['Microsoft Edge Beta', 'Microsoft\\Edge Beta\\Application\\msedge.exe'],
  ],
};

/** The folders Windows installs programs in, per user first (as Chrome installs without admin rights). */
const WINDOWS_PREFIXES = ['LOCALAPPDATA', 'PROGRAMFILES', 'PROGRAMFILES(X86)'];

/** Commands looked for on the PATH (Linux), after the standard places. */
const PATH_COMMANDS = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome', 'microsoft-edge-stable', 'microsoft-edge'];

/**
 * The executable inside a downloaded browser's folder, by platform, as
 * Playwright and Puppeteer lay them out (Chrome for Testing's folders, and
 * the older chrome-linux/chrome-mac/chrome-win of Chromium snapshots).
 * @type {Record<string, string[][]>}
 */
const DOWNLOAD_LAYOUTS = {
  'linux-x64': [['chrome-linux64', 'chrome'], ['chrome-linux', 'chrome'], ['chrome-headless-shell-linux64', 'chrome-headless-shell'], ['chrome-linux', 'headless_shell']],
  'linux-arm64': [['chrome-linux-arm64', 'chrome'], ['chrome-linux', 'chrome'], ['chrome-headless-shell-linux-arm64', 'chrome-headless-shell'], ['chrome-linux', 'headless_shell']],
  'darwin-x64': [['chrome-mac-x64', 'Google Chrome for Testing.app', 'Contents', 'MacOS', 'Google Chrome for Testing'], ['chrome-mac', 'Chromium.app', 'Contents', 'MacOS', 'Chromium'], ['chrome-headless-shell-mac-x64', 'chrome-headless-shell'], ['chrome-mac', 'headless_shell']],
  'darwin-arm64': [['chrome-mac-arm64', 'Google Chrome for Testing.app', 'Contents', 'MacOS', 'Google Chrome for Testing'], ['chrome-mac', 'Chromium.app', 'Contents', 'MacOS', 'Chromium'], ['chrome-headless-shell-mac-arm64', 'chrome-headless-shell'], ['chrome-mac', 'headless_shell']],
  'win32-x64': [['chrome-win64', 'chrome.exe'], ['chrome-win', 'chrome.exe'], ['chrome-headless-shell-win64', 'chrome-headless-shell.exe'], ['chrome-win', 'headless_shell.exe']],
};

/**
 * Puppeteer's platform folder prefix (`linux-131.0.6778.85`, `mac_arm-…`, `win64-…`).
 * @type {Record<string, string>}
 */
const PUPPETEER_PLATFORMS = { 'linux-x64': 'linux', 'linux-arm64': 'linux_arm', 'darwin-x64': 'mac', 'darwin-arm64': 'mac_arm', 'win32-x64': 'win64' };

/** The machine pagediet runs on. @returns {Host} */
export function thisHost() {
  return {
    platform: process.platform,
    arch: process.arch,
    env: process.env,
    home: os.homedir(),
    isExecutable: (file) => {
      try {
        if (!fs.statSync(file).isFile()) return false;
        if (process.platform !== 'win32') fs.accessSync(file, fs.constants.X_OK);
        return true;
      } catch {
        return false;
      }
    },
    realpath: (file) => {
      try {
        return fs.realpathSync(file);
      } catch {
        return file;
      }
    },
    list: (dir) => {
      try {
        return fs.readdirSync(dir);
      } catch {
        return [];
      }
    },
    embeddedPackage: () => {
      try {
        // Its exports name no package.json: resolve its entry and go up to the folder that holds it.
        let dir = path.dirname(fileURLToPath(import.meta.resolve(EMBEDDED_PACKAGE)));
        while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
        return fs.existsSync(path.join(dir, 'bin', 'chromium.br')) ? dir : null;
      } catch {
        return null;
      }
    },
  };
}

/**
 * Every browser the search finds, in the order they are tried.
 * @param {{ browser?: string }} [options] `browser`: the --browser option or config key
 * @param {Host} [host]
 * @returns {BrowserCandidate[]}
 */
export function findBrowsers(options = {}, host = thisHost()) {
  const join = host.platform === 'win32' ? path.win32.join : path.posix.join;
  /** @type {BrowserCandidate[]} */
  const found = [];
  const seen = new Set();
  /** @param {BrowserSource} source @param {string} name @param {string} file */
  const add = (source, name, file) => {
    const real = host.realpath?.(file) ?? file;
    if (seen.has(real)) return;
    seen.add(real);
    found.push({ source, name, path: file });
  };
  // Named by the user: kept even when missing, so that launching says why it failed.
  if (options.browser) add('option', 'the browser named by --browser', options.browser);
  if (host.env.PAGEDIET_CHROMIUM) add('env', 'the browser named by PAGEDIET_CHROMIUM', host.env.PAGEDIET_CHROMIUM);

  const platform = host.platform === 'linux' || host.platform === 'darwin' || host.platform === 'win32' ? host.platform : null;
  if (platform === 'win32') {
    for (const prefix of WINDOWS_PREFIXES) {
      const root = host.env[prefix];
      if (!root) continue;
      for (const [name, rest] of STANDARD_PLACES.win32) if (host.isExecutable(join(root, rest))) add('system', name, join(root, rest));
    }
  } else if (platform) {
    for (const [name, file] of STANDARD_PLACES[platform]) if (host.isExecutable(file)) add('system', name, file);
    if (platform === 'darwin') {
      for (const [name, file] of STANDARD_PLACES.darwin) {
        const mine = join(host.home, file);
        if (host.isExecutable(mine)) add('system', name, mine);
      }
    }
  }
  if (platform === 'linux') {
    for (const dir of (host.env.PATH ?? '').split(':').filter(Boolean)) {
      for (const command of PATH_COMMANDS) if (host.isExecutable(join(dir, command))) add('path', command, join(dir, command));
    }
  }

  const key = `${host.platform}-${host.arch}`;
  const layouts = DOWNLOAD_LAYOUTS[key] ?? [];
  const cache = userCacheDir(host);
  // Playwright: <registry>/chromium-1200/chrome-linux64/chrome, chromium_headless_shell-1200/…
  const playwright = host.env.PLAYWRIGHT_BROWSERS_PATH && host.env.PLAYWRIGHT_BROWSERS_PATH !== '0' ? host.env.PLAYWRIGHT_BROWSERS_PATH : cache && join(cache, 'ms-playwright');
  if (playwright) {
    const builds = host.list(playwright).map((name) => ({ name, m: /^(chromium|chromium_headless_shell)-(\d+)$/.exec(name) })).filter((b) => b.m);
    builds.sort((a, b) => Number(b.m?.[2]) - Number(a.m?.[2]) || (a.m?.[1] === 'chromium' ? -1 : 1));
    for (const { name } of builds) {
      for (const layout of layouts) {
        const file = join(playwright, name, ...layout);
        if (host.isExecutable(file)) {
          add('playwright', `Playwright's ${name}`, file);
          break;
        }
      }
    }
  }
  // Puppeteer: <cache>/chrome/linux-131.0.6778.85/chrome-linux64/chrome, chrome-headless-shell/…, chromium/linux-1083080/chrome-linux/chrome
  const puppeteer = host.env.PUPPETEER_CACHE_DIR || join(host.home, '.cache', 'puppeteer');
  const prefix = PUPPETEER_PLATFORMS[key];
  if (prefix) {
    /** @type {{ browser: string, build: string, version: number[] }[]} */
    const builds = [];
    for (const browser of ['chrome', 'chromium', 'chrome-headless-shell']) {
      for (const build of host.list(join(puppeteer, browser))) {
        if (!build.startsWith(`${prefix}-`)) continue;
        builds.push({ browser, build, version: build.slice(prefix.length + 1).split('.').map(Number) });
      }
    }
    builds.sort((a, b) => compareVersions(b.version, a.version) || ['chrome', 'chromium', 'chrome-headless-shell'].indexOf(a.browser) - ['chrome', 'chromium', 'chrome-headless-shell'].indexOf(b.browser));
    for (const { browser, build } of builds) {
      for (const layout of layouts) {
        const file = join(puppeteer, browser, build, ...layout);
        if (host.isExecutable(file)) {
          add('puppeteer', `Puppeteer's ${browser} ${build}`, file);
          break;
        }
      }
    }
  }

  const embedded = host.embeddedPackage();
  if (embedded) add('embedded', `the embedded Chromium (${EMBEDDED_PACKAGE})`, embedded);
  return found;
}

/**
 * The per-user cache folder of the platform (where Playwright keeps its
 * browsers and pagediet unpacks the embedded one), or null.
 * @param {Host} host
 */
export function userCacheDir(host) {
  const join = host.platform === 'win32' ? path.win32.join : path.posix.join;
  if (host.platform === 'darwin') return join(host.home, 'Library', 'Caches');
  if (host.platform === 'win32') return host.env.LOCALAPPDATA || join(host.home, 'AppData', 'Local');
  return host.env.XDG_CACHE_HOME || join(host.home, '.cache');
}

/** @param {number[]} a @param {number[]} b */
function compareVersions(a, b) {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d) return d;
  }
  return 0;
}

/** What a user without a browser is told, in one line. */
export function howToGetABrowser(platform = process.platform, arch = process.arch) {
  if (platform === 'linux' && arch === 'x64') return `install Chromium (Debian/Ubuntu: apt-get install chromium), reinstall pagediet with its optional dependencies (npm install --include=optional) for the embedded ${EMBEDDED_PACKAGE}, or name a browser with --browser <path>`;
  if (platform === 'linux') return 'install Chromium (Debian/Ubuntu: apt-get install chromium) or name a browser with --browser <path>';
  return 'install Google Chrome, Microsoft Edge or Chromium, or name a browser with --browser <path>';
}

/**
 * Browser discovery on fake file trees of Linux, macOS and Windows machines:
 * the order browsers are tried in, Playwright's and Puppeteer's cache layouts
 * (newest version first), and the embedded browser last.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findBrowsers, howToGetABrowser, userCacheDir } from '../src/browser/discovery.js';

/**
 * A host whose file system holds only `files` (each executable).
 * @param {Partial<import('../src/browser/discovery.js').Host> & { files: string[] }} spec
 * @returns {import('../src/browser/discovery.js').Host}
 */
function fakeHost({ files, platform = 'linux', arch = 'x64', env = {}, home = '/home/u', embeddedPackage = () => null }) {
  const p = platform === 'win32' ? path.win32 : path.posix;
  const set = new Set(files);
  return {
    platform,
    arch,
    env,
    home,
    embeddedPackage,
    isExecutable: (file) => set.has(file),
    list: (dir) => [...new Set(files.filter((f) => f.startsWith(dir + p.sep)).map((f) => f.slice(dir.length + 1).split(p.sep)[0]))],
  };
}

/** @param {import('../src/browser/discovery.js').BrowserCandidate[]} found */
const summary = (found) => found.map((b) => `${b.source} ${b.path}`);

describe('browser discovery', () => {
  it('finds nothing on an empty machine', () => {
    expect(findBrowsers({}, fakeHost({ files: [] }))).toEqual([]);
    expect(findBrowsers({}, fakeHost({ files: [], platform: 'darwin' }))).toEqual([]);
    expect(findBrowsers({}, fakeHost({ files: [], platform: 'win32', env: { LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' } }))).toEqual([]);
  });

  it('on Linux: the named browser, then PAGEDIET_CHROMIUM, standard places, the PATH, the caches and the embedded browser', () => {
    const host = fakeHost({
      env: { PAGEDIET_CHROMIUM: '/opt/mine/chrome', PATH: '/usr/local/bin:/usr/bin' },
      files: [
        '/usr/bin/chromium', '/usr/lib/chromium/chromium', '/opt/google/chrome/chrome', '/opt/microsoft/msedge/msedge',
        '/usr/local/bin/chromium-browser',
        '/home/u/.cache/ms-playwright/chromium-1187/chrome-linux/chrome',
        '/home/u/.cache/ms-playwright/chromium-1200/chrome-linux64/chrome',
        '/home/u/.cache/ms-playwright/chromium_headless_shell-1200/chrome-headless-shell-linux64/chrome-headless-shell',
        '/home/u/.cache/ms-playwright/firefox-1490/firefox/firefox',
        '/home/u/.cache/puppeteer/chrome/linux-131.0.6778.85/chrome-linux64/chrome',
        '/home/u/.cache/puppeteer/chrome/linux-99.0.4844.51/chrome-linux64/chrome',
        '/home/u/.cache/puppeteer/chrome/mac-131.0.6778.85/chrome-mac-x64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing',
        '/home/u/.cache/puppeteer/chrome-headless-shell/linux-132.0.6834.83/chrome-headless-shell-linux64/chrome-headless-shell',
      ],
      embeddedPackage: () => '/app/node_modules/@sparticuz/chromium',
    });
    expect(summary(findBrowsers({ browser: '/x/named' }, host))).toEqual([
      'option /x/named',
      'env /opt/mine/chrome',
      'system /usr/lib/chromium/chromium',
      'system /usr/bin/chromium',
      'system /opt/google/chrome/chrome',
      'system /opt/microsoft/msedge/msedge',
      'path /usr/local/bin/chromium-browser',
      'playwright /home/u/.cache/ms-playwright/chromium-1200/chrome-linux64/chrome',
      'playwright /home/u/.cache/ms-playwright/chromium_headless_shell-1200/chrome-headless-shell-linux64/chrome-headless-shell',
      'playwright /home/u/.cache/ms-playwright/chromium-1187/chrome-linux/chrome',
      'puppeteer /home/u/.cache/puppeteer/chrome-headless-shell/linux-132.0.6834.83/chrome-headless-shell-linux64/chrome-headless-shell',
      'puppeteer /home/u/.cache/puppeteer/chrome/linux-131.0.6778.85/chrome-linux64/chrome',
      'puppeteer /home/u/.cache/puppeteer/chrome/linux-99.0.4844.51/chrome-linux64/chrome',
      'embedded /app/node_modules/@sparticuz/chromium',
    ]);
  });

  it('on Linux: the caches where their variables say, and a place found twice once', () => {
    const host = fakeHost({
      env: { PATH: '/usr/bin', PLAYWRIGHT_BROWSERS_PATH: '/srv/pw', PUPPETEER_CACHE_DIR: '/srv/pp', XDG_CACHE_HOME: '/xdg' },
      files: [
        '/usr/bin/chromium',
        '/srv/pw/chromium-1100/chrome-linux/chrome',
        '/xdg/ms-playwright/chromium-1300/chrome-linux64/chrome',
        '/srv/pp/chromium/linux-1083080/chrome-linux/chrome',
      ],
    });
    expect(summary(findBrowsers({}, host))).toEqual([
      'system /usr/bin/chromium',
      'playwright /srv/pw/chromium-1100/chrome-linux/chrome',
      'puppeteer /srv/pp/chromium/linux-1083080/chrome-linux/chrome',
    ]);
    expect(userCacheDir(host)).toBe('/xdg');
  });

  it('on Linux arm64: the arm64 layouts', () => {
    const host = fakeHost({
      arch: 'arm64',
      files: ['/home/u/.cache/ms-playwright/chromium-1200/chrome-linux64/chrome', '/home/u/.cache/ms-playwright/chromium-1200/chrome-linux-arm64/chrome'],
    });
    expect(summary(findBrowsers({}, host))).toEqual(['playwright /home/u/.cache/ms-playwright/chromium-1200/chrome-linux-arm64/chrome']);
  });

  it('on macOS: applications in /Applications and ~/Applications, and the caches in Library/Caches', () => {
    const host = fakeHost({
      platform: 'darwin',
      arch: 'arm64',
      home: '/Users/u',
      env: { PATH: '/usr/bin' },
      files: [
        '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
        '/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge',
        '/Users/u/Applications/Chromium.app/Contents/MacOS/Chromium',
        '/Users/u/Library/Caches/ms-playwright/chromium-1200/chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing',
        '/Users/u/Library/Caches/ms-playwright/chromium-1200/chrome-mac-x64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing',
        '/Users/u/.cache/puppeteer/chrome/mac_arm-131.0.6778.85/chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing',
        '/Users/u/.cache/puppeteer/chrome/mac-131.0.6778.85/chrome-mac-x64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing',
      ],
      // The embedded browser is Linux x64 only: its package ships no other.
      embeddedPackage: () => null,
    });
    expect(summary(findBrowsers({}, host))).toEqual([
      'system /Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
      'system /Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge',
      'system /Users/u/Applications/Chromium.app/Contents/MacOS/Chromium',
      'playwright /Users/u/Library/Caches/ms-playwright/chromium-1200/chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing',
      'puppeteer /Users/u/.cache/puppeteer/chrome/mac_arm-131.0.6778.85/chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing',
    ]);
  });

  it('on Windows: per-user installs first, then Program Files, and the caches in LOCALAPPDATA', () => {
    const env = { LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local', PROGRAMFILES: 'C:\\Program Files', 'PROGRAMFILES(X86)': 'C:\\Program Files (x86)' };
    const host = fakeHost({
      platform: 'win32',
      home: 'C:\\Users\\u',
      env,
      files: [
        'C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe',
        'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe',
        'C:\\Users\\u\\AppData\\Local\\Google\\Chrome SxS\\Application\\chrome.exe',
        'C:\\Users\\u\\AppData\\Local\\ms-playwright\\chromium-1200\\chrome-win64\\chrome.exe',
        'C:\\Users\\u\\AppData\\Local\\ms-playwright\\chromium_headless_shell-1100\\chrome-win\\headless_shell.exe',
        'C:\\Users\\u\\.cache\\puppeteer\\chrome\\win64-131.0.6778.85\\chrome-win64\\chrome.exe',
      ],
    });
    expect(summary(findBrowsers({}, host))).toEqual([
      'system C:\\Users\\u\\AppData\\Local\\Google\\Chrome SxS\\Application\\chrome.exe',
      'system C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe',
      'system C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe',
      'playwright C:\\Users\\u\\AppData\\Local\\ms-playwright\\chromium-1200\\chrome-win64\\chrome.exe',
      'playwright C:\\Users\\u\\AppData\\Local\\ms-playwright\\chromium_headless_shell-1100\\chrome-win\\headless_shell.exe',
      'puppeteer C:\\Users\\u\\.cache\\puppeteer\\chrome\\win64-131.0.6778.85\\chrome-win64\\chrome.exe',
    ]);
  });

  it('says how to get a browser on each platform', () => {
    expect(howToGetABrowser('linux', 'x64')).toMatch(/apt-get install chromium.*@sparticuz\/chromium.*--browser <path>/);
    expect(howToGetABrowser('linux', 'arm64')).not.toMatch(/sparticuz/);
    expect(howToGetABrowser('darwin', 'arm64')).toBe('install Google Chrome, Microsoft Edge or Chromium, or name a browser with --browser <path>');
  });
});

/**
 * Starting Chromium: the switches every browser pagediet drives is started
 * with, and the first browser that launches of those discovery.js finds
 * (unpacking the embedded one when it is reached).
 */
import { findBrowsers, howToGetABrowser } from './discovery.js';
import { embeddedBrowser } from './embedded.js';
import { NoBrowserError } from './no-browser-error.js';

/**
 * @typedef {import('./discovery.js').BrowserCandidate} BrowserCandidate
 *
 * @typedef {object} LaunchedBrowser
 * @property {import('playwright-core').Browser} browser
 * @property {BrowserCandidate} candidate the one that launched
 * @property {string} executable
 * @property {string[]} failed one line for each candidate tried before it that did not launch
 *
 * @typedef {object} BrowserChoice
 * @property {string} [browser] the --browser option: a browser to try first
 * @property {string[]} [args] switches besides CHROMIUM_ARGS
 */

/**
 * Features playwright-core (1.65) turns off. Chromium takes only the last
 * --disable-features switch, so the one below must repeat them; a test holds
 * this list to what playwright passes.
 */
export const PLAYWRIGHT_DISABLED_FEATURES = ['AvoidUnnecessaryBeforeUnloadCheckSync', 'DestroyProfileOnBrowserClose', 'HttpsUpgrades', 'HttpsFirstBalancedModeAutoEnable', 'LensOverlay', 'MediaRouter', 'PaintHolding', 'ThirdPartyStoragePartitioning', 'AvoidCorsURLLoaderRestartOnRedirect', 'TcpPortRandomizationWin', 'OptimizationHints', 'NetworkTimeServiceQuerying', 'AimEnabled', 'PreconnectToSearch', 'msForceBrowserSignIn', 'msEdgeUpdateLaunchServicesPreferredVersion'];

/**
 * Processes a headless browser starts that rendering never uses: the address
 * bar's popup, which Chromium 151 and later draw in a renderer of its own at
 * start (50-80 MB), and the spare renderer kept ready for the next site (20 MB).
 */
export const UNUSED_FEATURES = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup', 'SpareRendererForSitePerProcess'];

/**
 * No sandbox (builds may run as root in containers), no GPU, nothing that
 * talks to Google's servers, no processes that are not needed: with no GPU,
 * the GPU process only composites in software, which the browser process
 * does as well in itself (--in-process-gpu: 13 MB less on 10,000 pages).
 */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--in-process-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run', `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...UNUSED_FEATURES].join(',')}`];

/**
 * Starts the first browser that launches of those found, unpacking the
 * embedded one when it is reached. An embedded browser that was unpacked
 * before and fails to start is unpacked again once (a damaged file the size
 * check did not see).
 * @param {BrowserChoice} [choice]
 * @returns {Promise<LaunchedBrowser>}
 */
export async function launchBrowser(choice = {}) {
  const { chromium } = await import('playwright-core');
  const candidates = findBrowsers(choice);
  const args = [...CHROMIUM_ARGS, ...(choice.args ?? [])];
  /** @type {string[]} */
  const failed = [];
  for (const candidate of candidates) {
    try {
      if (candidate.source !== 'embedded') {
        return { browser: await chromium.launch({ executablePath: candidate.path, args }), candidate, executable: candidate.path, failed };
      }
      let embedded = await embeddedBrowser(candidate.path);
      const start = () => chromium.launch({ executablePath: embedded.executable, args, env: { ...process.env, ...embedded.env } });
      try {
        return { browser: await start(), candidate, executable: embedded.executable, failed };
      } catch (error) {
        if (embedded.unpacked) throw error;
        embedded = await embeddedBrowser(candidate.path, { redo: true });
        return { browser: await start(), candidate, executable: embedded.executable, failed };
      }
    } catch (error) {
      failed.push(`${candidate.name} (${candidate.path}) did not start: ${String(/** @type {Error} */ (error)?.message ?? error).split('\n')[0]}`);
    }
  }
  if (!candidates.length) throw new NoBrowserError(`no browser found: ${howToGetABrowser()}`, failed);
  throw new NoBrowserError(`no browser started (${failed.join('; ')}): ${howToGetABrowser()}`, failed);
}

// A page that sends its window elsewhere when it has loaded (an old frameset's page calling for its
// frameset) is measured as itself, not lost with "Execution context was destroyed".
import fs from 'node:fs/promises';
import { expect } from 'vitest';
import { Site } from '../src/site/site.js';
import { siteLayouts } from '../src/images/layout.js';
import { asBuildBrowser, chromiumTest, launchChromium } from './helpers/chromium.js';
import { tempDir, writeTree } from './helpers/tmp.js';

chromiumTest('measures a page whose script navigates away on load as the page itself, in every viewport', async () => {
  const photo = await fs.readFile('fixtures/h2-sample/img/5k-02.jpg');
  const input = await writeTree(await tempDir(), {
    'index.html': '<!doctype html><title>Frames</title><frameset cols="*"><frame src="inner.html"></frameset>',
    // As homepage-2001's pages do: outside their frameset, they load it.
    'inner.html': `<!doctype html><html><head><title>Inner</title>
<script>function loadFrameSet() { if (window.top == window.self) window.top.location = "index.html?side=inner.html"; }</script>
</head><body onload="javascript:loadFrameSet();" style="margin:0"><img src="photo.jpg" width="300" height="200" alt=""></body></html>`,
    'photo.jpg': photo,
  });
  const site = await Site.read(input);
  const browser = await launchChromium();
  const layouts = await siteLayouts(asBuildBrowser(browser), site);
  try {
    const measured = await layouts.measure('inner.html', [360, 1280]);
    expect(measured.map((l) => [l.viewport, l.images.map((i) => [i.path, i.x, i.y, i.width, i.height])])).toEqual([
      [360, [['photo.jpg', 0, 0, 300, 200]]],
      [1280, [['photo.jpg', 0, 0, 300, 200]]],
    ]);
    // The frameset itself, measured after, is measured as the frameset: the page before went nowhere.
    expect((await layouts.measure('index.html', [800])).map((l) => l.viewport)).toEqual([800]);
  } finally {
    await layouts.close();
    await browser.close();
    await site.close();
  }
}, 120_000);

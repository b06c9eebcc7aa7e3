import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readTree, tempDir } from './helpers/tmp.js';
import { openRenderSession } from './helpers/chromium.js';
import { PLAYWRIGHT_DISABLED_FEATURES, UNUSED_FEATURES } from '../src/browser/launch.js';
import { BATCH_AREA, SLOTS_PER_PURGE, RenderSession, RenderSessions } from '../src/text-images/render.js';
import { BuildBrowser } from '../src/browser/build-browser.js';

/** Two colours side by side, 6x4, as a PNG: the original must come back exactly, every time. */
async function twoColours() {
  const raw = Buffer.alloc(6 * 4 * 3);
  for (let i = 0; i < 24; i++) raw.set(i % 6 < 3 ? [200, 30, 40] : [20, 90, 250], i * 3);
  return sharp(raw, { raw: { width: 6, height: 4, channels: 3 } }).png().toBuffer();
}
const variant = { html: '<span class="v">x</span>', css: '.v{display:block;width:6px;height:4px;background:#14e}' };

describe('a render session replaces its page after a number of slots', () => {
  /** @type {RenderSession} */
  let session;
  beforeAll(async () => {
    session = await openRenderSession({ slotsPerPage: 4 });
  });
  afterAll(async () => {
    await session?.close();
  });

  it('draws the same pixels on every page, and closes the pages it replaced', async () => {
    const bytes = await twoColours();
    const pages = [];
    const drawn = [];
    for (let i = 0; i < 5; i++) {
      drawn.push(await session.render({ bytes, mime: 'image/png' }, 6, 4, [variant], [255, 255, 255]));
      pages.push(session.page);
    }
    // Two slots a render: renders 1-2 on the first page, 3-4 on the second, 5 on the third.
    expect(new Set(pages).size).toBe(3);
    expect(pages.map((p) => p.isClosed())).toEqual([true, true, true, true, false]);
    const expected = await sharp(bytes).ensureAlpha().raw().toBuffer();
    for (const { original, variants } of drawn) {
      expect(Buffer.from(original.data).equals(expected)).toBe(true);
      expect([...variants[0].data.subarray(0, 4)]).toEqual([0x11, 0x44, 0xee, 255]);
      expect(Buffer.from(variants[0].data).equals(Buffer.from(drawn[0].variants[0].data))).toBe(true);
    }
  });
});

describe('a render session keeps its renderer small', () => {
  /** @type {RenderSession} */
  let session;
  beforeAll(async () => {
    session = await openRenderSession();
  });
  afterAll(async () => {
    await session?.close();
  });

  it('frees the documents it drew when purged, and draws the same pixels after', async () => {
    const bytes = await twoColours();
    const nodes = async () => (await session.tab.cdp.send('Memory.getDOMCounters')).nodes;
    const first = await session.render({ bytes, mime: 'image/png' }, 6, 4, [variant], [255, 255, 255]);
    const one = await nodes();
    for (let i = 0; i < 9; i++) await session.render({ bytes, mime: 'image/png' }, 6, 4, [variant], [255, 255, 255]);
    // Each replaced document's nodes stay until a collection.
    expect(await nodes()).toBeGreaterThan(5 * one);
    await session.purge();
    expect(await nodes()).toBeLessThanOrEqual(one);
    const after = await session.render({ bytes, mime: 'image/png' }, 6, 4, [variant], [255, 255, 255]);
    expect(Buffer.from(after.original.data).equals(Buffer.from(first.original.data))).toBe(true);
    expect(Buffer.from(after.variants[0].data).equals(Buffer.from(first.variants[0].data))).toBe(true);
  });

  it('purges by itself every SLOTS_PER_PURGE slots', async () => {
    const bytes = await twoColours();
    const fresh = await openRenderSession();
    try {
      for (let i = 0; i < SLOTS_PER_PURGE / 2; i++) await fresh.render({ bytes, mime: 'image/png' }, 6, 4, [variant], [255, 255, 255]);
      const before = (await fresh.tab.cdp.send('Memory.getDOMCounters')).nodes;
      await fresh.render({ bytes, mime: 'image/png' }, 6, 4, [variant], [255, 255, 255]);
      const after = (await fresh.tab.cdp.send('Memory.getDOMCounters')).nodes;
      expect(after).toBeLessThan(before / 10);
    } finally {
      await fresh.close();
    }
  });

  it('starts no address-bar popup, and keeps the features playwright turns off', async () => {
    const cdp = await session.browser.newBrowserCDPSession();
    const { targetInfos } = await cdp.send('Target.getTargets');
    expect(targetInfos.map((t) => t.type)).toEqual(['page']);
    // Chromium takes the last --disable-features: ours must hold playwright's (the first) and the unused ones.
    const chromium = fs.readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(/\s+/)
      .map((pid) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'))
      .filter((args) => args.some((a) => a.startsWith('--remote-debugging-pipe')));
    expect(chromium.length).toBeGreaterThan(0);
    for (const args of chromium) {
      const lists = args.filter((a) => a.startsWith('--disable-features=')).map((a) => a.slice('--disable-features='.length).split(','));
      expect(lists.length).toBe(2);
      expect(lists[1]).toEqual(expect.arrayContaining([...lists[0], ...UNUSED_FEATURES]));
      expect(lists[0]).toEqual(PLAYWRIGHT_DISABLED_FEATURES);
    }
  });
});

describe('render sessions share one browser', () => {
  it('opens a page per session in the build\'s browser, and closes its pages', async () => {
    const build = new BuildBrowser();
    const sessions = new RenderSessions(2, build);
    const a = await sessions.acquire();
    const b = await sessions.acquire();
    expect(a.browser).toBe(b.browser);
    expect(a.page).not.toBe(b.page);
    expect(a.browser.contexts()).toHaveLength(2);
    const bytes = await twoColours();
    const [da, db] = await Promise.all([a, b].map((s) => s.render({ bytes, mime: 'image/png' }, 6, 4, [variant], [255, 255, 255])));
    expect(Buffer.from(da.variants[0].data).equals(Buffer.from(db.variants[0].data))).toBe(true);
    await sessions.close();
    expect(a.browser.contexts()).toHaveLength(0);
    expect(a.browser.isConnected()).toBe(true);
    await build.close();
    expect(a.browser.isConnected()).toBe(false);
  });

  it('after the browser closes, fails the renders it was drawing, and draws the next in a browser started again', async () => {
    const build = new BuildBrowser();
    const sessions = new RenderSessions(1, build);
    try {
      const bytes = await twoColours();
      const first = await sessions.render({ bytes, mime: 'image/png' }, 6, 4, [variant], [255, 255, 255]);
      const { browser } = await build.get();
      const drawing = sessions.render({ bytes, mime: 'image/png' }, 6, 4, [variant], [255, 255, 255]).then(() => null, (/** @type {unknown} */ error) => error);
      await browser.close();
      expect(String(await drawing)).toMatch(/closed/);
      const again = await sessions.render({ bytes, mime: 'image/png' }, 6, 4, [variant], [255, 255, 255]);
      expect(Buffer.from(again.original.data).equals(Buffer.from(first.original.data))).toBe(true);
      expect(build.starts).toBe(2);
      expect((await build.get()).browser).not.toBe(browser);
    } finally {
      await sessions.close();
      await build.close();
    }
  });
});

describe('renders asked for together', () => {
  it('are drawn on one page, each with the pixels it has drawn alone', async () => {
    const bytes = await twoColours();
    const text = (/** @type {string} */ name, /** @type {string} */ colour) => ({ html: `<span class="${name}">Ag</span>`, css: `.${name}{font:13px "DejaVu Sans";line-height:14px;color:${colour}}` });
    /** @type {[number, number, import('../src/text-images/render.js').Variant[], [number, number, number]][]} */
    const requests = [
      [6, 4, [variant], [255, 255, 255]],
      [30, 16, [text('a', '#123'), text('b', '#c00')], [255, 0, 255]],
      [6, 4, [variant, variant, variant], [0, 0, 0]],
      [20, 14, [text('c', '#fff')], [10, 60, 120]],
      // 26 slots of 40 + 8 px: past COLUMN_HEIGHT, the last ones in a column to the right.
      [20, 40, Array.from({ length: 25 }, () => text('d', '#000')), [255, 255, 255]],
    ];
    const alone = await openRenderSession();
    const build = new BuildBrowser();
    const sessions = new RenderSessions(1, build);
    const batches = vi.spyOn(RenderSession.prototype, 'renderAll');
    try {
      /** @type {import('../src/text-images/render.js').Drawn[]} */
      const expected = [];
      for (const [w, h, variants, background] of requests) expected.push(await alone.render({ bytes, mime: 'image/png' }, w, h, variants, background));
      batches.mockClear();
      const together = await Promise.all(requests.map(([w, h, variants, background]) => sessions.render({ bytes, mime: 'image/png' }, w, h, variants, background)));
      expect(batches.mock.calls.map(([batch]) => batch.length)).toEqual([5]);
      together.forEach((drawn, i) => {
        expect(Buffer.from(drawn.original.data).equals(Buffer.from(expected[i].original.data)), `request ${i}`).toBe(true);
        expect(drawn.variants.length).toBe(expected[i].variants.length);
        drawn.variants.forEach((v, j) => expect(Buffer.from(v.data).equals(Buffer.from(expected[i].variants[j].data)), `request ${i} variant ${j}`).toBe(true));
      });
      // The text differs from its background: the pictures compared hold ink.
      expect(new Set(together[1].variants[0].data).size).toBeGreaterThan(4);
    } finally {
      batches.mockRestore();
      await alone.close();
      await sessions.close();
      await build.close();
    }
  });

  it('are shared among the free sessions, at most BATCH_AREA of slots to a screenshot', async () => {
    const bytes = await twoColours();
    const build = new BuildBrowser();
    const sessions = new RenderSessions(2, build);
    const batches = vi.spyOn(RenderSession.prototype, 'renderAll');
    try {
      // Each render: 2 slots of (6 + 8) x (4 + 8) px.
      const n = Math.ceil(BATCH_AREA / 336) * 3;
      await Promise.all(Array.from({ length: n }, () => sessions.render({ bytes, mime: 'image/png' }, 6, 4, [variant], [255, 255, 255])));
      const sizes = batches.mock.calls.map(([batch]) => batch.length);
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(n);
      expect(Math.max(...sizes)).toBe(Math.floor(BATCH_AREA / 336));
      expect(sizes.length).toBe(4);
    } finally {
      batches.mockRestore();
      await sessions.close();
      await build.close();
    }
  });
});

describe('a render that fails', () => {
  it('fails the renders drawn with it, and leaves a fresh page for the next', async () => {
    const build = new BuildBrowser();
    const sessions = new RenderSessions(1, build);
    try {
      const bytes = await twoColours();
      await sessions.render({ bytes, mime: 'image/png' }, 6, 4, [variant], [255, 255, 255]);
      const [session] = sessions.idle;
      const broken = session.page;
      await broken.close();
      const failed = await Promise.allSettled([1, 2].map(() => sessions.render({ bytes, mime: 'image/png' }, 6, 4, [variant], [255, 255, 255])));
      expect(failed.map((f) => f.status)).toEqual(['rejected', 'rejected']);
      expect(String(/** @type {PromiseRejectedResult} */ (failed[0]).reason)).toMatch(/closed/);
      const drawn = await sessions.render({ bytes, mime: 'image/png' }, 6, 4, [variant], [255, 255, 255]);
      expect(sessions.idle).toEqual([session]);
      expect(session.page).not.toBe(broken);
      expect(Buffer.from(drawn.original.data).equals(await sharp(bytes).ensureAlpha().raw().toBuffer())).toBe(true);
    } finally {
      await sessions.close();
      await build.close();
    }
  });

  it('goes on to the next browser found when the named one cannot start, and says so once', async () => {
    const out = path.join(await tempDir(), 'out');
    const { stdout } = await promisify(execFile)(process.execPath, [path.resolve('bin/pagediet.js'), 'build', 'fixtures/microscape', '--out', out, '--only', 'text-images', '--no-cache', '--no-report', '--no-configs', '--json'], {
      env: { ...process.env, PAGEDIET_CHROMIUM: '/bin/false', PAGEDIET_DEBUG: '', CI: '' },
      maxBuffer: 64 << 20,
    });
    const summary = JSON.parse(stdout);
    const fallback = summary.warnings.filter((/** @type {{ code: string }} */ w) => w.code === 'browser-fallback');
    expect(fallback).toHaveLength(1);
    expect(fallback[0].message).toMatch(/^pages measured and changes proven in .+: the browser named by PAGEDIET_CHROMIUM \(\/bin\/false\) did not start: /);
    expect(summary.passes[0].requestsRemoved).toBe(24);
  });
});

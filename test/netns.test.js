/**
 * The network model against real Linux TCP. Where the test runs as root on
 * Linux, it makes a network namespace with a veth pair (test/helpers/netns.js),
 * runs pagediet's server inside it, loads the fixtures with the robot from
 * here, counts the packets the veth carried in both directions and times the
 * loads under a tbf rate limit, and holds the model's packets and seconds for
 * the same exchanges to 15%. Elsewhere it is skipped, with the reason.
 * docs/loader.md, "Real network check", has the figures and the conditions.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPage, STRATEGIES } from '../src/loader/client.js';
import { model, planFromTrace } from '../src/loader/model.js';
import { LINUX_TCP, networkProfile } from '../src/loader/networks.js';
import { connectRtt, createVeth, removeStale, startNamespaceServer, unavailable } from './helpers/netns.js';
import { needed } from './helpers/needed.js';
import sharp from 'sharp';
import { launchChromium } from './helpers/chromium.js';
import { tempDir, writeTree } from './helpers/tmp.js';
import { Rng } from '../scripts/fixtures/random.js';

const skip = needed(await unavailable(), 'test/netns.test.js: the real network checks');

/** Slow enough that a first visit is bandwidth-bound (0.3 to 0.8 s), not bound by the robot's or server's own time. */
const RATE_KBIT = 2000;
const TOLERANCE = 0.15;
/** The robot's and the model's parallel connections for HTTP/1.0. */
const CONNECTIONS = 4;
/**
 * First visits timed per strategy; the fastest is kept (with its packets). What the model leaves
 * out only adds time (a timer or a collection in the robot or the server, a scheduler's delay on
 * two cores), so the fastest load is the link's; one 0.31 s load took 0.37 s in one CI run of many.
 */
const FIRST_VISIT_RUNS = 3;
/** Quiet time around a load, so its counts hold its packets and no others (the close's last ACK). */
const SETTLE_MS = 100;
const FIXTURES = [
  { root: 'fixtures/microscape', mtu: 1500 }, // the 1997 study's Ethernet
  { root: 'fixtures/ricochet', mtu: 1152 }, // the 1999 study's Ricochet MTU
];
/**
 * Revalidations checked: every strategy, to 15% (HTTP/2 to 20%, below). The server writes the replies
 * to pipelined requests that arrived together in one write (src/loader/write-batching.js), as a
 * buffering server (the 1997 study's Apache) did and as the model sends them; node:http2 gathers the
 * frames of one tick into one write.
 */
const REVALIDATIONS_CHECKED = ['http1.0', 'http1.1', 'pipelined', 'h2'];
/**
 * An HTTP/2 revalidation is about 25 packets here, and the real count moves by a packet or two between
 * runs (when the client's ACKs of the server's SETTINGS and WINDOW_UPDATE frames ride on data or go
 * alone); the model's 22 is -4% to -15.4% from it over the runs recorded in docs/loader.md, so that
 * row is held to 20%.
 */
const H2_REVALIDATION_TOLERANCE = 0.2;

/**
 * @typedef {object} Row one load, measured and modelled
 * @property {string} protocol
 * @property {string} visit
 * @property {number[]} statuses
 * @property {{ up: number, down: number }} real packets on the veth
 * @property {number} realSeconds
 * @property {import('../src/loader/model.js').ModelResult} linux the model with LINUX_TCP
 * @property {import('../src/loader/model.js').ModelResult} plain the model with today's TCP alone
 */

const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * No tail loss probes from the server: the model knows no losses on this link, and a probe resends
 * data that was not lost. During a pipelined revalidation the robot's ACKs queue behind its own
 * requests on the rate-limited link, so Linux's probe (after two smoothed RTTs) often resent the last
 * reply segment, and the robot answered the copy with a D-SACK: two packets more, in some runs only
 * (pipelined revalidations measured -13% to +4% with probes, 0% to +4% without).
 * @param {string} ns
 */
async function disableTailLossProbes(ns) {
  const script = "require('fs').writeFileSync('/proc/sys/net/ipv4/tcp_early_retrans', '0')";
  await promisify(execFile)('ip', ['netns', 'exec', ns, process.execPath, '-e', script], { timeout: 10_000 });
}

const error = (/** @type {number} */ modelled, /** @type {number} */ real) => modelled / real - 1;
const percent = (/** @type {number} */ e) => `${e >= 0 ? '+' : ''}${(e * 100).toFixed(1)}%`;

describe.skipIf(skip)('the model against real packets and time on a veth pair', () => {
  beforeAll(() => removeStale());

  for (const [tag, fixture] of FIXTURES.entries()) {
    describe(`${fixture.root}, MTU ${fixture.mtu}, ${RATE_KBIT} kbit/s`, () => {
      /** @type {Map<string, Row>} */
      const rows = new Map();
      /** @type {import('./helpers/netns.js').Veth | undefined} */
      let veth;
      /** @type {import('./helpers/netns.js').NamespaceServer | undefined} */
      let server;

      beforeAll(async () => {
        veth = await createVeth({ mtu: fixture.mtu, tag });
        await disableTailLossProbes(veth.ns);
        const running = await startNamespaceServer(veth, fixture.root);
        server = running;
        const origin = (/** @type {string} */ protocol) => (protocol === 'h2' ? running.h2c : running.http1);
        const rtt = await connectRtt(running.http1);
        // Unthrottled loads first: the robot and the server run warm code when they are timed.
        for (const protocol of STRATEGIES) {
          const cache = new Map();
          for (const visit of /** @type {const} */ (['first', 'revalidate'])) await loadPage({ origin: origin(protocol), page: '/index.html', protocol, visit, cache, connections: CONNECTIONS });
        }
        await veth.setRate(RATE_KBIT);
        const plain = { ...networkProfile('custom', { rtt, bandwidth: RATE_KBIT, mss: fixture.mtu - 40 }), name: 'veth' };
        const linux = { ...plain, ...LINUX_TCP };
        for (const protocol of STRATEGIES) {
          const cache = new Map();
          for (const visit of /** @type {const} */ (['first', 'revalidate'])) {
            /** @type {{ trace: import('../src/loader/client.js').Trace, up: number, down: number } | undefined} */
            let fastest;
            for (let run = 0; run < (visit === 'first' ? FIRST_VISIT_RUNS : 1); run++) {
              const runCache = visit === 'first' ? new Map() : cache;
              await sleep(SETTLE_MS);
              const before = await veth.counters();
              const trace = await loadPage({ origin: origin(protocol), page: '/index.html', protocol, visit, cache: runCache, connections: CONNECTIONS });
              await sleep(SETTLE_MS);
              const after = await veth.counters();
              if (!fastest || trace.ms < fastest.trace.ms) {
                fastest = { trace, up: after.packetsUp - before.packetsUp, down: after.packetsDown - before.packetsDown };
                if (visit === 'first') for (const [key, value] of runCache) cache.set(key, value);
              }
            }
            const { trace, up, down } = /** @type {NonNullable<typeof fastest>} */ (fastest);
            const plan = planFromTrace(trace);
            const options = protocol === 'http1.0' ? { connections: CONNECTIONS } : {}; // the robot's HTTP/1.1 uses one
            rows.set(`${protocol} ${visit}`, {
              protocol, visit, statuses: [...new Set(trace.requests.map((r) => r.status))],
              real: { up, down },
              realSeconds: trace.ms / 1000,
              linux: model(plan, protocol, linux, options),
              plain: model(plan, protocol, plain, options),
            });
          }
        }
      });

      afterAll(async () => {
        await server?.close();
        await veth?.destroy();
        if (!rows.size) return;
        // The table of docs/loader.md, "Real network check".
        const lines = [
          '| strategy | visit | real packets (up/down) | model (up/down) | error | today\'s TCP alone (up/down) | error | real s | model s | error |',
          '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
        ];
        for (const r of rows.values()) {
          const packets = r.real.up + r.real.down;
          const counted = (/** @type {import('../src/loader/model.js').ModelResult} */ m) => `${m.packets} (${m.packetsUp}/${m.packetsDown}) | ${percent(error(m.packets, packets))}`;
          // Only first visits are bandwidth-bound; a revalidation's time is the robot's and server's own.
          const seconds = r.visit === 'first' ? `${r.realSeconds.toFixed(3)} | ${r.linux.seconds.toFixed(3)} | ${percent(error(r.linux.seconds, r.realSeconds))}` : '- | - | -';
          lines.push(`| ${r.protocol} | ${r.visit} | ${packets} (${r.real.up}/${r.real.down}) | ${counted(r.linux)} | ${counted(r.plain)} | ${seconds} |`);
        }
        console.log(`${fixture.root}, MTU ${fixture.mtu}, tbf ${RATE_KBIT} kbit/s\n${lines.join('\n')}`);
      });

      it.each(STRATEGIES)('%s, first visit: packets and seconds within 15% of the model', (protocol) => {
        const r = /** @type {Row} */ (rows.get(`${protocol} first`));
        expect(r.statuses).toEqual([200]);
        expect(Math.abs(error(r.linux.packets, r.real.up + r.real.down))).toBeLessThan(TOLERANCE);
        expect(Math.abs(error(r.linux.seconds, r.realSeconds))).toBeLessThan(TOLERANCE);
      });

      it.each(REVALIDATIONS_CHECKED)('%s, revalidation: packets within 15% of the model (HTTP/2: 20%)', (protocol) => {
        const r = /** @type {Row} */ (rows.get(`${protocol} revalidate`));
        expect(r.statuses).toEqual([304]);
        expect(Math.abs(error(r.linux.packets, r.real.up + r.real.down))).toBeLessThan(protocol === 'h2' ? H2_REVALIDATION_TOLERANCE : TOLERANCE);
      });
    });
  }
});

/**
 * The model's first render and largest paint against Chromium's own first contentful paint and largest
 * contentful paint, on the same veth pair: a page with a render-blocking style sheet and a photograph it
 * names with fetchpriority="high", loaded by Chromium over HTTP/1.1 (its six connections) and modelled as
 * that. The model leaves out the browser's own time, which Chromium's timings show in the same load: from
 * the page's arrival to a subresource's request (a renderer starting, 40 to 60 ms here) and from the
 * subresource's arrival to the paint (style, layout, decoding, drawing: about 40 ms for the first paint).
 * Each paint is compared without them: the page's arrival, plus the time from the subresource's request
 * to its arrival. The fastest of three loads is kept, as above; the raw paints are printed beside them.
 */
describe.skipIf(skip)('first render and largest paint against Chromium on a veth pair', () => {
  const RATE = 1000;
  const PAINT_TOLERANCE = 0.2;
  /** @type {{ fcp: number, lcp: number, firstRender: number, largestPaint: number } | undefined} the network's part of Chromium's paints, and the model's */
  let measured;
  /** @type {import('./helpers/netns.js').Veth | undefined} */
  let veth;
  /** @type {import('./helpers/netns.js').NamespaceServer | undefined} */
  let server;
  /** @type {import('playwright-core').Browser | undefined} */
  let browser;

  beforeAll(async () => {
    await removeStale();
    const root = await tempDir();
    // 60 kB of rules no element matches, and a 400x300 photograph of noise (Chromium passes over a low-entropy
    // image for the largest paint), seeded.
    const rng = new Rng(46);
    const rules = Array.from({ length: 3000 }, (_, i) => `.r${i}{color:#${rng.int(0, 0xffffff).toString(16).padStart(6, '0')}}`).join('\n');
    const noise = Buffer.from(Array.from({ length: 400 * 300 }, () => rng.int(0, 255)));
    await writeTree(root, {
      'index.html': '<!doctype html><html><head><meta charset="utf-8"><title>Paint</title><link rel="stylesheet" href="/site.css"></head>'
        + '<body><h1>A heading</h1><p>Some text.</p><img src="/photo.png" width="400" height="300" fetchpriority="high" alt=""></body></html>',
      'site.css': `body{margin:8px}\n${rules}\n`,
      'photo.png': await sharp(noise, { raw: { width: 400, height: 300, channels: 1 } }).png().toBuffer(),
      'favicon.ico': Buffer.alloc(0),
    });
    veth = await createVeth({ mtu: 1500, tag: FIXTURES.length });
    await disableTailLossProbes(veth.ns);
    const running = await startNamespaceServer(veth, root);
    server = running;
    const rtt = await connectRtt(running.http1);
    const url = `${running.http1}/index.html`;
    const trace = await loadPage({ origin: running.http1, page: '/index.html', protocol: 'http1.1', connections: 6 });
    browser = await launchChromium();
    /** Chromium's FCP and LCP of one load, in a context of its own (an empty cache), in seconds. */
    const paints = async () => {
      const context = await /** @type {import('playwright-core').Browser} */ (browser).newContext();
      try {
        const page = await context.newPage();
        await page.goto(url, { waitUntil: 'load' });
        // The largest paint is reported once the frame that drew it has been presented: read when five frames
        // have passed with no new entry (the text's entry comes before the photograph's).
        return await page.evaluate(async () => {
          /** @type {PerformanceEntry | undefined} */
          let largest;
          let reported = 0;
          new PerformanceObserver((list) => {
            largest = list.getEntries().at(-1);
            reported += list.getEntries().length;
          }).observe({ type: 'largest-contentful-paint', buffered: true });
          for (let frame = 0, quiet = 0, last = -1; frame < 120 && quiet < 5; frame++) {
            await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
            quiet = reported > 0 && reported === last ? quiet + 1 : 0;
            last = reported;
          }
          const fcp = performance.getEntriesByName('first-contentful-paint')[0];
          const element = /** @type {{ element?: Element | null }} */ (largest ?? {}).element;
          const timing = (/** @type {string} */ type, /** @type {string} */ name) => /** @type {PerformanceResourceTiming} */ (performance.getEntriesByType(type).find((e) => e.name.endsWith(name)));
          const html = timing('navigation', '/index.html');
          // The page's arrival, then the subresource's request to its arrival.
          const network = (/** @type {PerformanceResourceTiming} */ r) => (html.responseEnd + r.responseEnd - r.requestStart) / 1000;
          return {
            fcp: fcp.startTime / 1000, lcp: (largest?.startTime ?? NaN) / 1000, lcpElement: element?.tagName ?? '',
            fcpNetwork: network(timing('resource', '/site.css')), lcpNetwork: network(timing('resource', '/photo.png')),
          };
        });
      } finally {
        await context.close();
      }
    };
    await paints(); // unthrottled: warm code
    await veth.setRate(RATE);
    /** @type {{ fcp: number, lcp: number, lcpElement: string, fcpNetwork: number, lcpNetwork: number }[]} */
    const loads = [];
    for (let run = 0; run < FIRST_VISIT_RUNS; run++) {
      await sleep(SETTLE_MS);
      loads.push(await paints());
    }
    // Chromium names the photograph, as the page does.
    expect(loads.map((l) => l.lcpElement)).toEqual(loads.map(() => 'IMG'));
    const profile = { ...networkProfile('custom', { rtt, bandwidth: RATE, mss: 1460 }), name: 'veth', ...LINUX_TCP };
    const m = model(planFromTrace(trace), 'http1.1', profile, { connections: 6 });
    measured = {
      fcp: Math.min(...loads.map((l) => l.fcpNetwork)),
      lcp: Math.min(...loads.map((l) => l.lcpNetwork)),
      firstRender: m.firstRenderSeconds,
      largestPaint: /** @type {number} */ (m.largestPaintSeconds),
    };
    const seconds = (/** @type {number[]} */ list) => list.map((n) => n.toFixed(3)).join(', ');
    console.log(`first render and largest paint, ${RATE} kbit/s, ${trace.requests.map((r) => `${r.path} ${r.bodyBytes} B`).join(', ')}:\n`
      + `  Chromium FCP ${seconds(loads.map((l) => l.fcp))} s, the network's part ${seconds(loads.map((l) => l.fcpNetwork))} s; model ${m.firstRenderSeconds.toFixed(3)} s\n`
      + `  Chromium LCP ${seconds(loads.map((l) => l.lcp))} s, the network's part ${seconds(loads.map((l) => l.lcpNetwork))} s; model ${m.largestPaintSeconds?.toFixed(3)} s`);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await veth?.destroy();
  });

  it('the model\'s first render within 20% of the network\'s part of Chromium\'s first contentful paint, its largest paint of Chromium\'s', () => {
    const m = /** @type {NonNullable<typeof measured>} */ (measured);
    expect(Math.abs(error(m.firstRender, m.fcp))).toBeLessThan(PAINT_TOLERANCE);
    expect(Math.abs(error(m.largestPaint, m.lcp))).toBeLessThan(PAINT_TOLERANCE);
  });
});

describe('LINUX_TCP in the model, packet by packet', () => {
  const plan = (/** @type {number} */ bytes) => ({ requests: [{ order: 0, parent: null, requestBytes: 100, responseBytes: bytes }], controlUp: 0, controlDown: 0 });
  const profile = { ...networkProfile('custom', { rtt: 10, bandwidth: 10000 }), ...LINUX_TCP };

  it('HTTP/1.0, a one-segment response: quick ACKs both ways, the server\'s FIN alone, the client\'s FIN carries its ACK', () => {
    // Up: SYN, ACK, request, ACK of the response, FIN. Down: SYN-ACK, ACK of the request, response, FIN, ACK.
    const r = model(plan(500), 'http1.0', profile);
    expect([r.packetsUp, r.packetsDown]).toEqual([5, 5]);
  });

  it('HTTP/1.0, a three-segment response: each segment ACKed at once, the FIN rides on the last', () => {
    // Up: SYN, ACK, request, 3 ACKs, FIN. Down: SYN-ACK, ACK of the request, 3 segments (the last with the FIN), ACK.
    const r = model(plan(3 * 1460), 'http1.0', profile);
    expect([r.packetsUp, r.packetsDown]).toEqual([7, 6]);
  });

  it('HTTP/1.1: the client closes, and the server\'s FIN carries the ACK of the client\'s', () => {
    // Up: SYN, ACK, request, ACK of the response, FIN, last ACK. Down: SYN-ACK, ACK of the request, response, FIN.
    const r = model(plan(500), 'http1.1', profile);
    expect([r.packetsUp, r.packetsDown]).toEqual([6, 4]);
  });
});

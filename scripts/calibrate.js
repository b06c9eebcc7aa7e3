// Prints the calibration tables (docs/loader-model.md, "Calibration"): the
// model, run on the fixtures' real exchanges, beside every figure of the
// studies it can be set against, and prepends them to
// docs/measurements/calibration.md. Run: node scripts/calibrate.js [--no-record]
import { loadSite } from '../src/loader/load.js';
import { loadPage } from '../src/loader/client.js';
import { startServer } from '../src/loader/server.js';
import { model, planFromTrace } from '../src/loader/model.js';
import { networkProfile } from '../src/loader/networks.js';
import { recordMeasurement } from '../bench/record.js';

/** What is printed, recorded at the end. @type {string[]} */
const printed = [];
/** @param {string} text */
const print = (text) => {
  console.log(text);
  printed.push(text);
};

/** @param {number} model @param {number} paper */
const err = (model, paper) => `${model >= paper ? '+' : ''}${(((model - paper) / paper) * 100).toFixed(0)}%`;
/** @param {number} n */
const fmt = (n) => (Number.isInteger(n) ? String(n) : n.toFixed(2));
/** @param {string[][]} rows */
const table = (rows) => [rows[0], rows[0].map(() => '---'), ...rows.slice(1)].map((r) => `| ${r.join(' | ')} |`).join('\n');

// SIGCOMM '97, Apache tables (WAN and PPP). Packets are not in the copy; they are derived as %ov x bytes / 40.
const SIGCOMM = [
  ['wan-1997', 'http1.0', 'first', 248655.2, 4.09, 8.3], ['wan-1997', 'http1.1', 'first', 191436.0, 6.14, 6.1], ['wan-1997', 'pipelined', 'first', 191180.6, 2.23, 4.4],
  ['wan-1997', 'http1.0', 'revalidate', 61887, 2.64, 19.3], ['wan-1997', 'http1.1', 'revalidate', 14255, 4.43, 22.6], ['wan-1997', 'pipelined', 'revalidate', 15352, 0.86, 7.2],
  ['modem-28.8k', 'http1.1', 'first', 187869, 65.6, 6.2], ['modem-28.8k', 'pipelined', 'first', 187918, 53.4, 5.7],
  ['modem-28.8k', 'http1.1', 'revalidate', 13843, 11.1, 20.5], ['modem-28.8k', 'pipelined', 'revalidate', 13912, 3.4, 7.0],
];
const micro = await loadSite({ root: 'fixtures/microscape', networks: ['wan-1997', 'modem-28.8k'], visits: ['first', 'revalidate'] });
const rows = [['network', 'strategy', 'visit', 'packets: paper (derived)', 'model', 'error', 'bytes: paper', 'model', 'error', 'seconds: paper', 'model', 'error']];
for (const [network, protocol, visit, bytes, seconds, ov] of SIGCOMM) {
  const r = /** @type {import('../src/loader/load.js').Run} */ (micro.runs.find((x) => x.network === network && x.protocol === protocol && x.visit === visit));
  const packets = Math.round((Number(ov) / 100) * Number(bytes) / 40);
  rows.push([String(network), String(protocol), String(visit), String(packets), String(r.packets), err(r.packets, packets), String(bytes), String(r.wireBytes), err(r.wireBytes, Number(bytes)), String(seconds), fmt(r.seconds), err(r.seconds, Number(seconds))]);
}
print('### SIGCOMM \'97, microscape (Apache tables, WAN and PPP)\n');
print(table(rows));

const TABLE_I = [['ethernet-1999', 'http1.0', 363.6, 247.6], ['ethernet-1999', 'pipelined', 95.9, 462.4], ['ricochet-1999', 'http1.0', 416.7, 17.2], ['ricochet-1999', 'pipelined', 170.2, 36.9]];
const rico = await loadSite({ root: 'fixtures/ricochet', protocols: ['http1.0', 'pipelined'], networks: ['ethernet-1999', 'ricochet-1999'], visits: ['first'], connections: 1 });
const rows99 = [['network', 'strategy', 'packets: Table I', 'model', 'error', 'throughput kbit/s: Table I', 'model', 'error']];
for (const [network, protocol, packets, throughput] of TABLE_I) {
  const r = /** @type {import('../src/loader/load.js').Run} */ (rico.runs.find((x) => x.network === network && x.protocol === protocol));
  const tp = (r.payloadBytes * 8) / r.seconds / 1000;
  rows99.push([String(network), String(protocol), String(packets), String(r.packets), err(r.packets, Number(packets)), String(throughput), tp.toFixed(1), err(tp, Number(throughput))]);
}
print('\n### 1999 wireless study, Table I, ricochet\n');
print(table(rows99));

const s1 = await startServer({ root: 'fixtures/h2-sample', protocol: 'http1' });
const s2 = await startServer({ root: 'fixtures/h2-sample', protocol: 'h2c' });
const h1 = planFromTrace(await loadPage({ origin: s1.url, page: '/index.html', protocol: 'http1.1' }));
const h2 = planFromTrace(await loadPage({ origin: s2.url, page: '/index.html', protocol: 'h2' }));
await Promise.all([s1.close(), s2.close()]);
const mean = (/** @type {(seed: number) => number} */ f) => [1, 2, 3].map(f).reduce((a, b) => a + b, 0) / 3;
const rows14 = [['kbit/s', 'loss', 'HTTP/2, 1 domain', 'HTTP/1.1, 1 domain', '2 domains', '3 domains', '5 domains', 'HTTP/2 vs best HTTP/1.1']];
for (const [bandwidth, loss] of [[500, 0], [5000, 0], [50000, 0], [5000, 1], [5000, 2], [5000, 5], [5000, 10]]) {
  const profile = networkProfile('custom', { rtt: 79, bandwidth, loss });
  const t2 = mean((seed) => model(h2, 'h2', profile, { seed }).seconds);
  const t1 = [1, 2, 3, 5].map((domains) => mean((seed) => model(h1, 'http1.1', profile, { connections: 6, domains, seed }).seconds));
  const best = Math.min(...t1);
  rows14.push([String(bandwidth), `${loss}%`, t2.toFixed(2), ...t1.map((t) => t.toFixed(2)), `${t2 < best ? 'faster' : 'slower'} by ${Math.abs((1 - t2 / best) * 100).toFixed(0)}%`]);
}
print('\n### 2014 HTTP/2 study, h2-sample, 79 ms RTT, seconds (mean of loss patterns 1 to 3)\n');
print(table(rows14));
await recordMeasurement('calibration.md', 'microscape, ricochet and h2-sample against SIGCOMM \'97, the 1999 wireless study and the 2014 HTTP/2 study', printed.join('\n'));

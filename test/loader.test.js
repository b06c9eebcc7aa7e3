import fs from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSite } from '../src/loader/load.js';
import { loadPage } from '../src/loader/client.js';
import { startServer } from '../src/loader/server.js';
import { model, planFromTrace } from '../src/loader/model.js';
import { networkProfile, NETWORKS } from '../src/loader/networks.js';

/** @type {import('../src/loader/load.js').LoadResult} */
let microscape;

beforeAll(async () => {
  microscape = await loadSite({ root: 'fixtures/microscape', networks: ['wan-1997', 'modem-28.8k'] });
});

const run = (protocol, network, visit) => microscape.runs.find((r) => r.protocol === protocol && r.network === network && r.visit === visit);
const trace = (protocol, visit) => microscape.traces.find((t) => t.protocol === protocol && t.visit === visit);

describe('robot on the real server, fixtures/microscape', () => {
  it.each(['http1.0', 'http1.1', 'pipelined', 'h2'])('%s loads 43 objects, then revalidates all 43 with 304', (protocol) => {
    const first = trace(protocol, 'first');
    expect(first.requests).toHaveLength(43);
    expect(first.requests.every((r) => r.status === 200)).toBe(true);
    expect(first.connections).toHaveLength(protocol === 'http1.0' ? 43 : 1);
    const again = trace(protocol, 'revalidate');
    expect(again.requests).toHaveLength(43);
    expect(again.requests.every((r) => r.status === 304 && r.bodyBytes === 0)).toBe(true);
    expect(again.connections).toHaveLength(protocol === 'http1.0' ? 43 : 1);
    // What the robot counted is what crossed the socket: the bodies are the files.
    expect(first.requests.reduce((n, r) => n + r.decodedBytes, 0)).toBe(42252 + 103359 + 24885);
  });

  it.each(['http1.0', 'http1.1', 'pipelined', 'h2'])('%s: a repeat visit a day later revalidates all 43 (the page no-cache, the images an hour: no fingerprinted names); half an hour later only the page', async (protocol) => {
    const repeat = trace(protocol, 'repeat');
    expect(repeat.requests.map((r) => [r.path, r.fromCache, r.status])).toEqual(trace(protocol, 'revalidate').requests.map((r) => [r.path, false, 304]));
    expect(run(protocol, 'wan-1997', 'repeat')).toMatchObject({ requests: 43, fromCache: 0, packets: run(protocol, 'wan-1997', 'revalidate').packets });
    const soon = await loadSite({ root: 'fixtures/microscape', protocols: [protocol], networks: ['wan-1997'], visits: ['repeat'], betweenVisits: 1800 });
    const [t] = soon.traces;
    expect(t.requests.filter((r) => !r.fromCache).map((r) => [r.path, r.status])).toEqual([['/index.html', 304]]);
    expect(soon.runs[0]).toMatchObject({ requests: 1, fromCache: 42, connections: 1 });
  });

  it('pipelining writes the page request alone, then the 42 image requests in one write', () => {
    const writes = trace('pipelined', 'first').connections[0].writes;
    expect(writes.map((w) => w.length)).toEqual([1, 42]);
    expect(trace('http1.1', 'first').connections[0].writes.every((w) => w.length === 1)).toBe(true);
  });
});

describe('the model reproduces the SIGCOMM \'97 findings on microscape', () => {
  it.each(['wan-1997', 'modem-28.8k'])('on %s pipelining needs at most half the packets of HTTP/1.0 on a first visit, a fifth on revalidation', (network) => {
    expect(run('pipelined', network, 'first').packets).toBeLessThanOrEqual(run('http1.0', network, 'first').packets / 2);
    expect(run('pipelined', network, 'revalidate').packets).toBeLessThanOrEqual(run('http1.0', network, 'revalidate').packets / 5);
  });

  it.each(['wan-1997', 'modem-28.8k'])('on %s HTTP/1.1 without pipelining is slower than HTTP/1.0 with 4 connections, and pipelining is fastest', (network) => {
    const seconds = (p) => run(p, network, 'first').seconds;
    expect(run('http1.0', network, 'first').connections).toBe(43);
    expect(seconds('http1.1')).toBeGreaterThan(seconds('http1.0'));
    expect(seconds('pipelined')).toBeLessThan(seconds('http1.0'));
    expect(seconds('pipelined')).toBeLessThan(seconds('http1.1'));
  });
});

describe('the model against the 1999 wireless study, Table I, on fixtures/ricochet', () => {
  // Table I: throughput (Kb/s) and total packets, mean of ten runs.
  const TABLE_I = {
    'ethernet-1999': { 'http1.0': { throughput: 247.6, packets: 363.6 }, pipelined: { throughput: 462.4, packets: 95.9 } },
    'ricochet-1999': { 'http1.0': { throughput: 17.2, packets: 416.7 }, pipelined: { throughput: 36.9, packets: 170.2 } },
  };
  /** @type {import('../src/loader/load.js').LoadResult} */
  let ricochet;
  beforeAll(async () => {
    // The 1999 robot used one connection at a time for HTTP/1.0, and pipelined one for HTTP/1.1.
    ricochet = await loadSite({ root: 'fixtures/ricochet', protocols: ['http1.0', 'pipelined'], networks: Object.keys(TABLE_I), visits: ['first'], connections: 1 });
  });
  for (const [network, rows] of Object.entries(TABLE_I)) {
    for (const [protocol, paper] of Object.entries(rows)) {
      it(`${network} ${protocol}: packets and throughput within 25%`, () => {
        const r = ricochet.runs.find((x) => x.network === network && x.protocol === protocol);
        const throughput = (r.payloadBytes * 8) / r.seconds / 1000;
        expect(Math.abs(r.packets / paper.packets - 1)).toBeLessThan(0.25);
        expect(Math.abs(throughput / paper.throughput - 1)).toBeLessThan(0.25);
      });
    }
  }
});

describe('the model against the 2014 HTTP/2 study on fixtures/h2-sample, 79 ms', () => {
  let h1;
  let h2;
  beforeAll(async () => {
    const s1 = await startServer({ root: 'fixtures/h2-sample', protocol: 'http1' });
    const s2 = await startServer({ root: 'fixtures/h2-sample', protocol: 'h2c' });
    h1 = planFromTrace(await loadPage({ origin: s1.url, page: '/index.html', protocol: 'http1.1' }));
    h2 = planFromTrace(await loadPage({ origin: s2.url, page: '/index.html', protocol: 'h2' }));
    await Promise.all([s1.close(), s2.close()]);
  });
  const mean = (f) => [1, 2, 3].map(f).reduce((a, b) => a + b, 0) / 3;

  it.each([500, 5000, 50000])('without loss at %i kbit/s, HTTP/2 on one domain beats HTTP/1.1 (6 connections per domain) on 1 to 5 domains', (bandwidth) => {
    const profile = networkProfile('custom', { rtt: 79, bandwidth });
    const h2time = model(h2, 'h2', profile).seconds;
    for (const domains of [1, 2, 3, 5]) expect(h2time).toBeLessThan(model(h1, 'http1.1', profile, { connections: 6, domains }).seconds);
  });

  it.each([5, 10])('at %i percent loss, HTTP/2 on one domain is slower than HTTP/1.1 on five (mean of 3 loss patterns)', (loss) => {
    const profile = networkProfile('custom', { rtt: 79, bandwidth: 5000, loss });
    const h2time = mean((seed) => model(h2, 'h2', profile, { seed }).seconds);
    const h1time = mean((seed) => model(h1, 'http1.1', profile, { connections: 6, domains: 5, seed }).seconds);
    expect(h2time).toBeGreaterThan(h1time);
  });
});

describe('network model mechanics', () => {
  const plan = (sizes) => ({ requests: sizes.map((bytes, i) => ({ order: i, parent: i === 0 ? null : 0, requestBytes: 100, responseBytes: bytes })), controlUp: 0, controlDown: 0 });

  it('counts a lone small exchange exactly: handshake, request, response, ACKs, close', () => {
    const r = model(plan([500]), 'http1.0', NETWORKS['wan-1997']);
    // SYN, SYN-ACK, ACK; request; response (carries the ACK of the request); delayed ACK of the response; FIN, ACK, FIN, ACK.
    expect([r.packets, r.payloadBytes, r.wireBytes, r.connections]).toEqual([10, 600, 1000, 1]);
    // Handshake (1 RTT) + request and response (1 RTT) + serialization at 1.544 Mbit/s.
    const serialization = ((40 + 40 + 40 + 140 + 540) * 8) / 1544;
    expect(r.seconds).toBeCloseTo((180 + serialization) / 1000, 3);
  });

  it('is deterministic and shares the link: the same plan gives the same result, and bytes bound the time', () => {
    const p = plan([42000, ...Array(20).fill(3000)]);
    const a = model(p, 'http1.0', NETWORKS['modem-28.8k']);
    expect(model(p, 'http1.0', NETWORKS['modem-28.8k'])).toEqual(a);
    expect(a.seconds).toBeGreaterThanOrEqual((a.packetsDown * 40 + 102000) * 8 / 28800 - 1e-9);
  });

  it('retransmits what it loses, and a loss costs time', () => {
    const p = plan([200000]);
    const clean = model(p, 'http1.1', networkProfile('custom', { rtt: 80, bandwidth: 5000 }));
    const lossy = model(p, 'http1.1', networkProfile('custom', { rtt: 80, bandwidth: 5000, loss: 5 }));
    expect(clean.retransmissions).toBe(0);
    expect(lossy.retransmissions).toBeGreaterThan(0);
    expect(lossy.seconds).toBeGreaterThan(clean.seconds);
    expect(lossy.payloadBytes).toBeGreaterThan(clean.payloadBytes);
  });
});

/**
 * The network model: replays a page load, recorded by the robot, on a
 * network profile, packet by packet (a small discrete-event simulation of TCP
 * under HTTP), to give the packets, wire bytes and seconds the same exchange
 * costs on the studies' networks and today's; and makes that load's plan from
 * a recorded exchange.
 */
import { DOWN, Simulation, UP } from './model-simulation.js';
import { HEADER_BYTES } from './model-tcp.js';

/**
 * @typedef {import('./client.js').Strategy} Strategy
 * @typedef {import('./networks.js').NetworkProfile} NetworkProfile
 *
 * @typedef {object} PlannedRequest
 * @property {number} order
 * @property {number | null} parent
 * @property {number} requestBytes
 * @property {number} responseBytes headers, body and framing as sent
 * @property {string} [path]
 * @property {boolean} [blocking] the page's first render waits for it (the page, its render-blocking style sheets and scripts)
 * @property {boolean} [paint] the image the page names as its largest paint
 *
 * @typedef {object} LoadPlan what the model needs of a recorded exchange: the requests that crossed the network
 * @property {PlannedRequest[]} requests in issue order; those whose parent is null are known at the start (the page;
 *   in a repeat visit whose page came from the cache, what it and other cached objects reveal). None: nothing to send
 * @property {number} controlUp per-connection bytes from the client that belong to no request (HTTP/2)
 * @property {number} controlDown the same from the server
 * @property {boolean} [paintNamed] the page names an image as its largest paint (which may come from the cache)
 *
 * @typedef {object} ModelOptions
 * @property {number} [connections] parallel connections per host for http1.0 and http1.1 (default: the profile's for http1.0, 1 for http1.1)
 * @property {number} [domains] subresources spread round-robin over this many host names (default 1)
 * @property {number} [serverMs] server time per request (default 0)
 * @property {number} [seed] for the loss pattern (default 1)
 *
 * @typedef {object} RequestTiming
 * @property {number} order
 * @property {number} connection
 * @property {number} domain
 * @property {number} sentMs when its first byte left the client
 * @property {number} doneMs when its last response byte arrived
 *
 * @typedef {object} ModelResult
 * @property {number} requests
 * @property {number} connections
 * @property {number} packets
 * @property {number} packetsUp
 * @property {number} packetsDown
 * @property {number} payloadBytes TCP payload, both directions
 * @property {number} wireBytes payload plus TCP/IP headers
 * @property {number} overheadPercent header bytes as a share of wire bytes
 * @property {number} seconds from the first SYN to the last byte of the last response, plus the profile's fixed testbed time
 * @property {number} retransmissions
 * @property {number} firstRenderSeconds when the page and every render-blocking response it needs from the network
 *   have arrived, plus the fixed testbed time (0 when none crossed it)
 * @property {number | null} largestPaintSeconds when the image the page names as its largest paint has arrived too
 *   (its first render when it came from the cache); null when the page names none
 * @property {RequestTiming[]} timeline
 */

/**
 * Models a load plan on a network. Objects a repeat visit takes from the
 * browser's cache are not in the plan: they cost no packet and no time, and a
 * load of none at all is 0 s and 0 bytes.
 * @param {LoadPlan} plan
 * @param {Strategy} strategy
 * @param {NetworkProfile} profile
 * @param {ModelOptions} [options]
 * @returns {ModelResult}
 */
export function model(plan, strategy, profile, options = {}) {
  // Everything from the cache: no connection, no packet, no time (not even a testbed's fixed time).
  if (!plan.requests.length) {
    return { requests: 0, connections: 0, packets: 0, packetsUp: 0, packetsDown: 0, payloadBytes: 0, wireBytes: 0, overheadPercent: 0, seconds: 0, retransmissions: 0, firstRenderSeconds: 0, largestPaintSeconds: plan.paintNamed ? 0 : null, timeline: [] };
  }
  const sim = new Simulation(plan, strategy, profile, options);
  sim.run();
  UP.reset();
  DOWN.reset();
  const packets = sim.up.packets + sim.down.packets;
  const payloadBytes = sim.up.payload + sim.down.payload;
  const wireBytes = payloadBytes + packets * HEADER_BYTES;
  const timeline = sim.timing.sort((a, b) => a.order - b.order);
  const doneMs = new Map(timeline.map((t) => [t.order, t.doneMs]));
  /** When the last of the requests that pass the test arrived, with the testbed's time; 0 when none did. @param {(r: PlannedRequest) => boolean} test */
  const arrived = (test) => {
    let last = -1;
    for (const r of plan.requests) if (test(r)) last = Math.max(last, doneMs.get(r.order) ?? 0);
    return last < 0 ? 0 : (last + profile.fixedMs) / 1000;
  };
  const firstRenderSeconds = arrived((r) => r.blocking === true);
  return {
    requests: plan.requests.length,
    connections: sim.connections.length,
    packets,
    packetsUp: sim.up.packets,
    packetsDown: sim.down.packets,
    payloadBytes,
    wireBytes,
    overheadPercent: wireBytes ? (100 * packets * HEADER_BYTES) / wireBytes : 0,
    seconds: (sim.lastDone + profile.fixedMs) / 1000,
    retransmissions: sim.retransmissions,
    firstRenderSeconds,
    largestPaintSeconds: plan.paintNamed ? Math.max(firstRenderSeconds, arrived((r) => r.paint === true)) : null,
    timeline,
  };
}

/**
 * The load plan of a recorded exchange: its requests, without the objects
 * taken from the cache, which cost nothing on the network. A request revealed
 * by a cached object is revealed by that object's nearest ancestor that
 * crossed the network, or known at the start when none did.
 * @param {import('./client.js').Trace} trace
 * @returns {LoadPlan}
 */
export function planFromTrace(trace) {
  const first = trace.connections[0];
  const cached = new Map(trace.requests.filter((r) => r.fromCache).map((r) => [r.order, r]));
  /** @param {number | null} parent */
  const onNetwork = (parent) => {
    let p = parent;
    for (let c = p === null ? undefined : cached.get(p); c; c = p === null ? undefined : cached.get(p)) p = c.parent;
    return p;
  };
  return {
    requests: trace.requests.filter((r) => !r.fromCache).map((r) => ({
      order: r.order,
      parent: cached.size ? onNetwork(r.parent) : r.parent,
      requestBytes: r.requestBytes,
      responseBytes: r.responseHeaderBytes + r.bodyBytes + (trace.protocol === 'h2' ? r.framingBytes : 0),
      path: r.path,
      blocking: r.blocking,
      paint: r.paint,
    })),
    paintNamed: trace.requests.some((r) => r.paint),
    controlUp: first ? first.controlUp : 0,
    controlDown: first ? first.controlDown : 0,
  };
}

/**
 * One run of the network model: the browser's side of a page load under each
 * strategy, the server's answers, and the connections they open over the
 * shared access link, driven by one event queue.
 */
import { EventQueue, Fifo } from './model-events.js';
import { Connection, Link } from './model-tcp.js';

/**
 * @typedef {import('./client.js').Strategy} Strategy
 * @typedef {import('./networks.js').NetworkProfile} NetworkProfile
 * @typedef {import('./model.js').PlannedRequest} PlannedRequest
 * @typedef {import('./model.js').LoadPlan} LoadPlan
 * @typedef {import('./model.js').ModelOptions} ModelOptions
 * @typedef {import('./model.js').RequestTiming} RequestTiming
 *
 * @typedef {object} Exchange a request on its connection, from the client's write to the response's arrival
 * @property {PlannedRequest} request
 * @property {Connection} conn
 * @property {RequestTiming} timing
 */

/** The links' queues, shared by runs one after another (a run is synchronous). */
export const UP = new Fifo();
export const DOWN = new Fifo();

/** mulberry32: a tiny seeded generator, so a loss pattern repeats exactly. @param {number} seed */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A page load. The browser follows the strategies the studies compared:
 * HTTP/1.0 with a new connection per request, HTTP/1.1 with persistent
 * connections, one request at a time, pipelined HTTP/1.1, and HTTP/2. A
 * request is issued when the response that revealed it has been received in full.
 */
export class Simulation {
  /**
   * @param {LoadPlan} plan
   * @param {Strategy} strategy
   * @param {NetworkProfile} profile
   * @param {ModelOptions} options
   */
  constructor(plan, strategy, profile, options) {
    this.plan = plan;
    this.strategy = strategy;
    this.profile = profile;
    this.events = new EventQueue();
    this.up = new Link(this, profile.upKbps, profile.rttMs / 2, profile.perPacketMs, UP);
    this.down = new Link(this, profile.downKbps, profile.rttMs / 2, profile.perPacketMs, DOWN);
    this.lossRate = profile.lossPercent / 100;
    this.random = random(options.seed ?? 1);
    this.retransmissions = 0;
    this.serverMs = options.serverMs ?? 0;
    this.domains = Math.max(1, options.domains ?? 1);
    this.perHost = strategy === 'http1.0' ? options.connections ?? profile.connections : strategy === 'http1.1' ? options.connections ?? 1 : 1;
    /** @type {Connection[]} */
    this.connections = [];
    /** @type {Connection[][]} connections not closed, per domain, in the order they were opened */
    this.live = [];
    /** @type {PlannedRequest[][]} ready requests per domain */
    this.ready = [];
    for (let domain = 0; domain < this.domains; domain++) {
      this.live.push([]);
      this.ready.push([]);
    }
    /** @type {Map<number, PlannedRequest[]>} requests by the order of the request that reveals them */
    this.children = new Map();
    for (const r of plan.requests) {
      if (r.parent === null) continue;
      const list = this.children.get(r.parent) ?? [];
      list.push(r);
      this.children.set(r.parent, list);
    }
    /** @type {RequestTiming[]} in the order the requests were sent */
    this.timing = [];
    this.lastDone = 0;
  }

  /** @param {PlannedRequest} r */
  domainOf(r) {
    return r.order === 0 ? 0 : r.order % this.domains;
  }

  run() {
    for (const r of this.plan.requests) if (r.parent === null) this.ready[this.domainOf(r)].push(r);
    this.events.push(0, (t) => this.dispatch(t));
    this.events.run();
    for (const c of this.connections) if (!c.closed) c.close(this.lastDone);
    this.events.run();
  }

  /** Starts whatever the strategy allows now. @param {number} t */
  dispatch(t) {
    for (let domain = 0; domain < this.domains; domain++) {
      const ready = this.ready[domain];
      if (!ready.length) continue;
      if (this.strategy === 'pipelined' || this.strategy === 'h2') {
        const conn = this.live[domain][0] ?? this.openConnection(t, domain);
        if (conn.established) {
          conn.busy = true;
          for (const r of ready) this.sendRequest(t, conn, r);
          ready.length = 0;
        }
        continue;
      }
      // One request at a time per connection: idle open connections first, then new ones up to the limit.
      let open = 0;
      let opening = 0;
      for (const conn of this.live[domain]) {
        open++;
        if (!conn.established) opening++;
        else if (!conn.busy && ready.length) {
          conn.busy = true;
          this.sendRequest(t, conn, /** @type {PlannedRequest} */ (ready.shift()));
        }
      }
      for (; ready.length > opening && open < this.perHost; open++, opening++) this.openConnection(t, domain);
    }
  }

  /** @param {number} t @param {number} domain */
  openConnection(t, domain) {
    const conn = new Connection(this, this.connections.length, domain);
    this.connections.push(conn);
    this.live[domain].push(conn);
    conn.open(t);
    return conn;
  }

  /** A connection is established. @param {number} t @param {Connection} conn */
  opened(t, conn) {
    if (this.strategy === 'h2') {
      // Preface and SETTINGS go out with the first requests; the server answers with its own.
      conn.client.write(t, this.plan.controlUp, null);
      conn.server.write(t, this.plan.controlDown, null);
    }
    this.dispatch(t);
  }

  /** @param {number} t @param {Connection} conn @param {PlannedRequest} r */
  sendRequest(t, conn, r) {
    /** @type {RequestTiming} */
    const timing = { order: r.order, connection: conn.id, domain: conn.domain, sentMs: t, doneMs: 0 };
    this.timing.push(timing);
    conn.client.write(t, r.requestBytes, { request: r, conn, timing });
  }

  /** The server has the whole request: it answers after its own time. @param {number} t @param {Exchange} exchange */
  serve(t, exchange) {
    if (this.serverMs > 0) this.events.push(t + this.serverMs, (ts) => this.respond(ts, exchange));
    else this.respond(t, exchange);
  }

  /** @param {number} t @param {Exchange} exchange */
  respond(t, exchange) {
    const { request, conn } = exchange;
    conn.server.write(t, request.responseBytes, exchange);
    // After the response's segments have been sent (a write made while delivering waits for the delivery to end).
    if (this.strategy === 'http1.0' && this.profile.finSharing) this.events.push(t, (tf) => conn.closeFromServer(tf, request.responseBytes));
  }

  /** The client has the whole response. @param {number} t @param {Exchange} exchange */
  received(t, exchange) {
    const { request: r, conn, timing } = exchange;
    timing.doneMs = t;
    this.lastDone = Math.max(this.lastDone, t);
    for (const child of this.children.get(r.order) ?? []) this.ready[this.domainOf(child)].push(child);
    if (this.strategy === 'http1.0') conn.close(t);
    else if (this.strategy === 'http1.1') conn.busy = false;
    this.dispatch(t);
  }
}

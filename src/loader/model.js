/**
 * The network model: replays a page load, recorded by the robot, on a
 * network profile, packet by packet, to give the packets, wire bytes and
 * seconds the same exchange costs on the studies' networks and today's.
 *
 * It is a small discrete-event simulation of TCP under HTTP: three-way
 * handshakes and four-packet closes, slow start from the profile's initial
 * window, delayed ACKs (one ACK per two segments, or after a timer), ACKs
 * carried on data when the receiver has data to send, Nagle's rule when the
 * profile asks for it, a receive window, and losses (NewReno-style fast
 * retransmit on three duplicate ACKs, else a timeout; both cut the
 * connection's window). All connections of a page share the access link,
 * which serializes packets first-in, first-out in each direction.
 *
 * Two habits of today's Linux are there when a profile asks for them (see
 * networks.js, LINUX_TCP; test/netns.test.js holds them against real Linux):
 * quick ACKs (a receiver ACKs the first segments of a connection one by one
 * until the connection turns interactive) and FINs that share packets (a
 * close of three packets, or two, instead of four).
 *
 * The browser side follows the strategies the studies compared: HTTP/1.0 with
 * a new connection per request, HTTP/1.1 with persistent connections, one
 * request at a time, pipelined HTTP/1.1, and HTTP/2. A request is issued when
 * the response that revealed it has been received in full.
 */

/** TCP/IP header bytes per packet (20 IP + 20 TCP, no options), as the studies counted. */
export const HEADER_BYTES = 40;

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
 *
 * @typedef {object} LoadPlan what the model needs of a recorded exchange
 * @property {PlannedRequest[]} requests in issue order; requests[0] is the page
 * @property {number} controlUp per-connection bytes from the client that belong to no request (HTTP/2)
 * @property {number} controlDown the same from the server
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
 * @property {RequestTiming[]} timeline
 */

/**
 * @typedef {object} SimEvent
 * @property {number} t
 * @property {number} seq
 * @property {(t: number, event: SimEvent) => void} fn
 * @property {Endpoint | null} target with a, b, c: what a packet's arrival needs, so packets need no closure each
 * @property {number} a
 * @property {number} b
 * @property {number} c
 */

/** A binary heap of events ordered by time, then by insertion, so runs are deterministic. */
class EventQueue {
  constructor() {
    /** @type {SimEvent[]} */
    this.heap = [];
    this.seq = 0;
  }

  /**
   * @param {number} t
   * @param {(t: number, event: SimEvent) => void} fn called with the time and the event
   * @param {Endpoint | null} [target]
   * @param {number} [a]
   * @param {number} [b]
   * @param {number} [c]
   */
  push(t, fn, target = null, a = 0, b = 0, c = 0) {
    const heap = this.heap;
    /** @type {SimEvent} */
    const item = { t, seq: this.seq++, fn, target, a, b, c };
    let i = heap.push(item) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(item, heap[parent])) break;
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = item;
  }

  pop() {
    const heap = this.heap;
    const top = heap[0];
    const last = /** @type {typeof top} */ (heap.pop());
    if (heap.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= heap.length) break;
        const r = l + 1;
        const child = r < heap.length && before(heap[r], heap[l]) ? r : l;
        if (!before(heap[child], last)) break;
        heap[i] = heap[child];
        i = child;
      }
      heap[i] = last;
    }
    return top;
  }

  run() {
    let now = 0;
    while (this.heap.length) {
      const event = this.pop();
      now = event.t;
      event.fn(now, event);
    }
    return now;
  }
}

/** @param {{ t: number, seq: number }} a @param {{ t: number, seq: number }} b */
function before(a, b) {
  return a.t < b.t || (a.t === b.t && a.seq < b.seq);
}

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

/** One direction of the access link: packets leave in order at its rate and arrive half an RTT later. */
class Link {
  /** @param {Simulation} sim @param {number} kbps @param {number} delayMs @param {number} perPacketMs */
  constructor(sim, kbps, delayMs, perPacketMs) {
    this.sim = sim;
    this.bytesPerMs = (kbps * 1000) / 8 / 1000;
    this.perPacketMs = perPacketMs;
    this.delayMs = delayMs;
    this.freeAt = 0;
    this.packets = 0;
    this.payload = 0;
  }

  /**
   * @param {number} t
   * @param {number} payload
   * @param {((t: number, event: SimEvent) => void) | null} onArrive null: the packet is lost
   * @param {Endpoint | null} [target] @param {number} [a] @param {number} [b] @param {number} [c] handed to onArrive in the event
   */
  send(t, payload, onArrive, target = null, a = 0, b = 0, c = 0) {
    const start = Math.max(t, this.freeAt);
    this.freeAt = start + (payload + HEADER_BYTES) / this.bytesPerMs + this.perPacketMs;
    this.packets++;
    this.payload += payload;
    if (onArrive) this.sim.events.push(this.freeAt + this.delayMs, onArrive, target, a, b, c);
  }
}

/** A data segment arrives: a is its first byte, b its length, c the ACK it carries. @param {number} t @param {SimEvent} e */
const segmentArrives = (t, e) => /** @type {Endpoint} */ (e.target).receive(t, e.a, e.b, e.c);
/** A pure ACK arrives: a is the ACK. @param {number} t @param {SimEvent} e */
const ackArrives = (t, e) => /** @type {Endpoint} */ (e.target).onAck(t, e.a, true);
/** Timers: a is the generation they were armed as (a timer re-armed since does nothing). @param {number} t @param {SimEvent} e */
const delackFires = (t, e) => /** @type {Endpoint} */ (e.target).delackFired(t, e.a);
/** @param {number} t @param {SimEvent} e */
const rtoFires = (t, e) => /** @type {Endpoint} */ (e.target).rtoFired(t, e.a);

/**
 * One end of a TCP connection: a sender of a byte stream cut into segments and
 * a receiver that acknowledges the peer's stream.
 */
class Endpoint {
  /** @param {Simulation} sim @param {Link} out */
  constructor(sim, out) {
    const p = sim.profile;
    this.sim = sim;
    this.out = out;
    /** @type {Endpoint} */
    this.peer = this;
    this.mss = p.mss;
    // Sender
    this.appEnd = 0;
    this.sndUna = 0;
    this.sndNxt = 0;
    this.cwnd = p.iw * p.mss;
    this.ssthresh = Infinity;
    this.dupAcks = 0;
    this.recoverPoint = -1;
    /**
     * Segments in flight, from sentHead on, in sequence order: first byte, length, when sent, and
     * whether resent (Karn: no RTT sample then). @type {{ seq: number, len: number, at: number, resent: boolean }[]}
     */
    this.sent = [];
    this.sentHead = 0;
    // RFC 6298: the timeout follows the measured RTT, queueing included; the handshake gives the first sample.
    this.srtt = 0;
    this.rttvar = 0;
    this.rtoMs = p.initialRtoMs;
    this.backoff = 1;
    this.rtoGeneration = 0;
    /** While set, writes wait: replies to requests that arrived together leave together (server buffering, Linux autocorking). */
    this.corked = false;
    // Receiver
    this.rcvNxt = 0;
    /** Out-of-order segments by first byte (made at the first: most connections never have one). @type {Map<number, number> | null} */
    this.outOfOrder = null;
    this.unacked = 0;
    this.delackGeneration = 0;
    this.delackPending = false;
    /** Messages of the peer's stream, by the offset where they end. @type {{ end: number, done: (t: number) => void }[]} */
    this.incoming = [];
    // Linux's quick ACKs (profile.quickAcks): how many are left, whether the connection is
    // interactive ("pingpong": this end sent data soon after data arrived), and when data last arrived.
    this.quickAcks = p.quickAcks;
    this.interactive = false;
    this.lastDataIn = -Infinity;
  }

  /**
   * The application writes a message; done runs when the peer has all of it.
   * @param {number} t @param {number} bytes @param {(t: number) => void} done
   */
  write(t, bytes, done) {
    this.appEnd += bytes;
    this.peer.incoming.push({ end: this.appEnd, done });
    if (!this.corked) this.trySend(t);
  }

  /** @param {number} t */
  trySend(t) {
    const p = this.sim.profile;
    const window = Math.min(this.cwnd, p.rwnd);
    while (this.sndNxt < this.appEnd) {
      const len = Math.min(this.mss, this.appEnd - this.sndNxt);
      const inFlight = this.sndNxt - this.sndUna;
      if (inFlight > 0 && inFlight + len > window) break;
      if (p.nagle && len < this.mss && inFlight > 0) break;
      this.sent.push({ seq: this.sndNxt, len, at: t, resent: false });
      this.transmit(t, this.sndNxt, len);
      this.sndNxt += len;
    }
  }

  /** A data segment, carrying an ACK of what this end has received. @param {number} t @param {number} seq @param {number} len */
  transmit(t, seq, len) {
    const ack = this.rcvNxt;
    this.unacked = 0;
    this.delackPending = false;
    // Linux: an answer sent within the delayed-ACK time of the data it answers makes the connection interactive.
    if (t - this.lastDataIn < this.sim.profile.delayedAckMs) this.interactive = true;
    const lost = this.sim.lossRate > 0 && this.sim.random() < this.sim.lossRate;
    this.out.send(t, len, lost ? null : segmentArrives, this.peer, seq, len, ack);
    if (this.sndUna === this.sndNxt || seq < this.sndNxt) this.armRto(t);
  }

  /** @param {number} t */
  sendAck(t) {
    const ack = this.rcvNxt;
    this.unacked = 0;
    this.delackPending = false;
    this.out.send(t, 0, ackArrives, this.peer, ack);
  }

  /** @param {number} t @param {number} seq @param {number} len @param {number} ack */
  receive(t, seq, len, ack) {
    this.onAck(t, ack, false);
    if (seq === this.rcvNxt) {
      const outOfOrder = this.outOfOrder;
      const hadHole = outOfOrder !== null && outOfOrder.size > 0;
      this.rcvNxt += len;
      if (outOfOrder !== null) {
        for (let next = outOfOrder.get(this.rcvNxt); next !== undefined; next = outOfOrder.get(this.rcvNxt)) {
          outOfOrder.delete(this.rcvNxt);
          this.rcvNxt += next;
        }
      }
      this.unacked++;
      this.lastDataIn = t;
      // Linux ACKs a segment in quickack mode as it arrives, before the application has read it,
      // so no reply can carry that ACK. Interactive connections get delayed ACKs instead.
      if (this.quickAcks > 0 && !this.interactive && !hadHole) {
        this.quickAcks--;
        this.sendAck(t);
      }
      // Deliver first: a reply written now carries the ACK for free, and replies written together leave together.
      if (this.incoming.length && this.incoming[0].end <= this.rcvNxt) {
        this.corked = true;
        while (this.incoming.length && this.incoming[0].end <= this.rcvNxt) /** @type {{ done: (t: number) => void }} */ (this.incoming.shift()).done(t);
        this.corked = false;
        this.trySend(t);
      }
      if (this.unacked === 0) return;
      if (hadHole || (outOfOrder !== null && outOfOrder.size > 0) || this.unacked >= 2) this.sendAck(t);
      else this.armDelack(t);
    } else {
      if (seq > this.rcvNxt) (this.outOfOrder ??= new Map()).set(seq, len);
      this.sendAck(t); // a duplicate ACK tells the sender at once
    }
  }

  /** @param {number} t */
  armDelack(t) {
    if (this.delackPending) return;
    this.delackPending = true;
    const generation = ++this.delackGeneration;
    const { delayedAckMs, delayedAckTick } = this.sim.profile;
    // BSD stacks sent delayed ACKs on a global 200 ms heartbeat, not 200 ms after the segment.
    const fireAt = delayedAckTick ? (Math.floor(t / delayedAckMs) + 1) * delayedAckMs : t + delayedAckMs;
    this.sim.events.push(fireAt, delackFires, this, generation);
  }

  /** The delayed-ACK timer armed as `generation` fires. @param {number} t @param {number} generation */
  delackFired(t, generation) {
    if (!this.delackPending || generation !== this.delackGeneration || this.unacked === 0) return;
    this.interactive = false; // Linux leaves pingpong mode when a delayed ACK had to be sent
    this.sendAck(t);
  }

  /**
   * @param {number} t
   * @param {number} ack
   * @param {boolean} pure whether the segment carried no data (only those count as duplicates, RFC 5681)
   */
  onAck(t, ack, pure) {
    if (ack > this.sndUna) {
      const acked = ack - this.sndUna;
      const sent = this.sent;
      while (this.sentHead < sent.length) {
        const segment = sent[this.sentHead];
        if (segment.seq >= ack) break;
        if (segment.seq + segment.len === ack && !segment.resent) this.sampleRtt(t - segment.at);
        this.sentHead++;
      }
      if (this.sentHead === sent.length) {
        sent.length = 0;
        this.sentHead = 0;
      }
      this.sndUna = ack;
      this.dupAcks = 0;
      if (this.recoverPoint >= 0) {
        if (ack >= this.recoverPoint) this.recoverPoint = -1;
        else this.retransmit(t); // NewReno: a partial ACK shows the next hole
      }
      if (this.cwnd < this.ssthresh) this.cwnd += Math.min(acked, 2 * this.mss); // slow start, RFC 3465 L=2
      else this.cwnd += (this.mss * this.mss) / this.cwnd;
      this.backoff = 1;
      if (this.sndNxt > this.sndUna) this.armRto(t);
      else this.rtoGeneration++;
      this.trySend(t);
    } else if (pure && ack === this.sndUna && this.sndNxt > this.sndUna) {
      this.dupAcks++;
      if (this.dupAcks === 3 && this.recoverPoint < 0) {
        this.cutWindow(false);
        this.recoverPoint = this.sndNxt;
        this.retransmit(t);
      }
    }
  }

  /**
   * RFC 6298 smoothing. 1990s BSD stacks counted round trips in 500 ms ticks
   * (a sample is the ticks that passed, plus one) and set timers in whole ticks.
   * @param {number} measured ms
   */
  sampleRtt(measured) {
    const tick = this.sim.profile.timerTickMs;
    const sample = tick > 0 ? (Math.floor(measured / tick) + 1) * tick : measured;
    if (this.srtt === 0) {
      this.srtt = sample;
      this.rttvar = sample / 2;
    } else {
      this.rttvar = 0.75 * this.rttvar + 0.25 * Math.abs(this.srtt - sample);
      this.srtt = 0.875 * this.srtt + 0.125 * sample;
    }
    const rto = Math.max(this.sim.profile.minRtoMs, this.srtt + 4 * this.rttvar);
    this.rtoMs = tick > 0 ? Math.ceil(rto / tick) * tick : rto;
  }

  /** @param {boolean} timeout */
  cutWindow(timeout) {
    const flight = this.sndNxt - this.sndUna;
    this.ssthresh = Math.max(flight / 2, 2 * this.mss);
    this.cwnd = timeout ? this.mss : this.ssthresh;
  }

  /** @param {number} t */
  retransmit(t) {
    const first = this.sent[this.sentHead];
    const segment = first && first.seq === this.sndUna ? first : undefined;
    const len = segment ? segment.len : Math.min(this.mss, this.sndNxt - this.sndUna);
    if (segment) segment.resent = true;
    this.sim.retransmissions++;
    this.transmit(t, this.sndUna, len);
  }

  /** @param {number} t */
  armRto(t) {
    const generation = ++this.rtoGeneration;
    this.sim.events.push(t + Math.min(this.rtoMs * this.backoff, 60_000), rtoFires, this, generation);
  }

  /** The retransmission timer armed as `generation` fires. @param {number} t @param {number} generation */
  rtoFired(t, generation) {
    if (generation !== this.rtoGeneration || this.sndNxt === this.sndUna) return;
    this.cutWindow(true);
    this.backoff *= 2;
    this.recoverPoint = this.sndNxt;
    this.retransmit(t);
  }
}

/** A TCP connection between the client and one host. */
class Connection {
  /** @param {Simulation} sim @param {number} id @param {number} domain */
  constructor(sim, id, domain) {
    this.sim = sim;
    this.id = id;
    this.domain = domain;
    this.client = new Endpoint(sim, sim.up);
    this.server = new Endpoint(sim, sim.down);
    this.client.peer = this.server;
    this.server.peer = this.client;
    this.established = false;
    this.busy = false;
    this.closed = false;
    /** Whether the server has sent its FIN already (HTTP/1.0 with profile.finSharing). */
    this.serverFin = false;
    /** Requests the server has received and not yet answered, in order. */
    this.serverQueue = /** @type {PlannedRequest[]} */ ([]);
  }

  /** SYN, SYN-ACK, ACK; then the client may send. @param {number} t @param {(t: number) => void} onOpen */
  open(t, onOpen) {
    this.sim.up.send(t, 0, (t1) => this.sim.down.send(t1, 0, (t2) => {
      this.client.sampleRtt(t2 - t);
      this.sim.up.send(t2, 0, (t3) => this.server.sampleRtt(t3 - t1));
      this.established = true;
      onOpen(t2);
    }));
  }

  /** FIN and ACK each way; with profile.finSharing, the second FIN carries the ACK of the first. @param {number} t */
  close(t) {
    if (this.closed) return;
    this.closed = true;
    if (!this.sim.profile.finSharing) {
      this.sim.down.send(t, 0, null);
      this.sim.up.send(t, 0, null);
      this.sim.up.send(t, 0, null);
      this.sim.down.send(t, 0, null);
    } else if (this.serverFin) {
      this.sim.up.send(t, 0, null); // the client's FIN, with the ACK of the server's
      this.sim.down.send(t, 0, null);
    } else {
      this.sim.up.send(t, 0, null);
      this.sim.down.send(t, 0, null); // the server's FIN, with the ACK of the client's
      this.sim.up.send(t, 0, null);
    }
  }

  /**
   * The server closes right after its response (HTTP/1.0, with profile.finSharing). Its FIN
   * rides on the last data segment when that is still in the socket: Linux lets the first
   * segment of a write go down to the link at once and keeps the rest until the link takes
   * them (TCP small queues), so a FIN has its own packet only after a one-segment response.
   * @param {number} t @param {number} bytes the response
   */
  closeFromServer(t, bytes) {
    const server = this.server;
    this.serverFin = true;
    if (server.sndNxt < server.appEnd || bytes > server.mss) return;
    this.sim.down.send(t, 0, null);
  }
}

class Simulation {
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
    this.up = new Link(this, profile.upKbps, profile.rttMs / 2, profile.perPacketMs);
    this.down = new Link(this, profile.downKbps, profile.rttMs / 2, profile.perPacketMs);
    this.lossRate = profile.lossPercent / 100;
    this.random = random(options.seed ?? 1);
    this.retransmissions = 0;
    this.serverMs = options.serverMs ?? 0;
    this.domains = Math.max(1, options.domains ?? 1);
    this.perHost = strategy === 'http1.0' ? options.connections ?? profile.connections : strategy === 'http1.1' ? options.connections ?? 1 : 1;
    /** @type {Connection[]} */
    this.connections = [];
    /** @type {PlannedRequest[][]} ready requests per domain */
    this.ready = Array.from({ length: this.domains }, () => []);
    /** @type {Map<number, PlannedRequest[]>} requests by the order of the request that reveals them */
    this.children = new Map();
    for (const r of plan.requests) {
      if (r.parent === null) continue;
      const list = this.children.get(r.parent) ?? [];
      list.push(r);
      this.children.set(r.parent, list);
    }
    /** @type {Map<number, RequestTiming>} */
    this.timing = new Map();
    this.lastDone = 0;
    this.outstanding = plan.requests.length;
  }

  /** @param {PlannedRequest} r */
  domainOf(r) {
    return r.order === 0 ? 0 : r.order % this.domains;
  }

  run() {
    const page = this.plan.requests[0];
    this.ready[0].push(page);
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
        const conn = this.connections.find((c) => c.domain === domain && !c.closed) ?? this.openConnection(t, domain);
        if (conn.established) this.sendBatch(t, conn, ready.splice(0));
        continue;
      }
      // One request at a time per connection: idle open connections first, then new ones up to the limit.
      let open = 0;
      let opening = 0;
      for (const conn of this.connections) {
        if (conn.domain !== domain || conn.closed) continue;
        open++;
        if (!conn.established) opening++;
        else if (!conn.busy && ready.length) this.sendBatch(t, conn, ready.splice(0, 1));
      }
      for (; ready.length > opening && open < this.perHost; open++, opening++) this.openConnection(t, domain);
    }
  }

  /** @param {number} t @param {number} domain */
  openConnection(t, domain) {
    const conn = new Connection(this, this.connections.length, domain);
    this.connections.push(conn);
    conn.open(t, (t2) => {
      if (this.strategy === 'h2') {
        // Preface and SETTINGS go out with the first requests; the server answers with its own.
        conn.client.write(t2, this.plan.controlUp, () => {});
        conn.server.write(t2, this.plan.controlDown, () => {});
      }
      this.dispatch(t2);
    });
    return conn;
  }

  /** @param {number} t @param {Connection} conn @param {PlannedRequest[]} batch */
  sendBatch(t, conn, batch) {
    if (!batch.length) return;
    conn.busy = true;
    for (const r of batch) {
      this.timing.set(r.order, { order: r.order, connection: conn.id, domain: conn.domain, sentMs: t, doneMs: 0 });
      conn.client.write(t, r.requestBytes, (ta) => this.serve(ta, conn, r));
    }
  }

  /** The server has the whole request: it answers after its own time. @param {number} t @param {Connection} conn @param {PlannedRequest} r */
  serve(t, conn, r) {
    const respond = (/** @type {number} */ ts) => {
      conn.server.write(ts, r.responseBytes, (tc) => this.received(tc, conn, r));
      // After the response's segments have been sent (a write made while delivering waits for the delivery to end).
      if (this.strategy === 'http1.0' && this.profile.finSharing) this.events.push(ts, (tf) => conn.closeFromServer(tf, r.responseBytes));
    };
    if (this.serverMs > 0) this.events.push(t + this.serverMs, respond);
    else respond(t);
  }

  /** The client has the whole response. @param {number} t @param {Connection} conn @param {PlannedRequest} r */
  received(t, conn, r) {
    const timing = /** @type {RequestTiming} */ (this.timing.get(r.order));
    timing.doneMs = t;
    this.lastDone = Math.max(this.lastDone, t);
    this.outstanding--;
    for (const child of this.children.get(r.order) ?? []) this.ready[this.domainOf(child)].push(child);
    if (this.strategy === 'http1.0') conn.close(t);
    else if (this.strategy === 'http1.1') conn.busy = false;
    this.dispatch(t);
  }
}

/**
 * Models a load plan on a network.
 * @param {LoadPlan} plan
 * @param {Strategy} strategy
 * @param {NetworkProfile} profile
 * @param {ModelOptions} [options]
 * @returns {ModelResult}
 */
export function model(plan, strategy, profile, options = {}) {
  const sim = new Simulation(plan, strategy, profile, options);
  sim.run();
  const packets = sim.up.packets + sim.down.packets;
  const payloadBytes = sim.up.payload + sim.down.payload;
  const wireBytes = payloadBytes + packets * HEADER_BYTES;
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
    timeline: [...sim.timing.values()].sort((a, b) => a.order - b.order),
  };
}

/**
 * The load plan of a recorded exchange.
 * @param {import('./client.js').Trace} trace
 * @returns {LoadPlan}
 */
export function planFromTrace(trace) {
  const first = trace.connections[0];
  return {
    requests: trace.requests.map((r) => ({
      order: r.order,
      parent: r.parent,
      requestBytes: r.requestBytes,
      responseBytes: r.responseHeaderBytes + r.bodyBytes + (trace.protocol === 'h2' ? r.framingBytes : 0),
      path: r.path,
    })),
    controlUp: first ? first.controlUp : 0,
    controlDown: first ? first.controlDown : 0,
  };
}

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
 * the response that revealed it has been received in full. Objects a repeat
 * visit takes from the browser's cache are not in the plan: they cost no
 * packet and no time, and a load of none at all is 0 s and 0 bytes.
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
 * @typedef {object} Exchange a request on its connection, from the client's write to the response's arrival
 * @property {PlannedRequest} request
 * @property {Connection} conn
 * @property {RequestTiming} timing
 *
 * @typedef {object} SimEvent
 * @property {number} t
 * @property {number} seq
 * @property {number} kind one of the kinds below
 * @property {Endpoint | Connection | null} target
 * @property {number} a
 * @property {((t: number) => void) | null} fn what a CALL runs
 */

// What an event does: a kind, a target and numbers, so packets and timers need no
// closure each and are told apart by a switch (fire) rather than a call through a function value.
/** A packet no one receives: not queued. */
const LOST = 0;
/** A data segment arrives at its endpoint: a is its first byte, b its length, c the ACK it carries. */
const SEGMENT = 1;
/** A pure ACK arrives at its endpoint: a is the ACK. */
const ACK = 2;
/** The handshake, on its connection: the SYN arrives (a: when it left). */
const SYN = 3;
/** The SYN-ACK arrives (a: when the SYN left, b: when it arrived). */
const SYN_ACK = 4;
/** The client's ACK of the SYN-ACK arrives (a: when the SYN-ACK left). */
const HANDSHAKE_ACK = 5;
/** An endpoint's timers: a is the place in the order the event was queued with. */
const DELACK = 6;
const RTO = 7;
/** Anything else: the event's fn. */
const CALL = 8;

/**
 * Runs an event other than a CALL.
 * @param {number} t @param {number} kind @param {Endpoint | Connection | null} target @param {number} a @param {number} b @param {number} c
 */
function fire(t, kind, target, a, b, c) {
  switch (kind) {
    case SEGMENT: /** @type {Endpoint} */ (target).receive(t, a, b, c); break;
    case ACK: /** @type {Endpoint} */ (target).onAck(t, a, true); break;
    case SYN: /** @type {Connection} */ (target).sim.down.send(t, 0, SYN_ACK, target, a, t); break;
    case SYN_ACK: /** @type {Connection} */ (target).opened(t, a, b); break;
    case HANDSHAKE_ACK: /** @type {Connection} */ (target).server.sampleRtt(t - a); break;
    case DELACK: /** @type {Endpoint} */ (target).delackFired(t, a); break;
    case RTO: /** @type {Endpoint} */ (target).rtoFired(t, a); break;
    default: throw new Error(`no event of kind ${kind}`);
  }
}

/**
 * The events of a run, ordered by time, then by when they were queued, so runs
 * are deterministic. A link's arrivals are already in that order (a link sends
 * one packet after another, each arriving the same delay later), so each link
 * keeps them in its own first-in, first-out queue; only the rest (timers, the
 * server's time, the first dispatch) go through a binary heap. The next event
 * is the least of the heap's top and the links' heads: the same order a single
 * heap would give, for much less work.
 */
class EventQueue {
  constructor() {
    /** @type {SimEvent[]} */
    this.heap = [];
    this.seq = 0;
    /** @type {Fifo[]} */
    this.fifos = [];
  }

  /** @param {number} t @param {(t: number) => void} fn */
  push(t, fn) {
    this.pushAt(t, this.seq++, CALL, null, 0, fn);
  }

  /**
   * An event with the place in the order it was given earlier (a timer armed then).
   * @param {number} t @param {number} seq @param {number} kind @param {Endpoint | Connection | null} target @param {number} a
   * @param {((t: number) => void) | null} fn
   */
  pushAt(t, seq, kind, target, a, fn) {
    const heap = this.heap;
    /** @type {SimEvent} */
    const item = { t, seq, kind, target, a, fn };
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
    const heap = this.heap;
    const fifos = this.fifos;
    for (;;) {
      /** @type {Fifo | null} */
      let from = null;
      let t = Infinity;
      let seq = Infinity;
      if (heap.length) {
        t = heap[0].t;
        seq = heap[0].seq;
      }
      for (const fifo of fifos) {
        const i = fifo.head;
        if (i === fifo.tail) continue;
        const ft = fifo.ts[i];
        if (ft < t || (ft === t && fifo.seqs[i] < seq)) {
          from = fifo;
          t = ft;
          seq = fifo.seqs[i];
        }
      }
      if (from !== null) {
        const i = from.head++;
        fire(t, from.kinds[i], from.targets[i], from.as[i], from.bs[i], from.cs[i]);
      } else if (heap.length) {
        const event = this.pop();
        if (event.fn !== null) event.fn(t);
        else fire(t, event.kind, event.target, event.a, 0, 0);
      } else {
        return;
      }
    }
  }
}

/** @param {{ t: number, seq: number }} a @param {{ t: number, seq: number }} b */
function before(a, b) {
  return a.t < b.t || (a.t === b.t && a.seq < b.seq);
}

/** Events in the order they were queued, kept column by column so a packet costs no object. */
class Fifo {
  constructor() {
    this.head = 0;
    this.tail = 0;
    /** @type {number[]} */
    this.ts = [];
    /** @type {number[]} */
    this.seqs = [];
    /** @type {number[]} */
    this.kinds = [];
    /** @type {(Endpoint | Connection | null)[]} */
    this.targets = [];
    /** @type {number[]} */
    this.as = [];
    /** @type {number[]} */
    this.bs = [];
    /** @type {number[]} */
    this.cs = [];
  }

  /**
   * @param {number} t @param {number} seq @param {number} kind @param {Endpoint | Connection | null} target
   * @param {number} a @param {number} b @param {number} c
   */
  push(t, seq, kind, target, a, b, c) {
    const i = this.tail++;
    if (i < this.ts.length) {
      this.ts[i] = t;
      this.seqs[i] = seq;
      this.kinds[i] = kind;
      this.targets[i] = target;
      this.as[i] = a;
      this.bs[i] = b;
      this.cs[i] = c;
    } else {
      this.ts.push(t);
      this.seqs.push(seq);
      this.kinds.push(kind);
      this.targets.push(target);
      this.as.push(a);
      this.bs.push(b);
      this.cs.push(c);
    }
  }

  /** Empties it for the next run, keeping its arrays (growing them is much of a run's garbage). */
  reset() {
    this.targets.fill(null, 0, this.tail);
    this.head = 0;
    this.tail = 0;
  }
}

/** The links' queues, shared by runs one after another (a run is synchronous). */
const UP = new Fifo();
const DOWN = new Fifo();

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
  /** @param {Simulation} sim @param {number} kbps @param {number} delayMs @param {number} perPacketMs @param {Fifo} arrivals */
  constructor(sim, kbps, delayMs, perPacketMs, arrivals) {
    this.sim = sim;
    this.bytesPerMs = (kbps * 1000) / 8 / 1000;
    this.perPacketMs = perPacketMs;
    this.delayMs = delayMs;
    this.freeAt = 0;
    this.packets = 0;
    this.payload = 0;
    /** Arrivals, in the order they happen: each packet leaves after the one before. */
    arrivals.reset();
    this.arrivals = arrivals;
    sim.events.fifos.push(arrivals);
  }

  /**
   * @param {number} t
   * @param {number} payload
   * @param {number} kind what its arrival does (LOST: nothing, no event)
   * @param {Endpoint | Connection | null} [target] @param {number} [a] @param {number} [b] @param {number} [c] for its arrival
   */
  send(t, payload, kind, target = null, a = 0, b = 0, c = 0) {
    const start = Math.max(t, this.freeAt);
    this.freeAt = start + (payload + HEADER_BYTES) / this.bytesPerMs + this.perPacketMs;
    this.packets++;
    this.payload += payload;
    if (kind !== LOST) this.arrivals.push(this.freeAt + this.delayMs, this.sim.events.seq++, kind, target, a, b, c);
  }
}

/**
 * A timer that is re-armed far more often than it fires (the retransmission
 * timer moves on every ACK). Arming takes the next place in the event order,
 * as queueing an event would, but queues one only when no event of the timer
 * is due sooner; when that one comes due and the timer has moved on, the
 * timer queues itself again at the time and place it was armed with. So it
 * fires exactly when a fresh event per arming would have, with far fewer
 * events in the heap.
 */
class Timer {
  constructor() {
    /** Whether it is armed; its owner may disarm it by clearing this. */
    this.armed = false;
    this.at = 0;
    this.seq = 0;
    /** The earliest event of this timer in the queue, if any. */
    this.queuedAt = Infinity;
    this.queuedSeq = 0;
  }

  /** @param {EventQueue} events @param {number} at @param {number} kind @param {Endpoint} target */
  arm(events, at, kind, target) {
    this.armed = true;
    this.at = at;
    this.seq = events.seq++;
    // An event queued earlier comes due first unless it is later (the place taken now is after its).
    if (at < this.queuedAt) {
      this.queuedAt = at;
      this.queuedSeq = this.seq;
      events.pushAt(at, this.seq, kind, target, this.seq, null);
    }
  }

  /**
   * An event of the timer, queued as `seq`, comes due at t: whether the timer fires now
   * (it is then disarmed). Otherwise it queues itself again if it is armed for later.
   * @param {EventQueue} events @param {number} t @param {number} seq @param {number} kind @param {Endpoint} target
   */
  due(events, t, seq, kind, target) {
    if (t === this.queuedAt && seq === this.queuedSeq) this.queuedAt = Infinity;
    if (!this.armed) return false;
    if (seq === this.seq) {
      this.armed = false;
      return true;
    }
    if (this.queuedAt === Infinity) {
      this.queuedAt = this.at;
      this.queuedSeq = this.seq;
      events.pushAt(this.at, this.seq, kind, target, this.seq, null);
    }
    return false;
  }
}

/**
 * One end of a TCP connection: a sender of a byte stream cut into segments and
 * a receiver that acknowledges the peer's stream.
 */
class Endpoint {
  /** @param {Simulation} sim @param {Link} out @param {boolean} serves whether the messages it receives are requests (else responses) */
  constructor(sim, out, serves) {
    const p = sim.profile;
    this.sim = sim;
    this.out = out;
    this.serves = serves;
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
    // Segments in flight, from sentHead to sentTail, in sequence order: each one's first byte and
    // when it was sent, two numbers a segment in one array (no object per segment, few arrays per
    // connection). A segment ends where the next begins, the last at sndNxt. The array is reused
    // from the start whenever all is acknowledged, so it stays short.
    /** @type {number[]} */
    this.sent = [];
    this.sentHead = 0;
    this.sentTail = 0;
    /** First bytes of segments sent again (Karn: no RTT sample from their ACK); made at the first. @type {Set<number> | null} */
    this.resent = null;
    // RFC 6298: the timeout follows the measured RTT, queueing included; the handshake gives the first sample.
    this.srtt = 0;
    this.rttvar = 0;
    this.rtoMs = p.initialRtoMs;
    this.backoff = 1;
    this.rto = new Timer();
    /** While set, writes wait: replies to requests that arrived together leave together (server buffering, Linux autocorking). */
    this.corked = false;
    // Receiver
    this.rcvNxt = 0;
    /** Out-of-order segments by first byte (made at the first: most connections never have one). @type {Map<number, number> | null} */
    this.outOfOrder = null;
    this.unacked = 0;
    /** Armed while an ACK is held back. */
    this.delack = new Timer();
    // Messages of the peer's stream not yet delivered, from inHead to inTail: the offset where each
    // ends and its exchange (null: no HTTP message); reused from the start when all are delivered.
    /** @type {number[]} */
    this.inEnds = [];
    /** @type {(Exchange | null)[]} */
    this.inExchanges = [];
    this.inHead = 0;
    this.inTail = 0;
    // Linux's quick ACKs (profile.quickAcks): how many are left, whether the connection is
    // interactive ("pingpong": this end sent data soon after data arrived), and when data last arrived.
    this.quickAcks = p.quickAcks;
    this.interactive = false;
    this.lastDataIn = -Infinity;
  }

  /**
   * The application writes a message; the peer delivers its exchange when it has all of it.
   * @param {number} t @param {number} bytes @param {Exchange | null} exchange
   */
  write(t, bytes, exchange) {
    this.appEnd += bytes;
    const peer = this.peer;
    const i = peer.inTail++;
    if (i < peer.inEnds.length) {
      peer.inEnds[i] = this.appEnd;
      peer.inExchanges[i] = exchange;
    } else {
      peer.inEnds.push(this.appEnd);
      peer.inExchanges.push(exchange);
    }
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
      const i = 2 * this.sentTail++;
      if (i < this.sent.length) {
        this.sent[i] = this.sndNxt;
        this.sent[i + 1] = t;
      } else {
        this.sent.push(this.sndNxt, t);
      }
      this.transmit(t, this.sndNxt, len);
      this.sndNxt += len;
    }
  }

  /** A data segment, carrying an ACK of what this end has received. @param {number} t @param {number} seq @param {number} len */
  transmit(t, seq, len) {
    const ack = this.rcvNxt;
    this.unacked = 0;
    this.delack.armed = false;
    // Linux: an answer sent within the delayed-ACK time of the data it answers makes the connection interactive.
    if (t - this.lastDataIn < this.sim.profile.delayedAckMs) this.interactive = true;
    const lost = this.sim.lossRate > 0 && this.sim.random() < this.sim.lossRate;
    this.out.send(t, len, lost ? LOST : SEGMENT, this.peer, seq, len, ack);
    if (this.sndUna === this.sndNxt || seq < this.sndNxt) this.armRto(t);
  }

  /** @param {number} t */
  sendAck(t) {
    const ack = this.rcvNxt;
    this.unacked = 0;
    this.delack.armed = false;
    this.out.send(t, 0, ACK, this.peer, ack);
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
      if (this.inHead < this.inTail && this.inEnds[this.inHead] <= this.rcvNxt) {
        this.corked = true;
        while (this.inHead < this.inTail && this.inEnds[this.inHead] <= this.rcvNxt) {
          const exchange = this.inExchanges[this.inHead++];
          if (exchange === null) continue;
          if (this.serves) this.sim.serve(t, exchange);
          else this.sim.received(t, exchange);
        }
        if (this.inHead === this.inTail) this.inHead = this.inTail = 0;
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
    if (this.delack.armed) return;
    const { delayedAckMs, delayedAckTick } = this.sim.profile;
    // BSD stacks sent delayed ACKs on a global 200 ms heartbeat, not 200 ms after the segment.
    const fireAt = delayedAckTick ? (Math.floor(t / delayedAckMs) + 1) * delayedAckMs : t + delayedAckMs;
    this.delack.arm(this.sim.events, fireAt, DELACK, this);
  }

  /** A delayed-ACK event queued as `seq` comes due. @param {number} t @param {number} seq */
  delackFired(t, seq) {
    if (!this.delack.due(this.sim.events, t, seq, DELACK, this) || this.unacked === 0) return;
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
      const tail = this.sentTail;
      let head = this.sentHead;
      while (head < tail) {
        const seq = sent[2 * head];
        if (seq >= ack) break;
        const end = head + 1 < tail ? sent[2 * head + 2] : this.sndNxt;
        if (end === ack && (this.resent === null || !this.resent.has(seq))) this.sampleRtt(t - sent[2 * head + 1]);
        head++;
      }
      if (head === tail) {
        head = 0;
        this.sentTail = 0;
      }
      this.sentHead = head;
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
      else this.rto.armed = false;
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
    const head = this.sentHead;
    const inFlight = head < this.sentTail && this.sent[2 * head] === this.sndUna;
    const end = head + 1 < this.sentTail ? this.sent[2 * head + 2] : this.sndNxt;
    const len = inFlight ? end - this.sndUna : Math.min(this.mss, this.sndNxt - this.sndUna);
    if (inFlight) (this.resent ??= new Set()).add(this.sndUna);
    this.sim.retransmissions++;
    this.transmit(t, this.sndUna, len);
  }

  /** @param {number} t */
  armRto(t) {
    this.rto.arm(this.sim.events, t + Math.min(this.rtoMs * this.backoff, 60_000), RTO, this);
  }

  /** A retransmission-timer event queued as `seq` comes due. @param {number} t @param {number} seq */
  rtoFired(t, seq) {
    if (!this.rto.due(this.sim.events, t, seq, RTO, this) || this.sndNxt === this.sndUna) return;
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
    this.client = new Endpoint(sim, sim.up, false);
    this.server = new Endpoint(sim, sim.down, true);
    this.client.peer = this.server;
    this.server.peer = this.client;
    this.established = false;
    this.busy = false;
    this.closed = false;
    /** Whether the server has sent its FIN already (HTTP/1.0 with profile.finSharing). */
    this.serverFin = false;
  }

  /** SYN, SYN-ACK, ACK; then the client may send. @param {number} t */
  open(t) {
    this.sim.up.send(t, 0, SYN, this, t);
  }

  /** The SYN-ACK has arrived. @param {number} t @param {number} synSent @param {number} synArrived */
  opened(t, synSent, synArrived) {
    this.client.sampleRtt(t - synSent);
    this.sim.up.send(t, 0, HANDSHAKE_ACK, this, synArrived);
    this.established = true;
    this.sim.opened(t, this);
  }

  /** FIN and ACK each way; with profile.finSharing, the second FIN carries the ACK of the first. @param {number} t */
  close(t) {
    if (this.closed) return;
    this.closed = true;
    const live = this.sim.live[this.domain];
    live.splice(live.indexOf(this), 1);
    if (!this.sim.profile.finSharing) {
      this.sim.down.send(t, 0, LOST);
      this.sim.up.send(t, 0, LOST);
      this.sim.up.send(t, 0, LOST);
      this.sim.down.send(t, 0, LOST);
    } else if (this.serverFin) {
      this.sim.up.send(t, 0, LOST); // the client's FIN, with the ACK of the server's
      this.sim.down.send(t, 0, LOST);
    } else {
      this.sim.up.send(t, 0, LOST);
      this.sim.down.send(t, 0, LOST); // the server's FIN, with the ACK of the client's
      this.sim.up.send(t, 0, LOST);
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
    this.sim.down.send(t, 0, LOST);
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

/**
 * Models a load plan on a network.
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

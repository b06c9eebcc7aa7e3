/**
 * The network model's clock: the kinds of event a run queues, the queue that
 * runs them in a deterministic order, and the timers TCP re-arms.
 */

/**
 * @typedef {import('./model-tcp.js').Endpoint} Endpoint
 * @typedef {import('./model-tcp.js').Connection} Connection
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
export const LOST = 0;
/** A data segment arrives at its endpoint: a is its first byte, b its length, c the ACK it carries. */
export const SEGMENT = 1;
/** A pure ACK arrives at its endpoint: a is the ACK. */
export const ACK = 2;
/** The handshake, on its connection: the SYN arrives (a: when it left). */
export const SYN = 3;
/** The SYN-ACK arrives (a: when the SYN left, b: when it arrived). */
const SYN_ACK = 4;
/** The client's ACK of the SYN-ACK arrives (a: when the SYN-ACK left). */
export const HANDSHAKE_ACK = 5;
/** An endpoint's timers: a is the place in the order the event was queued with. */
export const DELACK = 6;
export const RTO = 7;
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
export class EventQueue {
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
export class Fifo {
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

/**
 * A timer that is re-armed far more often than it fires (the retransmission
 * timer moves on every ACK). Arming takes the next place in the event order,
 * as queueing an event would, but queues one only when no event of the timer
 * is due sooner; when that one comes due and the timer has moved on, the
 * timer queues itself again at the time and place it was armed with. So it
 * fires exactly when a fresh event per arming would have, with far fewer
 * events in the heap.
 */
export class Timer {
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

/**
 * TCP under HTTP, packet by packet: the access link in each direction, and
 * the two ends of each connection, from the handshake to the close.
 */
import { ACK, DELACK, HANDSHAKE_ACK, LOST, RTO, SEGMENT, SYN, Timer } from './model-events.js';

/**
 * @typedef {import('./model-events.js').Fifo} Fifo
 * @typedef {import('./model-simulation.js').Simulation} Simulation
 * @typedef {import('./model-simulation.js').Exchange} Exchange
 */

/** TCP/IP header bytes per packet (20 IP + 20 TCP, no options), as the studies counted. */
export const HEADER_BYTES = 40;

/**
 * One direction of the access link: packets leave in order at its rate and arrive half an RTT later.
 * All connections of a page share it: it serializes their packets first-in, first-out.
 */
export class Link {
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
 * One end of a TCP connection: a sender of a byte stream cut into segments and
 * a receiver that acknowledges the peer's stream.
 *
 * Slow start from the profile's initial window, delayed ACKs (one ACK per two
 * segments, or after a timer), ACKs carried on data when the receiver has data
 * to send, Nagle's rule when the profile asks for it, a receive window, and
 * losses (NewReno-style fast retransmit on three duplicate ACKs, else a
 * timeout; both cut the connection's window). Linux's quick ACKs are there when
 * a profile asks for them (see networks.js, LINUX_TCP; test/netns.test.js holds
 * them against real Linux): a receiver ACKs the first segments of a connection
 * one by one until the connection turns interactive.
 */
export class Endpoint {
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

/**
 * A TCP connection between the client and one host: a three-way handshake,
 * and a close of four packets, or of three or two when the profile's FINs
 * share packets as Linux's do (LINUX_TCP).
 */
export class Connection {
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

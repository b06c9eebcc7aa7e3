/**
 * Network profiles: the networks the studies measured on, and today's
 * presets. Each says where its numbers come from (docs/loader-model.md
 * discusses them). Bandwidths are in kbit/s (1000 bits), times in ms.
 *
 * @typedef {object} NetworkProfile
 * @property {string} name
 * @property {string} description
 * @property {string} source where the numbers come from
 * @property {number} rttMs round-trip time
 * @property {number} downKbps server to client
 * @property {number} upKbps client to server
 * @property {number} mss maximum segment size (MTU - 40)
 * @property {number} iw initial congestion window, in segments
 * @property {number} rwnd receive window, bytes
 * @property {number} delayedAckMs how long a receiver may hold an ACK for a lone segment
 * @property {boolean} delayedAckTick whether delayed ACKs leave on a global timer of that period (BSD) rather than that long after the segment (Linux)
 * @property {boolean} nagle whether senders hold back short segments while data is unacknowledged
 * @property {number} quickAcks data segments a receiver ACKs one by one, as they arrive, at the start of a connection
 *   (Linux's quickack mode: 16, TCP_MAX_QUICKACKS); 0 for none. None while the connection is interactive (this end
 *   sent data within delayedAckMs of receiving some: Linux's pingpong mode), which a delayed ACK that had to wait
 *   for its timer ends
 * @property {boolean} finSharing whether FINs share packets: the second FIN of a close carries the ACK of the first
 *   (Linux holds that ACK in CLOSE_WAIT for the application's close), and an HTTP/1.0 server's FIN rides on its last
 *   data segment when that is still waiting to leave; false: a FIN and an ACK each way, four packets
 * @property {number} lossPercent data segments lost, per hundred
 * @property {number} minRtoMs the least retransmission timeout
 * @property {number} initialRtoMs the timeout before any round trip was measured
 * @property {number} timerTickMs granularity of round-trip measurement and timeouts (500 ms in 4.4BSD), 0 for fine-grained
 * @property {number} perPacketMs link time per packet beyond its bytes (radio MAC and turnaround)
 * @property {number} fixedMs time a testbed adds to every load (a robot's start-up and exit), 0 for real browsers
 * @property {number} connections parallel connections per host a browser of the time opened
 * @property {'1997' | '1999' | '2014' | 'today' | 'custom'} era
 */

/** TCP as stacks of the late 1990s set it up (BSD-derived: RFC 1122 and 2001; 3 s initial RTO). */
const TCP_1990S = { perPacketMs: 0, fixedMs: 0, iw: 1, rwnd: 32768, delayedAckMs: 200, delayedAckTick: true, nagle: false, quickAcks: 0, finSharing: false, lossPercent: 0, minRtoMs: 1000, initialRtoMs: 3000, timerTickMs: 500 };
/** TCP as Linux sets it up today: IW10 (RFC 6928), 40 ms delayed ACK, 200 ms minimum RTO, 1 s initial RTO (RFC 6298). */
const TCP_TODAY = { perPacketMs: 0, fixedMs: 0, iw: 10, rwnd: 3 * 1024 * 1024, delayedAckMs: 40, delayedAckTick: false, nagle: false, quickAcks: 0, finSharing: false, lossPercent: 0, minRtoMs: 200, initialRtoMs: 1000, timerTickMs: 0 };
/**
 * What Linux's TCP does beyond TCP_TODAY, measured on a veth pair by test/netns.test.js:
 * quick ACKs at a connection's start (TCP_MAX_QUICKACKS) and FINs that share packets.
 * Spread it over a profile to count packets as a Linux client and server exchange them.
 */
export const LINUX_TCP = { quickAcks: 16, finSharing: true };

/** @type {Record<string, NetworkProfile>} */
export const NETWORKS = {
  'lan-1997': {
    name: 'lan-1997', era: '1997', ...TCP_1990S, rttMs: 1, downKbps: 10000, upKbps: 10000, mss: 1460, connections: 4,
    description: '10 Mbit/s Ethernet LAN, under 1 ms RTT',
    source: 'Nielsen et al., SIGCOMM \'97, Table 1 (RTT < 1 ms, MSS 1460)',
  },
  'wan-1997': {
    name: 'wan-1997', era: '1997', ...TCP_1990S, rttMs: 90, downKbps: 1544, upKbps: 1544, mss: 1460, connections: 4,
    description: 'transcontinental Internet (MIT to LBL), about 90 ms RTT, T1-limited',
    source: 'Nielsen et al., SIGCOMM \'97, Table 1 (RTT ~90 ms, MSS 1460); the paper gives no bandwidth: T1 (1.544 Mbit/s) is assumed, see docs/loader-model.md',
  },
  'modem-28.8k': {
    name: 'modem-28.8k', era: '1997', ...TCP_1990S, rttMs: 150, downKbps: 28.8, upKbps: 28.8, mss: 1460, connections: 4, rwnd: 8760,
    description: '28.8 kbit/s modem over PPP, about 150 ms RTT',
    source: 'Nielsen et al., SIGCOMM \'97, Table 1 (RTT ~150 ms, MSS 1460); receive window 8,760 bytes, the default of the paper\'s PPP client (Windows NT 4.0)',
  },
  'ethernet-1999': {
    name: 'ethernet-1999', era: '1999', ...TCP_1990S, rttMs: 4, downKbps: 10000, upKbps: 10000, mss: 1460, connections: 1, fixedMs: 1180,
    description: '10 Mbit/s Ethernet, 4 ms RTT, MTU 1500',
    source: 'Cheng, Lai, Baker, CSL-TR-99-778, section III (10 Mb/s, 4 ms RTT, MTU 1500); fixedMs 1180: the robot\'s start-up and exit, which the study\'s times include (section III), fitted on Table I\'s HTTP/1.1 wired throughput',
  },
  'ricochet-1999': {
    name: 'ricochet-1999', era: '1999', ...TCP_1990S, rttMs: 170, downKbps: 60, upKbps: 60, mss: 1112, connections: 1, fixedMs: 1180, perPacketMs: 30,
    description: 'Metricom Ricochet radio, 60 kbit/s, 170 ms RTT, MTU 1152',
    source: 'Cheng, Lai, Baker, CSL-TR-99-778, section III (60 Kb/s, 170 ms RTT, MTU 1152); perPacketMs 30: the radio\'s per-packet cost, fitted on the study\'s HTTP/1.1 wireless time; fixedMs as ethernet-1999',
  },
  satellite: {
    name: 'satellite', era: '1999', ...TCP_1990S, rttMs: 560, downKbps: 1544, upKbps: 1544, mss: 1460, connections: 4,
    description: 'geostationary satellite link at T1 speed, about 560 ms RTT',
    source: 'GEO propagation: 2 x 35,786 km up and down per direction at the speed of light is about 480 ms, plus ground segments; T1 = 1.544 Mbit/s',
  },
  '3g': {
    name: '3g', era: 'today', ...TCP_TODAY, rttMs: 400, downKbps: 500, upKbps: 500, mss: 1460, connections: 6,
    description: 'Chrome DevTools "3G" (formerly Slow 3G): 400 ms RTT, 500 kbit/s both ways',
    source: 'Chrome DevTools NetworkManager Slow3GConditions target values (targetLatency 400 ms, ~500 Kbps down and up)',
  },
  'slow-4g': {
    name: 'slow-4g', era: 'today', ...TCP_TODAY, rttMs: 150, downKbps: 1600, upKbps: 750, mss: 1460, connections: 6,
    description: 'Lighthouse mobile / DevTools "Slow 4G": 150 ms RTT, 1.6 Mbit/s down, 750 kbit/s up',
    source: 'Lighthouse throttling.mobileSlow4G (rttMs 150, 1.6 Mbps down, 750 Kbps up); DevTools Slow4GConditions targets',
  },
  'fast-4g': {
    name: 'fast-4g', era: 'today', ...TCP_TODAY, rttMs: 60, downKbps: 9000, upKbps: 1500, mss: 1460, connections: 6,
    description: 'Chrome DevTools "Fast 4G": 60 ms RTT, 9 Mbit/s down, 1.5 Mbit/s up',
    source: 'Chrome DevTools NetworkManager Fast4GConditions target values (targetLatency 60 ms, ~9 Mbps down, ~1.5 Mbps up)',
  },
  cable: {
    name: 'cable', era: 'today', ...TCP_TODAY, rttMs: 28, downKbps: 5000, upKbps: 1000, mss: 1460, connections: 6,
    description: 'WebPageTest "Cable": 5 Mbit/s down, 1 Mbit/s up, 28 ms RTT',
    source: 'WebPageTest connectivity profile Cable (5/1 Mbps, 28 ms RTT)',
  },
  fiber: {
    name: 'fiber', era: 'today', ...TCP_TODAY, rttMs: 4, downKbps: 20000, upKbps: 5000, mss: 1460, connections: 6,
    description: 'WebPageTest "FIOS" fiber: 20 Mbit/s down, 5 Mbit/s up, 4 ms RTT',
    source: 'WebPageTest connectivity profile FIOS (20/5 Mbps, 4 ms RTT)',
  },
};

/**
 * @typedef {object} CustomNetwork flags of `--network custom`, all optional
 * @property {number} [rtt] ms
 * @property {number} [bandwidth] kbit/s, both ways
 * @property {number} [mss] bytes
 * @property {number} [iw] segments
 * @property {number} [rwnd] bytes
 * @property {number} [connections]
 * @property {number} [loss] percent
 */

/**
 * A profile by name; 'custom' is built from the flags on a today's-TCP base.
 * @param {string} name
 * @param {CustomNetwork} [custom]
 * @returns {NetworkProfile}
 */
export function networkProfile(name, custom = {}) {
  if (name === 'custom') {
    const bw = custom.bandwidth ?? 10000;
    return {
      name: 'custom', era: 'custom', ...TCP_TODAY, rttMs: custom.rtt ?? 50, downKbps: bw, upKbps: bw, mss: custom.mss ?? 1460,
      iw: custom.iw ?? TCP_TODAY.iw, rwnd: custom.rwnd ?? TCP_TODAY.rwnd, connections: custom.connections ?? 6, lossPercent: custom.loss ?? 0,
      description: 'custom network', source: 'command-line flags',
    };
  }
  const profile = NETWORKS[name];
  if (!profile) throw new Error(`unknown network '${name}' (known: ${[...Object.keys(NETWORKS), 'custom'].join(', ')})`);
  return profile;
}

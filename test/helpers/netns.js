/**
 * A real, private network for the loader's tests: a network namespace with
 * one end of a veth pair in it, so a server in the namespace and the robot in
 * the test process talk over a link whose packets the kernel counts and whose
 * rate `tc tbf` can limit. Linux and root only.
 *
 * Nothing leaves the machine: the two addresses are a /30 of 10.77.0.0/16
 * that exists only on this veth, no route or gateway is added, and the names
 * of the namespace and the links carry the pid, so runs never collide.
 *
 * Interface counters count what the link carried, so the link is made to
 * carry only the test's TCP, as wire-sized packets:
 * - IPv6 is off on both ends (no router solicitations, MLD or DAD) and the
 *   neighbours are permanent entries (no ARP);
 * - segmentation offloads are off in effect: `gso_max_segs 1` makes TCP build
 *   one-MSS packets (tcp_tso_autosize obeys it), so GSO and TSO have nothing
 *   to cut and a counted packet is a packet on the wire. veth does GRO only in
 *   NAPI mode (XDP, or GRO asked for with ethtool), and the peer's rx counter
 *   is bumped in veth_xmit, before any GRO. So iproute2 is enough: with
 *   `ethtool -K tso off gso off gro off` as well, the counts are the same;
 * - inside the namespace TCP is Linux's, set as the model sees it: reno (slow
 *   start, then AIMD; the host may default to bbr, and a namespace can only
 *   pick from the host's tcp_allowed_congestion_control, which always has
 *   reno), no timestamps (a full segment carries MTU - 40 bytes, as the model
 *   counts), and no metrics cache carrying one connection's ssthresh to the
 *   next. The server sends almost every byte, and a connection takes its
 *   options from both ends, so the robot's side gets the same.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SERVER_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'netns-server.js');
/** No ip or tc call may hang a test run. */
const COMMAND_TIMEOUT_MS = 10_000;
/** Names: the namespace is PREFIX<pid>-<tag>, the links pdh<pid><tag> (host) and pdn<pid><tag> (namespace), 15 characters at most. */
const PREFIX = 'pagediet-';

/**
 * @typedef {object} LinkCounters packets and bytes the veth carried, read at its host end
 * @property {number} packetsUp host to namespace (the robot's requests and ACKs)
 * @property {number} packetsDown namespace to host (the server's responses and ACKs)
 * @property {number} bytesUp Ethernet frames, 14 header bytes each included
 * @property {number} bytesDown
 *
 * @typedef {object} Veth
 * @property {string} ns namespace name
 * @property {string} hostIf the end in the host's namespace
 * @property {string} nsIf the end in the namespace
 * @property {string} hostAddress
 * @property {string} nsAddress where the server listens
 * @property {number} mtu
 * @property {() => Promise<LinkCounters>} counters
 * @property {(kbit: number | null) => Promise<void>} setRate a tbf rate limit on both ends, or null for none
 * @property {() => Promise<void>} destroy removes the namespace and both links; safe to call twice
 */

/**
 * Runs a command; its stdout, or an error that has its stderr.
 * @param {string} file
 * @param {string[]} args
 */
async function sh(file, args) {
  try {
    const { stdout } = await run(file, args, { timeout: COMMAND_TIMEOUT_MS });
    return stdout;
  } catch (error) {
    const e = /** @type {{ stderr?: string, message: string }} */ (error);
    throw new Error(`${file} ${args.join(' ')}: ${(e.stderr || e.message).trim()}`);
  }
}

/**
 * Sets sysctls inside a namespace. node writes /proc/sys itself, so nothing
 * beyond iproute2 is needed (slim images have no sysctl).
 * @param {string} ns
 * @param {Record<string, string>} values by /proc/sys path, e.g. 'net/ipv4/tcp_timestamps'
 */
async function setSysctls(ns, values) {
  const script = "for (const [k, v] of Object.entries(JSON.parse(process.argv[1]))) require('fs').writeFileSync('/proc/sys/' + k, v)";
  await sh('ip', ['netns', 'exec', ns, process.execPath, '-e', script, JSON.stringify(values)]);
}

/**
 * Why this machine cannot run the real network tests, or null when it can:
 * Linux, root, iproute2, and the kernel letting us make a namespace, a veth
 * pair and a tbf qdisc (a container may refuse some of it even to root).
 * @returns {Promise<string | null>}
 */
export async function unavailable() {
  if (process.platform !== 'linux') return `not Linux (${process.platform})`;
  if (process.getuid?.() !== 0) return 'not root';
  for (const tool of ['ip', 'tc']) {
    try {
      await sh(tool, ['-V']);
    } catch {
      return `${tool} (iproute2) is not installed`;
    }
  }
  const probe = `${PREFIX}probe-${process.pid}`;
  try {
    await sh('ip', ['netns', 'add', probe]);
  } catch (error) {
    return `'ip netns add' failed: ${/** @type {Error} */ (error).message}`;
  }
  try {
    await sh('ip', ['netns', 'exec', probe, 'ip', 'link', 'add', 'pdprobe0', 'type', 'veth', 'peer', 'name', 'pdprobe1']);
    await sh('ip', ['netns', 'exec', probe, 'tc', 'qdisc', 'add', 'dev', 'pdprobe0', 'root', 'tbf', 'rate', '1mbit', 'burst', '1600', 'limit', '100000']);
    return null;
  } catch (error) {
    return `no veth or tbf here: ${/** @type {Error} */ (error).message}`;
  } finally {
    await sh('ip', ['netns', 'del', probe]).catch(() => {});
  }
}

/**
 * Removes namespaces this helper made in runs that died before their clean-up
 * (their pid is gone). Live runs' namespaces are left alone.
 */
export async function removeStale() {
  const names = (await sh('ip', ['netns', 'list'])).split('\n').map((line) => line.split(' ')[0]);
  for (const name of names) {
    const match = /^pagediet-(?:probe-)?(\d+)/.exec(name);
    if (!match || alive(Number(match[1]))) continue;
    await sh('ip', ['netns', 'del', name]).catch(() => {});
  }
}

/** @param {number} pid */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return /** @type {NodeJS.ErrnoException} */ (error).code === 'EPERM';
  }
}

/**
 * A /30 for this run and tag, from the pid: 10.77.x.y/30, first address on the host.
 * @param {number} pid
 * @param {number} tag 0 to 9
 */
function addresses(pid, tag) {
  const index = ((pid % 1638) * 10 + tag) % 16384;
  const base = `10.77.${index >> 6}.`;
  const low = (index & 63) << 2;
  return { host: `${base}${low + 1}`, ns: `${base}${low + 2}` };
}

/**
 * Creates the namespace and the veth pair, addressed, at the given MTU, with
 * no rate limit yet. On any failure, what was made is removed.
 * @param {{ mtu: number, tag?: number }} options tag (0 to 9) tells apart the veths of one run
 * @returns {Promise<Veth>}
 */
export async function createVeth({ mtu, tag = 0 }) {
  const id = `${process.pid}${tag}`;
  const ns = `${PREFIX}${process.pid}-${tag}`;
  const hostIf = `pdh${id}`;
  const nsIf = `pdn${id}`;
  const { host: hostAddress, ns: nsAddress } = addresses(process.pid, tag);
  const inNs = (/** @type {string[]} */ args) => sh('ip', ['netns', 'exec', ns, ...args]);
  let destroyed = false;
  const destroy = async () => {
    if (destroyed) return;
    destroyed = true;
    // Deleting the namespace deletes the end inside it, and a veth goes with its peer;
    // the host end is deleted too in case the namespace was never made.
    await sh('ip', ['netns', 'del', ns]).catch(() => {});
    await sh('ip', ['link', 'del', hostIf]).catch(() => {});
  };
  try {
    await sh('ip', ['netns', 'add', ns]);
    await sh('ip', ['link', 'add', hostIf, 'type', 'veth', 'peer', 'name', nsIf, 'netns', ns]);
    await setSysctls(ns, {
      'net/ipv4/tcp_congestion_control': 'reno',
      'net/ipv4/tcp_timestamps': '0',
      'net/ipv4/tcp_no_metrics_save': '1',
      [`net/ipv6/conf/${nsIf}/disable_ipv6`]: '1',
    });
    await fs.writeFile(`/proc/sys/net/ipv6/conf/${hostIf}/disable_ipv6`, '1').catch((error) => {
      if (error.code !== 'ENOENT') throw error; // no IPv6 in this kernel: nothing to silence
    });
    const link = ['mtu', String(mtu), 'gso_max_segs', '1', 'gso_max_size', String(mtu)];
    await sh('ip', ['link', 'set', hostIf, ...link]);
    await inNs(['ip', 'link', 'set', nsIf, ...link]);
    await sh('ip', ['addr', 'add', `${hostAddress}/30`, 'dev', hostIf]);
    await inNs(['ip', 'addr', 'add', `${nsAddress}/30`, 'dev', nsIf]);
    const hostMac = JSON.parse(await sh('ip', ['-j', 'link', 'show', hostIf]))[0].address;
    const nsMac = JSON.parse(await inNs(['ip', '-j', 'link', 'show', nsIf]))[0].address;
    await sh('ip', ['neigh', 'replace', nsAddress, 'lladdr', nsMac, 'dev', hostIf, 'nud', 'permanent']);
    await inNs(['ip', 'neigh', 'replace', hostAddress, 'lladdr', hostMac, 'dev', nsIf, 'nud', 'permanent']);
    await sh('ip', ['link', 'set', hostIf, 'up']);
    await inNs(['ip', 'link', 'set', nsIf, 'up']);
  } catch (error) {
    await destroy();
    throw error;
  }
  return {
    ns, hostIf, nsIf, hostAddress, nsAddress, mtu,
    async counters() {
      const [{ stats64 }] = JSON.parse(await sh('ip', ['-s', '-j', 'link', 'show', hostIf]));
      return { packetsUp: stats64.tx.packets, packetsDown: stats64.rx.packets, bytesUp: stats64.tx.bytes, bytesDown: stats64.rx.bytes };
    },
    async setRate(kbit) {
      /** @type {[string, (args: string[]) => Promise<string>][]} */
      const ends = [[hostIf, (args) => sh('tc', args)], [nsIf, (args) => inNs(['tc', ...args])]];
      for (const [dev, tc] of ends) {
        await tc(['qdisc', 'del', 'dev', dev, 'root']).catch(() => {}); // there may be none yet
        if (kbit === null) continue;
        // burst: one frame, so the link paces packet by packet as the model's does; limit: far
        // more than a page, so tbf queues and never drops (a drop is a loss the model was not told of).
        await tc(['qdisc', 'add', 'dev', dev, 'root', 'tbf', 'rate', `${kbit}kbit`, 'burst', String(mtu + 14), 'limit', String(4 * 1024 * 1024)]);
      }
    },
    destroy,
  };
}

/**
 * @typedef {object} NamespaceServer
 * @property {string} http1 origin of the HTTP/1 server
 * @property {string} h2c origin of the HTTP/2 (cleartext) server
 * @property {() => Promise<void>} close
 */

/**
 * Starts pagediet's servers for a directory inside the namespace, in a child
 * process (`ip netns exec` execs node, so the child's pid is the server's).
 * The child also exits when this process goes away, through its stdin.
 * @param {Veth} veth
 * @param {string} root
 * @returns {Promise<NamespaceServer>}
 */
export async function startNamespaceServer(veth, root) {
  const child = spawn('ip', ['netns', 'exec', veth.ns, process.execPath, SERVER_SCRIPT, path.resolve(root), veth.nsAddress], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
  };
  try {
    const line = await new Promise((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`the namespace server did not start in 10 s: ${stderr}`)), COMMAND_TIMEOUT_MS);
      child.stdout.on('data', (chunk) => {
        out += chunk;
        if (!out.includes('\n')) return;
        clearTimeout(timer);
        resolve(out.slice(0, out.indexOf('\n')));
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the namespace server exited with ${code}: ${stderr}`));
      });
    });
    const { http1, h2c } = JSON.parse(line);
    return { http1, h2c, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The round-trip time to a listening port: the median of a few TCP connects
 * (SYN to SYN-ACK), in ms.
 * @param {string} origin
 * @param {number} [samples]
 */
export async function connectRtt(origin, samples = 9) {
  const { hostname: host, port } = new URL(origin);
  /** @type {number[]} */
  const times = [];
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    await new Promise((resolve, reject) => {
      const socket = net.connect({ host, port: Number(port), timeout: 2000 });
      socket.once('connect', () => {
        times.push(performance.now() - t0);
        socket.destroy();
        resolve(undefined);
      });
      socket.once('timeout', () => {
        socket.destroy();
        reject(new Error(`connecting to ${origin} took over 2 s`));
      });
      socket.once('error', reject);
    });
  }
  times.sort((a, b) => a - b);
  return times[times.length >> 1];
}

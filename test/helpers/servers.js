/**
 * Real web servers for the config tests and the robot's loads
 * (test/real-servers-loader.test.js): nginx, Apache, Caddy and h2o from
 * Debian's packages, each started in the foreground on 127.0.0.1 and a free
 * port, with its own temporary config, pid and log files, as the Debian
 * defaults a site would meet (nginx's mime.types, Apache's mime.conf with
 * `AddLanguage br .br` and mod_deflate compressing text on the fly). The
 * snippet under test is included the way its header comment says. Every
 * server is killed by stop(), and by the process exit if a test forgets.
 *
 * Each also speaks HTTP/2 in cleartext with prior knowledge (h2c: the client
 * sends the HTTP/2 preface at once, no Upgrade, no TLS), as the robot's 'h2'
 * strategy does, at `h2Origin`:
 * - nginx on a second port (`h2Origin` differs from `origin`): before 1.25.1
 *   (Debian 12 has 1.22.1, which knows no `http2 on;`) `listen ... http2`
 *   without ssl makes a port speak HTTP/2 only, and an HTTP/1 request there
 *   gets no answer (curl: "Received HTTP/0.9"). From 1.25.1 `http2 on;` is
 *   written instead (the parameter is deprecated there), and a cleartext port
 *   then looks for the HTTP/2 preface and takes HTTP/1 otherwise.
 * - Apache on a second port: mod_http2 (in Debian's apache2-bin, as every other
 *   module here) with `Protocols h2c http/1.1` and `H2Direct on` in a
 *   <VirtualHost> of that port. On the first port it would work too, but core
 *   then adds `Upgrade: h2c` and `Connection: Upgrade` to every HTTP/1.1 and
 *   HTTP/1.0 response (even with `H2Upgrade off`, which only refuses the
 *   upgrade); on a port of its own, the answers on `origin` stay as they are
 *   without HTTP/2.
 * - Caddy on the same port: the global `servers { protocols h1 h2c }` (without
 *   it, Caddy 2.6.2 answers nothing to a connection that opens with the preface).
 * - h2o on the same port with no setting at all: 2.2's cleartext listener
 *   answers the preface (and an Upgrade: h2c) beside HTTP/1.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** @typedef {'nginx' | 'apache' | 'caddy' | 'h2o'} ServerName */

const BROTLI_STATIC = '/usr/lib/nginx/modules/ngx_http_brotli_static_module.so';
const APACHE_MODULES = '/usr/lib/apache2/modules';

/**
 * Why a server cannot run here, or null when it can.
 * @param {ServerName} name
 * @returns {string | null}
 */
export function unavailable(name) {
  const binary = { nginx: 'nginx', apache: 'apache2', caddy: 'caddy', h2o: 'h2o' }[name];
  const found = spawnSync('sh', ['-c', `command -v ${binary}`], { encoding: 'utf8' });
  if (found.status !== 0) return `${binary} is not installed (.ci/run installs Debian's package)`;
  if (name === 'nginx' && !existsSync(BROTLI_STATIC)) return `${BROTLI_STATIC} is missing (Debian: libnginx-mod-http-brotli-static)`;
  if (name === 'apache' && process.getuid?.() !== 0) return 'Apache must start as root here (it drops to www-data)';
  return null;
}

const APACHE_HTTP2 = `${APACHE_MODULES}/mod_http2.so`;

/**
 * Why a server, which can run here (unavailable() is null), cannot speak h2c
 * with prior knowledge here, or null when it can. startServer gives such a
 * server no h2Origin.
 * @param {ServerName} name
 * @returns {string | null}
 */
export function h2Unavailable(name) {
  if (name === 'nginx' && !nginxBuild().includes('--with-http_v2_module')) return 'this nginx was built without --with-http_v2_module (nginx -V)';
  if (name === 'apache' && !existsSync(APACHE_HTTP2)) return `${APACHE_HTTP2} is missing (Debian: apache2-bin)`;
  return null;
}

/** @type {string | undefined} */
let nginxV;
/** What `nginx -V` says (version and configure arguments), asked once. */
function nginxBuild() {
  nginxV ??= spawnSync('nginx', ['-V'], { encoding: 'utf8' }).stderr ?? '';
  return nginxV;
}

/**
 * Whether this nginx has the `http2` directive (1.25.1 and later), or only
 * the `http2` parameter of `listen` (earlier: on a cleartext port, HTTP/2 only).
 */
function nginxHasHttp2Directive() {
  const m = /nginx\/(\d+)\.(\d+)\.(\d+)/.exec(nginxBuild());
  if (!m) return false;
  const [major, minor, patch] = m.slice(1).map(Number);
  return major > 1 || (major === 1 && (minor > 25 || (minor === 25 && patch >= 1)));
}

/** A free TCP port on 127.0.0.1. */
export async function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = /** @type {net.AddressInfo} */ (server.address()).port;
      server.close(() => resolve(port));
    });
  });
}

/** @type {Set<import('node:child_process').ChildProcess>} */
const running = new Set();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * @typedef {object} RunningServer
 * @property {ServerName} name
 * @property {string} origin http://127.0.0.1:port, HTTP/1.0 and HTTP/1.1 (pipelining too)
 * @property {string | null} h2Origin where it speaks h2c with prior knowledge: origin itself (Caddy, h2o),
 *   or a second port of the same server and site (nginx, Apache); null when it cannot here (h2Missing says why)
 * @property {string | null} h2Missing why h2Origin is null (h2Unavailable())
 * @property {() => Promise<string>} log the server's error log
 * @property {() => Promise<void>} stop
 */

/**
 * Starts a server on `root` with `snippet` (the config pagediet wrote) included.
 * @param {ServerName} name
 * @param {{ root: string, snippet: string, work: string }} options work: an empty temporary directory for config, pid and logs
 * @returns {Promise<RunningServer>}
 */
export async function startServer(name, { root, snippet, work }) {
  const port = await freePort();
  const h2Missing = h2Unavailable(name);
  // nginx and Apache answer h2c on a port of their own (see the top of this file).
  const h2Port = h2Missing ? null : name === 'nginx' || name === 'apache' ? await freePort() : port;
  const setup = await SETUPS[name]({ root, snippet, work, port, h2Port });
  const child = spawn(setup.command, setup.args, { cwd: work, env: { ...process.env, ...setup.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let output = '';
  child.stdout?.on('data', (d) => { output += d; });
  child.stderr?.on('data', (d) => { output += d; });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => { running.delete(child); resolve(signal ?? code); }));
  const origin = `http://127.0.0.1:${port}`;
  const h2Origin = h2Port === null ? null : `http://127.0.0.1:${h2Port}`;
  const log = async () => `${output}${await fs.readFile(path.join(work, 'error.log'), 'utf8').catch(() => '')}`;
  const stop = async () => {
    if (!running.has(child)) return setup.afterStop?.();
    // Apache and nginx stop their children on SIGTERM; a server that hangs is killed.
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
    await setup.afterStop?.();
  };
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (!running.has(child)) {
      await setup.afterStop?.();
      throw new Error(`${name} exited at start:\n${await log()}`);
    }
    if (await answers(port) && (h2Port === null || h2Port === port || await answers(h2Port)) && (await setup.bound?.() ?? true)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${name} did not answer on ${origin}${h2Origin && h2Origin !== origin ? ` and ${h2Origin}` : ''} within 15 s:\n${await log()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { name, origin, h2Origin, h2Missing, log, stop };
}

/** @param {number} port */
function answers(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

/**
 * An nginx.conf that runs as root from a work folder, serving `root` on
 * 127.0.0.1:`port` with the given files included in its server block.
 * @param {{ work: string, root: string, port: number, h2Port?: number | null, includes: string[], modules?: string[] }} options
 *   modules: dynamic modules to load (none: Debian's stock nginx); h2Port: a second port of the same
 *   server that speaks h2c with prior knowledge (from nginx 1.25.1, whose `http2 on;` is per server,
 *   both ports take the HTTP/2 preface and HTTP/1 alike)
 */
export function nginxMainConf({ work, root, port, h2Port = null, includes, modules = [] }) {
  const temp = (/** @type {string} */ n) => `${n}_temp_path ${path.join(work, n)};`;
  const h2 = h2Port === null ? '' : nginxHasHttp2Directive()
    ? `\n        listen 127.0.0.1:${h2Port};\n        http2 on;`
    : `\n        listen 127.0.0.1:${h2Port} http2;`;
  return `${modules.map((m) => `load_module ${m};\n`).join('')}user root root;
worker_processes 1;
pid ${path.join(work, 'nginx.pid')};
error_log ${path.join(work, 'error.log')} warn;
events { worker_connections 64; }
http {
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log off;
    ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n    ')}
    server {
        listen 127.0.0.1:${port};${h2}
        root "${root}";
        ${includes.map((f) => `include ${f};`).join('\n        ')}
    }
}
`;
}

/**
 * @typedef {{ root: string, snippet: string, work: string, port: number, h2Port: number | null }} SetupInput
 *   h2Port: where h2c must be answered (port itself for Caddy and h2o, a second one for nginx and Apache), or null
 * @typedef {{ command: string, args: string[], env?: Record<string, string>, afterStop?: () => Promise<void>, bound?: () => Promise<boolean> }} Setup
 *   bound: whether the server says it has bound its ports (a port that answers may be another process's, one that
 *   took the same free port first; then this server fails to bind and exits)
 * @type {Record<ServerName, (input: SetupInput) => Promise<Setup>>}
 */
const SETUPS = {
  async nginx({ root, snippet, work, port, h2Port }) {
    const snippetFile = path.join(work, 'pagediet.conf');
    await fs.writeFile(snippetFile, snippet);
    await fs.writeFile(path.join(work, 'nginx.conf'), nginxMainConf({ work, root, port, h2Port, includes: [snippetFile], modules: [BROTLI_STATIC] }));
    return { command: 'nginx', args: ['-p', work, '-c', path.join(work, 'nginx.conf'), '-g', 'daemon off;'] };
  },

  async apache({ root, snippet, work, port, h2Port }) {
    // The snippet is an .htaccess: it goes to the site's root, and is removed again at stop.
    const htaccess = path.join(root, '.htaccess');
    if (existsSync(htaccess)) throw new Error(`${htaccess} exists: refusing to replace it`);
    await fs.writeFile(htaccess, snippet);
    await readableByOthers(root, work);
    const modules = ['mpm_event', 'authz_core', 'mime', 'dir', 'rewrite', 'headers', 'filter', 'deflate', ...(h2Port === null ? [] : ['http2'])];
    // h2c on a second port, a virtual host of the same site (it inherits DocumentRoot; <Directory> and
    // .htaccess apply to it alike); H2Direct: the HTTP/2 preface at once, without an Upgrade; H2EarlyHints:
    // the 103s the .htaccess asks for, as its comment tells users to turn on.
    const h2 = h2Port === null ? '' : `Listen 127.0.0.1:${h2Port}
<VirtualHost 127.0.0.1:${h2Port}>
    Protocols h2c http/1.1
    H2Direct on
    H2EarlyHints on
</VirtualHost>
`;
    await fs.writeFile(path.join(work, 'apache2.conf'), `ServerRoot "${work}"
ServerName 127.0.0.1
Listen 127.0.0.1:${port}
PidFile "${path.join(work, 'apache2.pid')}"
DefaultRuntimeDir "${work}"
Mutex file:${work} default
ErrorLog "${path.join(work, 'error.log')}"
LogLevel warn
${modules.map((m) => `LoadModule ${m}_module ${APACHE_MODULES}/mod_${m}.so`).join('\n')}
User www-data
Group www-data
TypesConfig /etc/mime.types
Include /etc/apache2/mods-available/mime.conf
Include /etc/apache2/mods-available/deflate.conf
DirectoryIndex index.html
AccessFileName .htaccess
DocumentRoot "${root}"
<Directory />
    AllowOverride None
    Require all denied
</Directory>
<Directory "${root}">
    AllowOverride FileInfo
    Options FollowSymLinks
    Require all granted
</Directory>
${h2}`);
    return {
      command: 'apache2', args: ['-f', path.join(work, 'apache2.conf'), '-DFOREGROUND'], afterStop: () => fs.rm(htaccess, { force: true }),
      // AH00489 "resuming normal operations": logged once every Listen socket is bound.
      bound: async () => (await fs.readFile(path.join(work, 'error.log'), 'utf8').catch(() => '')).includes('AH00489'),
    };
  },

  async caddy({ root, snippet, work, port, h2Port }) {
    const snippetFile = path.join(work, 'pagediet.caddy');
    await fs.writeFile(snippetFile, snippet);
    await fs.writeFile(path.join(work, 'Caddyfile'), `{
	admin off
	auto_https off
	storage file_system ${path.join(work, 'data')}${h2Port === null ? '' : `
	servers {
		protocols h1 h2c
	}`}
}
http://127.0.0.1:${port} {
	root * "${root}"
	import ${snippetFile}
}
`);
    await fs.writeFile(path.join(work, 'error.log'), '');
    return { command: 'caddy', args: ['run', '--config', path.join(work, 'Caddyfile'), '--adapter', 'caddyfile'], env: { HOME: work, XDG_DATA_HOME: path.join(work, 'data'), XDG_CONFIG_HOME: path.join(work, 'config') } };
  },

  async h2o({ snippet, work, port }) {
    const indented = snippet.split('\n').map((l) => (l ? `      ${l}` : l)).join('\n');
    await fs.writeFile(path.join(work, 'h2o.conf'), `listen:
  host: 127.0.0.1
  port: ${port}
user: root
pid-file: ${path.join(work, 'h2o.pid')}
error-log: ${path.join(work, 'error.log')}
hosts:
  default:
    paths:
${indented}
`);
    return { command: 'h2o', args: ['-c', path.join(work, 'h2o.conf')] };
  },
};

/**
 * Apache's children run as www-data: the site and the directories above it
 * (temporary directories are 0700) must be readable by others.
 * @param {string} root
 * @param {string} work
 */
async function readableByOthers(root, work) {
  for (let dir = root; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const mode = (await fs.stat(dir)).mode;
    if ((mode & 0o005) !== 0o005) await fs.chmod(dir, mode | 0o005);
  }
  for (const entry of await fs.readdir(root, { recursive: true, withFileTypes: true })) {
    const abs = path.join(entry.parentPath, entry.name);
    await fs.chmod(abs, entry.isDirectory() ? 0o755 : 0o644);
  }
  await fs.chmod(work, 0o755);
}

/**
 * Real web servers for the config tests: nginx, Apache, Caddy and h2o from
 * Debian's packages, each started in the foreground on 127.0.0.1 and a free
 * port, with its own temporary config, pid and log files, as the Debian
 * defaults a site would meet (nginx's mime.types, Apache's mime.conf with
 * `AddLanguage br .br` and mod_deflate compressing text on the fly). The
 * snippet under test is included the way its header comment says. Every
 * server is killed by stop(), and by the process exit if a test forgets.
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
 * @property {string} origin http://127.0.0.1:port
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
  const setup = await SETUPS[name]({ root, snippet, work, port });
  const child = spawn(setup.command, setup.args, { cwd: work, env: { ...process.env, ...setup.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let output = '';
  child.stdout?.on('data', (d) => { output += d; });
  child.stderr?.on('data', (d) => { output += d; });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => { running.delete(child); resolve(signal ?? code); }));
  const origin = `http://127.0.0.1:${port}`;
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
    if (await answers(port)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${name} did not answer on ${origin} within 15 s:\n${await log()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { name, origin, log, stop };
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
 * @param {{ work: string, root: string, port: number, includes: string[], modules?: string[] }} options
 *   modules: dynamic modules to load (none: Debian's stock nginx)
 */
export function nginxMainConf({ work, root, port, includes, modules = [] }) {
  const temp = (/** @type {string} */ n) => `${n}_temp_path ${path.join(work, n)};`;
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
        listen 127.0.0.1:${port};
        root "${root}";
        ${includes.map((f) => `include ${f};`).join('\n        ')}
    }
}
`;
}

/**
 * @typedef {{ root: string, snippet: string, work: string, port: number }} SetupInput
 * @typedef {{ command: string, args: string[], env?: Record<string, string>, afterStop?: () => Promise<void> }} Setup
 * @type {Record<ServerName, (input: SetupInput) => Promise<Setup>>}
 */
const SETUPS = {
  async nginx({ root, snippet, work, port }) {
    const snippetFile = path.join(work, 'pagediet.conf');
    await fs.writeFile(snippetFile, snippet);
    await fs.writeFile(path.join(work, 'nginx.conf'), nginxMainConf({ work, root, port, includes: [snippetFile], modules: [BROTLI_STATIC] }));
    return { command: 'nginx', args: ['-p', work, '-c', path.join(work, 'nginx.conf'), '-g', 'daemon off;'] };
  },

  async apache({ root, snippet, work, port }) {
    // The snippet is an .htaccess: it goes to the site's root, and is removed again at stop.
    const htaccess = path.join(root, '.htaccess');
    if (existsSync(htaccess)) throw new Error(`${htaccess} exists: refusing to replace it`);
    await fs.writeFile(htaccess, snippet);
    await readableByOthers(root, work);
    const modules = ['mpm_event', 'authz_core', 'mime', 'dir', 'rewrite', 'headers', 'filter', 'deflate'];
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
`);
    return { command: 'apache2', args: ['-f', path.join(work, 'apache2.conf'), '-DFOREGROUND'], afterStop: () => fs.rm(htaccess, { force: true }) };
  },

  async caddy({ root, snippet, work, port }) {
    const snippetFile = path.join(work, 'pagediet.caddy');
    await fs.writeFile(snippetFile, snippet);
    await fs.writeFile(path.join(work, 'Caddyfile'), `{
	admin off
	auto_https off
	storage file_system ${path.join(work, 'data')}
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

/**
 * Fingerprints of code: a module of pagediet's, every module of pagediet's it
 * imports (statically or with a literal dynamic import, transitively), and
 * the name and version of every package those import. A cached result is
 * keyed on the fingerprint of the code that computed it, so a change to an
 * encoder invalidates that encoder's results and no others, with no revision
 * number to raise by hand. Imports are found by reading the source text
 * (pagediet's modules import with plain `import`/`export ... from` lines).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const IMPORT = /(?:^|[\s;])(?:import|export)\s*(?:[\w*${},\s]*?\s*from\s*)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;

/** @type {Map<string, Promise<string>>} by module path */
const fingerprints = new Map();

/**
 * The fingerprint of a module and all it imports.
 * @param {string | URL} module a path or file: URL
 * @returns {Promise<string>} hex
 */
export function codeFingerprint(module) {
  const file = typeof module === 'string' && !module.startsWith('file:') ? path.resolve(module) : fileURLToPath(module);
  let fingerprint = fingerprints.get(file);
  if (!fingerprint) {
    fingerprint = computeFingerprint(file);
    fingerprints.set(file, fingerprint);
  }
  return fingerprint;
}

/** @param {string} entry */
async function computeFingerprint(entry) {
  /** @type {Map<string, Buffer>} */
  const modules = new Map();
  /** @type {Set<string>} */
  const packages = new Set();
  const queue = [entry];
  while (queue.length) {
    const file = /** @type {string} */ (queue.pop());
    if (modules.has(file)) continue;
    const source = await fs.promises.readFile(file);
    modules.set(file, source);
    // Comments go first: JSDoc's type imports ({import('./x.js').T}) are not code this module runs.
    const code = source.toString('utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1');
    for (const match of code.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2];
      if (specifier.startsWith('.')) queue.push(path.resolve(path.dirname(file), specifier));
      else if (!specifier.startsWith('node:')) packages.add(packageVersion(specifier));
    }
  }
  const root = path.dirname(entry);
  const hash = crypto.createHash('sha256');
  for (const file of [...modules.keys()].sort()) hash.update(`${path.relative(root, file)}\0`).update(/** @type {Buffer} */ (modules.get(file))).update('\0');
  for (const p of [...packages].sort()) hash.update(`${p}\0`);
  return hash.digest('hex');
}

/**
 * `name@version` of the package a bare specifier names, as installed.
 * @param {string} specifier
 */
function packageVersion(specifier) {
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  try {
    let dir = path.dirname(fileURLToPath(import.meta.resolve(name)));
    for (; path.dirname(dir) !== dir; dir = path.dirname(dir)) {
      const manifest = path.join(dir, 'package.json');
      if (!fs.existsSync(manifest)) continue;
      const pkg = JSON.parse(fs.readFileSync(manifest, 'utf8'));
      if (pkg.name === name) return `${name}@${pkg.version}`;
    }
  } catch {
    // Not installed or not resolvable from here: the name alone.
  }
  return name;
}

const JOBS_MODULE = fileURLToPath(new URL('../build/jobs.js', import.meta.url));

/**
 * The fingerprint of the code of a worker job (src/build/jobs.js): the module that
 * exports it, and what that imports. jobs.js is read, not imported: the main
 * thread never loads the encoders.
 * @param {string} job
 * @param {string} [jobsModule] the jobs module (tests give a copy)
 */
export async function jobFingerprint(job, jobsModule = JOBS_MODULE) {
  const source = await fs.promises.readFile(jobsModule, 'utf8');
  // `export const name = job('name', () => import('./module.js'), ...)`: the module is imported on the job's first run.
  for (const [, name, from] of source.matchAll(/export\s+const\s+(\w+)\s*=\s*job\(\s*['"]\w+['"]\s*,\s*\(\)\s*=>\s*import\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    if (name === job) return codeFingerprint(path.resolve(path.dirname(jobsModule), from));
  }
  throw new Error(`no job '${job}' in ${jobsModule}`);
}

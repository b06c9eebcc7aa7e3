/**
 * Writes a built site into the output directory, file by file and atomically,
 * and guards that directory: pagediet writes only into an empty directory, one
 * it wrote before (it leaves a marker), or any directory with --force; and it
 * only ever deletes files its own marker says it wrote. Then the build's
 * artifacts (the server configs), also atomically, where the pass that made
 * them says: beside the output (`<output>-configs/`), replacing only files
 * of their own names there.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { UserError } from './errors.js';
import { TEMP_SUFFIX, copyFileAtomic, removeStaleTemps, writeFileAtomic } from '../util/atomic.js';
import { isInside, realish } from '../site/walk.js';

/** The marker file: its presence says pagediet wrote the directory; it lists the files written. */
export const MARKER = '.pagediet-output.json';

/** Where builds before the configs moved beside the output wrote them, inside it. */
const LEGACY_CONFIGS_DIR = 'pagediet-configs';

/** How many files are copied at once: enough to keep the disk busy, few enough for file handles. */
const CONCURRENCY = 16;

/**
 * @typedef {object} OutputPlan
 * @property {string} dir absolute output directory
 * @property {string[]} previous files the last pagediet run wrote there
 */

/**
 * Checks the input and output paths and the state of the output directory.
 * @param {string} input
 * @param {string} output
 * @param {{ force?: boolean }} [options]
 * @returns {Promise<OutputPlan>}
 */
export async function prepareOutput(input, output, options = {}) {
  let inputReal;
  try {
    inputReal = await fs.realpath(input);
  } catch {
    throw new UserError(`input ${input} does not exist`);
  }
  const stat = await fs.stat(inputReal);
  if (!stat.isDirectory()) throw new UserError(`input ${input} is not a directory`);
  const outAbs = await realish(path.resolve(output));
  if (isInside(outAbs, inputReal)) {
    throw new UserError(outAbs === inputReal ? `output ${output} is the input itself` : `output ${output} is inside the input ${input}`);
  }
  if (isInside(inputReal, outAbs)) throw new UserError(`output ${output} contains the input ${input}`);

  /** @type {string[]} */
  let previous = [];
  let entries = /** @type {string[]} */ ([]);
  try {
    const outStat = await fs.stat(outAbs);
    if (!outStat.isDirectory()) throw new UserError(`output ${output} exists and is not a directory`);
    entries = await fs.readdir(outAbs);
  } catch (error) {
    if (error instanceof UserError) throw error;
  }
  if (entries.includes(MARKER)) {
    try {
      const marker = JSON.parse(await fs.readFile(path.join(outAbs, MARKER), 'utf8'));
      previous = Array.isArray(marker.files) ? marker.files.filter((/** @type {unknown} */ f) => typeof f === 'string') : [];
    } catch {
      previous = [];
    }
  } else if (entries.length > 0 && !options.force) {
    const problem = `output ${output} is not empty and was not written by pagediet: choose another folder`;
    throw new UserError(`${problem}, or set force: true`, { cli: `${problem}, or pass --force` });
  }
  return { dir: outAbs, previous };
}


/**
 * Writes every file of the site into the output directory.
 * @param {import('../site/site.js').Site} site
 * @param {OutputPlan} plan
 * @param {{ keepOthers?: boolean }} [options] keepOthers: a shard's build, which leaves the files of other shards in place
 * @returns {Promise<{ written: number, copied: number, removed: number }>}
 */
export async function writeOutput(site, plan, options = {}) {
  await fs.mkdir(plan.dir, { recursive: true });
  await removeStaleTemps(plan.dir);
  const files = [...site.files.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
  const dirs = new Set(files.map((f) => path.dirname(path.join(plan.dir, f.path))));
  for (const dir of [...dirs].sort()) await fs.mkdir(dir, { recursive: true });

  let written = 0;
  let copied = 0;
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const file = files[next++];
      const destination = path.join(plan.dir, file.path);
      if (!isInside(destination, plan.dir)) throw new Error(`refusing to write outside the output: ${file.path}`);
      if (file.outputKey) {
        // Bytes that wait on disk are copied from there, not read into memory.
        const scratch = await site.bytes.fileOf(file.outputKey);
        if (scratch) await copyFileAtomic(scratch, destination, { mtimeMs: file.mtimeMs });
        else await writeFileAtomic(destination, await site.bytes.get(file.outputKey), { mtimeMs: file.mtimeMs });
        written++;
      } else if (file.absPath) {
        await copyFileAtomic(file.absPath, destination, { mtimeMs: file.mtimeMs });
        copied++;
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  // Artifacts (the server configs), once the site is written: by absolute path, usually beside the output
  // (<output>-configs/); a relative one is inside the output. Each replaces its file atomically; nothing
  // else in their folder is touched but the temporary files of these same names a killed build left.
  /** @type {string[]} artifacts inside the output, as site paths, for the marker */
  const inside = [];
  /** The folders artifacts go to, with their names there. @type {Map<string, Set<string>>} */
  const artifactDirs = new Map();
  for (const artifact of site.artifacts.keys()) {
    const destination = path.isAbsolute(artifact) ? artifact : path.join(plan.dir, artifact);
    if (!path.isAbsolute(artifact) && !isInside(destination, plan.dir)) throw new Error(`refusing to write outside the output: ${artifact}`);
    if (isInside(destination, plan.dir)) inside.push(path.relative(plan.dir, destination).split(path.sep).join('/'));
    const dir = path.dirname(destination);
    if (!artifactDirs.has(dir)) {
      await fs.mkdir(dir, { recursive: true });
      artifactDirs.set(dir, new Set());
    }
    /** @type {Set<string>} */ (artifactDirs.get(dir)).add(path.basename(destination));
  }
  for (const [dir, names] of artifactDirs) {
    if (isInside(dir, plan.dir)) continue; // removeStaleTemps above
    for (const entry of await fs.readdir(dir).catch(() => /** @type {string[]} */ ([]))) {
      if (entry.endsWith(TEMP_SUFFIX) && [...names].some((n) => entry.startsWith(`.${n}.`))) await fs.rm(path.join(dir, entry), { force: true });
    }
  }
  for (const [artifact, bytes] of site.artifacts) {
    await writeFileAtomic(path.isAbsolute(artifact) ? artifact : path.join(plan.dir, artifact), bytes);
    written++;
  }

  const current = new Set([...files.map((f) => f.path), ...inside]);
  let removed = 0;
  let legacyConfigs = false;
  for (const old of plan.previous) {
    const target = path.join(plan.dir, old);
    if (options.keepOthers) {
      if (old !== MARKER) current.add(old); // still pagediet's: listed again so that a later full build may remove it
      continue;
    }
    if (current.has(old) || !isInside(target, plan.dir) || old === MARKER) continue;
    await fs.rm(target, { force: true });
    removed++;
    if (old.startsWith(`${LEGACY_CONFIGS_DIR}/`)) legacyConfigs = true;
  }
  // Older builds wrote their configs into the output's pagediet-configs/: once they are removed, so is the
  // folder, if nothing else is in it.
  if (legacyConfigs) await fs.rmdir(path.join(plan.dir, LEGACY_CONFIGS_DIR)).catch(() => {});
  await writeFileAtomic(path.join(plan.dir, MARKER), `${JSON.stringify({ tool: 'pagediet', files: [...current] }, null, 1)}\n`);
  return { written, copied, removed };
}

/**
 * The build: read the site, run the selected passes in their fixed order, write
 * the output, and summarize what each pass did.
 */
import path from 'node:path';
import { Site } from './site/site.js';
import { prepareOutput, writeOutput } from './output.js';
import { PASSES, PASS_ORDER } from './passes/index.js';
import { UserError } from './errors.js';
import { requestsPerPage } from './requests.js';
import { summarize } from './summary.js';

/**
 * @typedef {import('./site/site.js').Site} SiteModel
 *
 * @typedef {object} Decision what a pass decided for one candidate, and why
 * @property {string} file
 * @property {'changed' | 'kept' | 'skipped'} action
 * @property {string} reason
 * @property {number} [score]
 *
 * @typedef {object} PassReport
 * @property {string} name
 * @property {string} description
 * @property {{ path: string, before: number, after: number }[]} files files the pass changed or created
 * @property {number} bytesBefore
 * @property {number} bytesAfter
 * @property {number} referencesRewritten
 * @property {number} requestsRemoved
 * @property {Decision[]} decisions
 * @property {number} ms
 *
 * @typedef {object} PassContext
 * @property {BuildOptions} options
 * @property {(file: string, before: number, after: number) => void} touched record a file changed or created
 * @property {(count: number) => void} rewrote record references rewritten
 * @property {(count: number) => void} removedRequests record requests a page no longer makes
 * @property {(decision: Decision) => void} decide
 * @property {(file: string, code: string, message: string) => void} warn
 * @property {(message: string) => void} progress
 *
 * @typedef {object} OptionSpec
 * @property {'boolean' | 'number' | 'string' | 'list'} type
 * @property {unknown} default
 * @property {string} description
 *
 * @typedef {object} Pass
 * @property {string} name stable, kebab-case
 * @property {string} description one line
 * @property {Record<string, OptionSpec>} [options] the options it reads, documented
 * @property {(site: SiteModel, ctx: PassContext) => Promise<void>} run
 *
 * @typedef {object} BuildOptions
 * @property {string} input
 * @property {string} output
 * @property {string[]} [only] run only these passes
 * @property {string[]} [skip] do not run these passes
 * @property {boolean} [force] write into a non-empty directory pagediet did not write
 * @property {string[]} [origins] absolute origins that are this site
 * @property {Pass[]} [passes] the passes to choose from (default: pagediet's own)
 * @property {(message: string) => void} [onProgress]
 */

/**
 * Chooses the passes to run, in order.
 * @param {Pass[]} available
 * @param {{ only?: string[], skip?: string[] }} selection
 */
export function selectPasses(available, selection) {
  const names = new Set(available.map((p) => p.name));
  for (const name of [...(selection.only ?? []), ...(selection.skip ?? [])]) {
    if (names.has(name)) continue;
    const planned = PASS_ORDER.includes(name) ? ' (planned, not in this version)' : '';
    const list = available.length ? available.map((p) => p.name).join(', ') : 'none yet';
    throw new UserError(`unknown pass '${name}'${planned}; available: ${list}`);
  }
  return available.filter((p) => (!selection.only?.length || selection.only.includes(p.name)) && !selection.skip?.includes(p.name));
}

/**
 * Builds a site.
 * @param {BuildOptions} options
 */
export async function build(options) {
  const started = Date.now();
  const passes = selectPasses(options.passes ?? PASSES, options);
  const plan = await prepareOutput(options.input, options.output, { force: options.force });
  const progress = options.onProgress ?? (() => {});
  progress(`reading ${options.input}`);
  const site = await Site.read(options.input, { origins: options.origins, exclude: (abs) => abs === plan.dir });
  const inputBytes = totalBytes(site);
  const requestsBefore = requestsPerPage(site);

  /** @type {PassReport[]} */
  const reports = [];
  for (const pass of passes) {
    progress(`${pass.name}: ${pass.description}`);
    const t0 = Date.now();
    /** @type {PassReport} */
    const report = { name: pass.name, description: pass.description, files: [], bytesBefore: 0, bytesAfter: 0, referencesRewritten: 0, requestsRemoved: 0, decisions: [], ms: 0 };
    await pass.run(site, {
      options,
      touched: (file, before, after) => {
        report.files.push({ path: file, before, after });
        report.bytesBefore += before;
        report.bytesAfter += after;
      },
      rewrote: (count) => { report.referencesRewritten += count; },
      removedRequests: (count) => { report.requestsRemoved += count; },
      decide: (decision) => { report.decisions.push(decision); },
      warn: (file, code, message) => site.warn(file, code, `${pass.name}: ${message}`),
      progress: (message) => progress(`${pass.name}: ${message}`),
    });
    report.ms = Date.now() - t0;
    reports.push(report);
  }

  progress(`writing ${options.output}`);
  const written = await writeOutput(site, plan);
  return summarize(site, {
    input: path.resolve(options.input),
    output: plan.dir,
    inputBytes,
    requestsBefore,
    passes: reports,
    written,
    ms: Date.now() - started,
  });
}

/** @param {SiteModel} site */
function totalBytes(site) {
  let total = 0;
  for (const f of site.files.values()) total += f.outputSize;
  return total;
}

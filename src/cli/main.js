/**
 * The command line: parses arguments, merges the config file, and calls the
 * library. Errors a user can fix are one line on stderr and exit code 1.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { build } from '../build/pipeline.js';
import { COMMAND_LINE_ONLY, COMMAND_OPTIONS, loadConfig } from './config-file.js';
import { UserError } from '../build/errors.js';
import { checkTargets } from './option-values.js';
import { BUILD_OPTIONS, checkOptions, flagName, optionTable } from '../options/table.js';
import { boolean, folderOrOff } from '../options/kinds.js';
import { VERSION } from '../build/summary.js';
import { PASSES } from '../passes/index.js';
import { formatBuildSummary } from '../report/build-text.js';
import { formatReport } from '../report/table.js';
import { compareSites, REPORT_NETWORKS } from '../report/compare.js';
import { addLoaderCommands } from './loader-commands.js';
import { writeFileAtomic } from '../util/atomic.js';
import { createProgress } from '../build/progress.js';
import { renderHtmlReport } from '../report/html.js';
import { exitOnSignal } from '../util/signals.js';
import { durationSeconds } from '../util/duration.js';
import { SERVERS, readSiteFiles, serverConfig } from '../configs/index.js';
import { PROTOCOLS, startServer } from '../loader/server.js';
import { CACHE_HEADERS } from '../loader/handler.js';
import { diagnose, formatDiagnosis } from './doctor.js';


export const DEMO_SITE = fileURLToPath(new URL('../../fixtures/microscape', import.meta.url));

/**
 * @typedef {object} Io
 * @property {(s: string) => void} out
 * @property {(s: string) => void} err
 * @property {boolean} isTTY whether stderr is a terminal (progress goes there)
 * @property {number | undefined} columns the width of the terminal stdout prints to, if it is one
 * @property {string} cwd
 * @property {() => Promise<void>} untilStopped resolves when a long-running command (serve) should stop
 */

/**
 * Runs the CLI.
 * @param {string[]} argv arguments after the program name
 * @param {Partial<Io>} [io]
 * @returns {Promise<number>} the exit code
 */
export async function main(argv, io = {}) {
  /** @type {Io} */
  const sys = {
    out: io.out ?? ((s) => process.stdout.write(s)),
    err: io.err ?? ((s) => process.stderr.write(s)),
    isTTY: io.isTTY ?? Boolean(process.stderr.isTTY),
    columns: 'columns' in io ? io.columns : process.stdout.isTTY ? process.stdout.columns : undefined,
    cwd: io.cwd ?? process.cwd(),
    untilStopped: io.untilStopped ?? untilSignal,
  };
  const program = createProgram(sys);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof UserError) {
      sys.err(`pagediet: ${error.cli}\n`);
      return 1;
    }
    const e = /** @type {Error} */ (error);
    sys.err(process.env.PAGEDIET_DEBUG
      ? `${e.stack}\n`
      : `pagediet: internal error, a defect of pagediet: ${e.message} (PAGEDIET_DEBUG=1 shows where; please report it with that and the output of pagediet doctor)\n`);
    return 2;
  }
}

/** @param {Io} sys */
function createProgram(sys) {
  const program = new Command('pagediet')
    .description('Make a static site cost fewer bytes and fewer requests, and prove it.')
    .version(VERSION, '-v, --version')
    .exitOverride()
    // A mistake on the command line is one line: commander's "error: ..." with where to read more.
    .configureOutput({ writeOut: sys.out, writeErr: sys.err, outputError: (text, write) => write(`pagediet: ${text.trim().replace(/^error: /, '').replace(/\s*\n\s*/g, ' ')} (see pagediet --help)\n`) });

  const build = program
    .command('build')
    .description('optimize the site in <input> and write the result to --out')
    .argument('<input>', 'directory of the static site (never modified)');
  const tableFlags = addOptions(build, [...Object.entries(COMMAND_OPTIONS), ...Object.entries(COMMAND_LINE_ONLY), ...[...optionTable(PASSES)].map(([key, { definition }]) => /** @type {const} */ ([key, definition]))]);
  build.action(async (/** @type {string} */ input, /** @type {Record<string, any>} */ flags, /** @type {Command} */ command) => {
    const { config } = await loadConfig(sys.cwd, flags.config);
    const typed = command.options.map((o) => o.attributeName()).filter((name) => command.getOptionValueSource(name) === 'cli');
    const opts = merge(config, tableFlags(flags), Object.keys(tableFlags(Object.fromEntries(typed.map((name) => [name, true])))));
    if (!opts.out) throw new UserError('build needs an output directory: --out <dir>');
    const flagOf = new Map([...optionTable(PASSES)].map(([key, { definition }]) => [key, flagName(key, definition)]));
    const { json, config: configFile, ...checked } = opts;
    checkOptions(checked, PASSES, { where: 'build', extra: COMMAND_OPTIONS, name: (key) => flagOf.get(key) ?? `'${key}'` });
    await checkTargets(sys.cwd, { out: opts.out, html: opts.html, network: opts.network });
    await runBuild(sys, { ...resolvePaths(opts, sys.cwd, PASSES), input: path.resolve(sys.cwd, input), output: path.resolve(sys.cwd, /** @type {string} */ (opts.out)) });
  });

  program
    .command('demo')
    .description('run the whole pipeline on the built-in microscape page (SIGCOMM \'97) and print the savings')
    .option('-o, --out <dir>', 'where to write the result', path.join(os.tmpdir(), 'pagediet-demo'))
    .option('--json', 'print the machine-readable summary on stdout')
    .option('--no-report', 'skip the loader report')
    .option('--html <file>', 'also write the report as a self-contained HTML file')
    .option('--verbose', 'list every message and decision, and the report\'s tables per page')
    .option('-q, --quiet', 'no progress output')
    .action(async (flags) => {
      await checkTargets(sys.cwd, { out: flags.out, html: flags.html });
      await runBuild(sys, { input: DEMO_SITE, output: path.resolve(sys.cwd, flags.out), json: flags.json, quiet: flags.quiet, report: flags.report, html: flags.html, verbose: flags.verbose });
    });

  program
    .command('serve')
    .description('serve a built site on 127.0.0.1 for previewing, with its precompressed files and the cache headers of its server configs')
    .argument('<dir>', 'directory of the site')
    .option('-p, --port <n>', 'port to listen on (0 picks a free one)', '0')
    .option('--host <address>', 'address to listen on (0.0.0.0 or :: would share the site with the network)', '127.0.0.1')
    .addOption(
      new Option('--protocol <name>', 'http1 (HTTP/1.0 and 1.1), h2c (HTTP/2 without TLS) or h2 (HTTP/2 over TLS, self-signed certificate)')
        .choices(PROTOCOLS)
        .default('http1'),
    )
    .addOption(
      new Option('--cache-headers <how>', 'policy: the Cache-Control of pagediet\'s server configs (pages no-cache, fingerprinted names a year and immutable, other files an hour); none: only ETag and Last-Modified, as a stock server')
        .choices(CACHE_HEADERS)
        .default('policy'),
    )
    .action(async (dir, flags) => {
      await runServe(sys, { root: path.resolve(sys.cwd, dir), port: flags.port, host: flags.host, protocol: flags.protocol, cacheHeaders: flags.cacheHeaders });
    });

  addLoaderCommands(program, sys, writeHtmlReport);

  program
    .command('configs')
    .description('print the config that serves a built site with its precompressed files and cache headers')
    .argument('<dir>', 'the built site (the output of pagediet build)')
    .addOption(new Option('--server <name>', 'nginx (snippet to include in server {}), nginx-brotli (its brotli_static line, for an nginx with ngx_brotli), apache (.htaccess), caddy (snippet to import), h2o (paths YAML) or headers (_headers: cache headers only)').choices(SERVERS).makeOptionMandatory())
    .option('-o, --out <file>', 'write it to this file instead of stdout')
    .action(async (dir, flags) => {
      if (flags.out) await checkTargets(sys.cwd, { file: flags.out });
      const site = await readSiteFiles(path.resolve(sys.cwd, dir));
      const text = serverConfig(flags.server, site);
      if (flags.out) await writeFileAtomic(path.resolve(sys.cwd, flags.out), text);
      else sys.out(text);
    });
  program
    .command('doctor')
    .description('print what this machine gives pagediet (browser, fonts, OCR data, caches); exit 1 when a default pass cannot run fully')
    .option('--browser <path>', 'a browser to try first, as build --browser')
    .option('--json', 'print it as JSON')
    .action(async (flags) => {
      const diagnosis = await diagnose({ browser: flags.browser === undefined ? undefined : path.resolve(sys.cwd, flags.browser), cwd: sys.cwd });
      sys.out(flags.json ? `${JSON.stringify(diagnosis, null, 2)}\n` : formatDiagnosis(diagnosis));
      if (diagnosis.problems.length) throw new CommanderError(1, 'pagediet.doctor', diagnosis.problems[0]);
    });
  return program;
}

/**
 * Adds a flag for every option given to a command; returns what maps the
 * parsed flags (named by commander after the flag) to the options' keys.
 * @param {Command} command
 * @param {(readonly [string, import('../options/table.js').OptionDefinition<any>])[]} entries key and definition
 * @returns {(flags: Record<string, unknown>) => Record<string, unknown>}
 */
function addOptions(command, entries) {
  /** @type {Map<string, string>} commander's attribute name → the table's key */
  const keys = new Map();
  for (const [key, definition] of entries) {
    const { kind } = definition;
    const flag = flagName(key, definition);
    const on = kind.argument ? `${flag} ${kind.argument}` : flag;
    const off = kind === boolean && definition.default === true;
    const option = new Option(definition.short ? `${definition.short}, ${on}` : on, off ? `turn off (on by default): ${definition.doc}` : definition.doc);
    if (kind.argument) {
      option.argParser((/** @type {string} */ value, /** @type {unknown} */ previous) => {
        try {
          const parsed = kind.parse(value);
          return definition.repeatable ? [...(/** @type {unknown[]} */ (previous ?? [])), ...(/** @type {unknown[]} */ (parsed))] : parsed;
        } catch (error) {
          throw new InvalidArgumentError(/** @type {Error} */ (error).message);
        }
      });
    }
    command.addOption(option);
    keys.set(option.attributeName(), key);
    if (kind === folderOrOff) command.addOption(new Option(`--no-${flag.slice(2)}`, `no ${key}: ${definition.doc}`));
  }
  return (flags) => Object.fromEntries(Object.entries(flags).map(([name, value]) => [keys.get(name) ?? name, value]));
}

/**
 * The options that name files, resolved against the working directory.
 * @param {Record<string, unknown>} options
 * @param {string} cwd
 * @param {readonly import('../build/pass.js').AnyPass[]} passes
 */
function resolvePaths(options, cwd, passes) {
  const resolved = { ...options };
  for (const [key, { definition }] of optionTable(passes)) {
    if (definition.kind.path && typeof resolved[key] === 'string') resolved[key] = path.resolve(cwd, /** @type {string} */ (resolved[key]));
  }
  return resolved;
}

/**
 * Config-file values, overridden by flags the user actually typed.
 * @param {import('./config-file.js').FileConfig} config
 * @param {Record<string, unknown>} flags by the table's keys
 * @param {string[]} typed the keys of the flags the user typed
 */
function merge(config, flags, typed) {
  /** @type {Record<string, unknown>} */
  const merged = { ...config };
  for (const [key, value] of Object.entries(flags)) {
    if (value === undefined) continue;
    if (typed.includes(key) || !(key in merged)) merged[key] = value;
  }
  return /** @type {import('./config-file.js').FileConfig & { json?: boolean, config?: string }} */ (merged);
}

/**
 * Builds, then (unless --no-report) loads the input and the output with the
 * robot and prints what the build saved.
 * @param {Io} sys
 * @param {import('../build/pipeline.js').BuildOptions & { json?: boolean, quiet?: boolean, report?: boolean, network?: string[], html?: string, config?: string, out?: string, sample?: number, verbose?: boolean, baseline?: 'gzip' | 'raw' }} opts
 */
async function runBuild(sys, opts) {
  const stopListening = exitOnSignal();
  try {
    await buildAndReport(sys, opts);
  } finally {
    stopListening();
  }
}

/**
 * @param {Io} sys
 * @param {Parameters<typeof runBuild>[1]} opts
 */
async function buildAndReport(sys, opts) {
  const progress = createProgress({ stream: { write: sys.err, isTTY: sys.isTTY, columns: process.stderr.columns }, quiet: opts.quiet });
  const { json, report: wantReport, network, html, quiet, config, out, sample, verbose, baseline, betweenVisits, ...buildOptions } = opts;
  const summary = await build({ ...buildOptions, onProgress: progress.onProgress });
  /** @type {import('../report/compare.js').ReportData | undefined} */
  let report;
  if (wantReport !== false && summary.totals.pages > 0) {
    progress.onProgress({ phase: 'report', message: 'loading the input and the output to compare them' });
    report = await compareSites({ before: summary.input, after: summary.output, networks: network ?? REPORT_NETWORKS, sample, baseline, betweenVisits: durationSeconds(betweenVisits ?? BUILD_OPTIONS.betweenVisits.default) ?? undefined });
    if (html) await writeHtmlReport(report, path.resolve(sys.cwd, html), summary);
  }
  progress.end();
  if (json) sys.out(`${JSON.stringify(report ? { ...summary, report } : summary, null, 2)}\n`);
  else sys.out(formatBuildSummary(summary, { report, columns: sys.columns, verbose }) + (report && verbose ? `\n${formatReport(report, { columns: sys.columns, pages: true })}` : ''));
}

/**
 * Writes the HTML report atomically.
 * @param {import('../report/compare.js').ReportData} report
 * @param {string} file
 * @param {import('../build/summary.js').BuildSummary} [summary]
 */
async function writeHtmlReport(report, file, summary) {
  await writeFileAtomic(file, renderHtmlReport(report, summary));
}

/**
 * Serves a directory until untilStopped() resolves (SIGINT or SIGTERM), then closes.
 * @param {Io} sys
 * @param {{ root: string, port: string, host: string, protocol: import('../loader/server.js').Protocol, cacheHeaders?: import('../loader/handler.js').CacheHeaders }} opts
 */
async function runServe(sys, opts) {
  const stats = await fs.stat(opts.root).catch(() => null);
  if (!stats) throw new UserError(`directory ${opts.root} does not exist`);
  if (!stats.isDirectory()) throw new UserError(`${opts.root} is not a directory`);
  const port = /^\d+$/.test(opts.port) ? Number(opts.port) : NaN;
  if (!(port <= 65535)) throw new UserError(`--port must be a number from 0 to 65535, not '${opts.port}'`);
  let server;
  try {
    server = await startServer({ root: opts.root, port, host: opts.host, protocol: opts.protocol, cacheHeaders: opts.cacheHeaders });
  } catch (error) {
    const code = /** @type {NodeJS.ErrnoException} */ (error).code;
    if (code === 'EADDRINUSE') throw new UserError(`cannot listen on ${opts.host} port ${port}: it is in use`);
    if (code === 'EACCES') throw new UserError(`cannot listen on ${opts.host} port ${port}: permission denied`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') throw new UserError(`cannot listen on ${opts.host}: not an address of this machine`);
    throw error;
  }
  sys.out(`pagediet: serving ${opts.root} at ${server.url} (Ctrl-C to stop)\n`);
  await sys.untilStopped();
  await server.close();
}

/** Resolves on the first SIGINT or SIGTERM, and stops listening for both. */
function untilSignal() {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(undefined);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

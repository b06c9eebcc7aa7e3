/**
 * The command line: parses arguments, merges the config file, and calls the
 * library. Errors a user can fix are one line on stderr and exit code 1.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, Option } from 'commander';
import { build } from './pipeline.js';
import { loadConfig } from './config.js';
import { UserError } from './errors.js';
import { collect, list, nonNegativeInteger, qualityRange } from './cli-options.js';
import { VERSION } from './summary.js';
import { PASSES, PASS_ORDER } from './passes/index.js';
import { formatBuildSummary } from './report/build-text.js';
import { thresholdOption } from './passes/text-images.js';
import { formatReport } from './report/table.js';
import { compareSites, REPORT_NETWORKS } from './report/compare.js';
import { addLoaderCommands } from './loader-commands.js';
import { writeFileAtomic } from './util/atomic.js';
import { createProgress } from './progress.js';
import { parseShard } from './shard.js';
import { renderHtmlReport } from './report/html.js';
import { exitOnSignal } from './util/signals.js';
import { SERVERS, readSiteFiles, serverConfig } from './configs/index.js';
import { PROTOCOLS, startServer } from './loader/server.js';
import { diagnose, formatDiagnosis } from './doctor.js';


export const DEMO_SITE = fileURLToPath(new URL('../fixtures/microscape', import.meta.url));

/**
 * @typedef {object} Io
 * @property {(s: string) => void} out
 * @property {(s: string) => void} err
 * @property {boolean} isTTY whether stderr is a terminal (progress goes there)
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
      sys.err(`pagediet: ${error.message}\n`);
      return 1;
    }
    const e = /** @type {Error} */ (error);
    sys.err(process.env.PAGEDIET_DEBUG ? `${e.stack}\n` : `pagediet: internal error: ${e.message} (set PAGEDIET_DEBUG=1 for details)\n`);
    return 2;
  }
}

/** @param {Io} sys */
function createProgram(sys) {
  const program = new Command('pagediet')
    .description('Make a static site cost fewer bytes and fewer requests, and prove it.')
    .version(VERSION, '-V, --version')
    .exitOverride()
    .configureOutput({ writeOut: sys.out, writeErr: sys.err })
    .showHelpAfterError('(run pagediet --help for usage)');

  const passNames = `passes, in order: ${PASS_ORDER.join(', ')}; in this version: ${PASSES.map((p) => p.name).join(', ') || 'none yet'}`;

  program
    .command('build')
    .description('optimize the site in <input> and write the result to --out')
    .argument('<input>', 'directory of the static site (never modified)')
    .option('-o, --out <dir>', 'output directory (must not be inside the input)')
    .option('--only <list>', `run only these passes (comma-separated; ${passNames})`, list)
    .option('--skip <list>', 'do not run these passes (comma-separated)', list)
    .option('--origin <url>', 'an absolute origin that is this site, so its absolute URLs resolve locally (repeatable)', collect)
    .option('--force', 'write into a non-empty output directory that pagediet did not write')
    .option('--shard <i/n>', 'build only slice I of N (pages by a hash of their path, with every file they load), into an output the other shards share; server configs afterwards with `pagediet configs`', parseShard)
    .option('--json', 'print the machine-readable summary on stdout')
    .option('--no-report', 'skip the report that loads the input and the output with the robot and compares them')
    .option('--network <list>', `networks the report models (comma-separated; default ${REPORT_NETWORKS.join(',')})`, list)
    .option('--html <file>', 'also write the report as a self-contained HTML file')
    .option('--prune', 'remove an original image from the output once every reference points at its replacement')
    .addOption(new Option('--animations <format>', 'what animated GIFs may become (auto: the smaller)').choices(['auto', 'apng', 'webp']))
    .option('--picture', 'keep animated GIFs in <img> as the fallback of a <picture> with the new format')
    .option('--lossy', 'allow lossy image encodings (quantized PNG palettes, lossy WebP)')
    .option('--quality <min-max>', 'quality floor and target for --lossy, 0-100 (default 65-80)', qualityRange)
    .option('--zopfli-iterations <n>', 'also try zopfli with this many iterations on PNG data: slower, sometimes a little smaller (default 0: libdeflate only)', nonNegativeInteger)
    .option('--max-pixels <n>', 'leave alone images with more pixels (default 100000000)', nonNegativeInteger)
    .option('--job-timeout <seconds>', 'stop an encode or OCR job that runs longer and leave its file as it is (default 300; 0: no limit)', nonNegativeInteger)
    .addOption(new Option('--gzip <encoder>', 'encoder for the precompressed .gz files: zopfli (smallest) or zlib (level 9, quick); default zopfli').choices(['zopfli', 'zlib']))
    .option('--gzip-iterations <n>', 'zopfli iterations for the .gz files (default 15; --zopfli-iterations is for PNG data)', nonNegativeInteger)
    .option('--zstd', 'also write .zst files beside the .br and .gz (needs node 22.15 or newer: otherwise a warning)')
    .option('--configs <dir>', 'write the server configs here instead of the output\'s pagediet-configs/')
    .option('--no-configs', 'write no server configs')
    .option('--minify-html', 'also remove HTML comments (not conditional or <!--! -->) and whitespace that cannot render (pass minify-html)')
    .option('--text-images-threshold <n>', 'similarity (0-1) a text image\'s replacement must reach in Chromium (default 0.8)', thresholdOption)
    .addOption(new Option('--text-images-css <mode>', 'where text-image replacements\' CSS goes: a <style> in each page, or one shared pagediet.css (default inline)').choices(['inline', 'file']))
    .option('--no-ocr', 'do not read text images with OCR (images whose ALT and TITLE do not match their pixels stay)')
    .option('--browser <path>', 'a Chromium, Chrome or Edge executable to prove text-image replacements in, tried before the browsers pagediet finds (see pagediet doctor)')
    .option('--no-cache', 'do not keep or use results of earlier builds')
    .option('--cache-dir <dir>', 'where results are kept between builds (default node_modules/.cache/pagediet)')
    .option('--memory-budget <MiB>', 'file bytes kept in memory during the build; the rest wait in a scratch directory in $TMPDIR (default 64)', nonNegativeInteger)
    .option('-q, --quiet', 'no progress output')
    .option('-c, --config <file>', 'config file (default: pagediet.config.js, or "pagediet" in package.json)')
    .action(async (input, flags, command) => {
      const { config } = await loadConfig(sys.cwd, flags.config);
      const opts = merge(config, flags, command);
      if (!opts.out) throw new UserError('build needs an output directory: --out <dir>');
      await runBuild(sys, { input: path.resolve(sys.cwd, input), output: path.resolve(sys.cwd, /** @type {string} */ (opts.out)), ...opts });
    });

  program
    .command('demo')
    .description('run the whole pipeline on the built-in microscape page (SIGCOMM \'97) and print the savings')
    .option('-o, --out <dir>', 'where to write the result', path.join(os.tmpdir(), 'pagediet-demo'))
    .option('--json', 'print the machine-readable summary on stdout')
    .option('--no-report', 'skip the loader report')
    .option('--html <file>', 'also write the report as a self-contained HTML file')
    .option('-q, --quiet', 'no progress output')
    .action(async (flags) => {
      await runBuild(sys, { input: DEMO_SITE, output: path.resolve(sys.cwd, flags.out), json: flags.json, quiet: flags.quiet, report: flags.report, html: flags.html });
    });

  program
    .command('serve')
    .description('serve a built site on 127.0.0.1 for previewing, with its precompressed files')
    .argument('<dir>', 'directory of the site')
    .option('-p, --port <n>', 'port to listen on (0 picks a free one)', '0')
    .option('--host <address>', 'address to listen on (0.0.0.0 or :: would share the site with the network)', '127.0.0.1')
    .addOption(
      new Option('--protocol <name>', 'http1 (HTTP/1.0 and 1.1), h2c (HTTP/2 without TLS) or h2 (HTTP/2 over TLS, self-signed certificate)')
        .choices(PROTOCOLS)
        .default('http1'),
    )
    .action(async (dir, flags) => {
      await runServe(sys, { root: path.resolve(sys.cwd, dir), port: flags.port, host: flags.host, protocol: flags.protocol });
    });

  addLoaderCommands(program, sys, writeHtmlReport);

  program
    .command('configs')
    .description('print the config that serves a built site with its precompressed files and cache headers')
    .argument('<dir>', 'the built site (the output of pagediet build)')
    .addOption(new Option('--server <name>', 'nginx (snippet to include in server {}), apache (.htaccess), caddy (snippet to import), h2o (paths YAML) or headers (_headers: cache headers only)').choices(SERVERS).makeOptionMandatory())
    .option('-o, --out <file>', 'write it to this file instead of stdout')
    .action(async (dir, flags) => {
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
 * Config-file values, overridden by flags the user actually typed.
 * @param {import('./config.js').FileConfig} config
 * @param {Record<string, unknown>} flags
 * @param {Command} command
 */
function merge(config, flags, command) {
  /** @type {Record<string, unknown>} */
  const merged = { ...config };
  for (const [key, value] of Object.entries(flags)) {
    const source = command.getOptionValueSource(key);
    if (source === 'cli' || !(key in merged)) merged[key] = value;
  }
  if (flags.origin) merged.origins = flags.origin;
  return /** @type {import('./config.js').FileConfig & { json?: boolean }} */ (merged);
}

/**
 * Builds, then (unless --no-report) loads the input and the output with the
 * robot and prints what the build saved.
 * @param {Io} sys
 * @param {{ input: string, output: string, json?: boolean, quiet?: boolean, only?: string[], skip?: string[], force?: boolean, origins?: string[], report?: boolean, network?: string[], html?: string, shard?: import('./shard.js').Shard } & import('./config.js').ImageConfig} opts
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
  const summary = await build({
    input: opts.input,
    output: opts.output,
    only: opts.only,
    skip: opts.skip,
    force: opts.force,
    shard: opts.shard,
    origins: opts.origins,
    prune: opts.prune,
    animations: opts.animations,
    picture: opts.picture,
    lossy: opts.lossy,
    quality: opts.quality,
    zopfliIterations: opts.zopfliIterations,
    maxPixels: opts.maxPixels,
    jobTimeout: opts.jobTimeout,
    gzip: opts.gzip,
    gzipIterations: opts.gzipIterations,
    zstd: opts.zstd,
    configs: typeof opts.configs === 'string' ? path.resolve(sys.cwd, opts.configs) : opts.configs,
    minifyHtml: opts.minifyHtml,
    textImagesThreshold: opts.textImagesThreshold,
    textImagesCss: opts.textImagesCss,
    ocr: opts.ocr,
    browser: opts.browser === undefined ? undefined : path.resolve(sys.cwd, opts.browser),
    cache: opts.cache,
    cacheDir: opts.cacheDir === undefined ? undefined : path.resolve(sys.cwd, opts.cacheDir),
    memoryBudget: opts.memoryBudget === undefined ? undefined : opts.memoryBudget * 1024 * 1024,
    onProgress: progress.onProgress,
  });
  /** @type {import('./report/compare.js').ReportData | undefined} */
  let report;
  if (opts.report !== false) {
    progress.onProgress({ phase: 'report', message: 'loading the input and the output to compare them' });
    report = await compareSites({ before: summary.input, after: summary.output, networks: opts.network ?? REPORT_NETWORKS });
    if (opts.html) await writeHtmlReport(report, path.resolve(sys.cwd, opts.html), summary);
  }
  progress.end();
  if (opts.json) sys.out(`${JSON.stringify(report ? { ...summary, report } : summary, null, 2)}\n`);
  else sys.out(formatBuildSummary(summary) + (report ? `\n${formatReport(report)}` : ''));
}

/**
 * Writes the HTML report atomically.
 * @param {import('./report/compare.js').ReportData} report
 * @param {string} file
 * @param {import('./summary.js').BuildSummary} [summary]
 */
async function writeHtmlReport(report, file, summary) {
  await writeFileAtomic(file, renderHtmlReport(report, summary));
}

/**
 * Serves a directory until untilStopped() resolves (SIGINT or SIGTERM), then closes.
 * @param {Io} sys
 * @param {{ root: string, port: string, host: string, protocol: import('./loader/server.js').Protocol }} opts
 */
async function runServe(sys, opts) {
  const stats = await fs.stat(opts.root).catch(() => null);
  if (!stats) throw new UserError(`directory ${opts.root} does not exist`);
  if (!stats.isDirectory()) throw new UserError(`${opts.root} is not a directory`);
  const port = /^\d+$/.test(opts.port) ? Number(opts.port) : NaN;
  if (!(port <= 65535)) throw new UserError(`--port must be a number from 0 to 65535, not '${opts.port}'`);
  let server;
  try {
    server = await startServer({ root: opts.root, port, host: opts.host, protocol: opts.protocol });
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

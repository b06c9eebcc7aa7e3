/**
 * The command-line side of the loader: `load`, `report`, and the options they
 * share with the report that ends a build.
 */
import path from 'node:path';
import fs from 'node:fs/promises';
import { Command, Option } from 'commander';
import { loadSite } from '../loader/load.js';
import { STRATEGIES, VISITS } from '../loader/client.js';
import { networkProfile, NETWORKS } from '../loader/networks.js';
import { compareSites, defaultPages, REPORT_NETWORKS, REPORT_SAMPLE } from '../report/compare.js';
import { formatReport, formatRuns } from '../report/table.js';
import { UserError } from '../build/errors.js';
import { checkTargets, collect, count, list } from './option-values.js';
import { missingPages } from '../build/preflight.js';
import { parseDuration } from '../util/duration.js';

/**
 * @typedef {object} LoaderFlags what the shared options parse to
 * @property {string[]} [page]
 * @property {number} [sample]
 * @property {string[]} [protocol]
 * @property {string[]} [network]
 * @property {string[]} [visit]
 * @property {string} [betweenVisits]
 * @property {string} [rtt]
 * @property {string} [bandwidth]
 * @property {string} [mss]
 * @property {string} [iw]
 * @property {string} [rwnd]
 * @property {string} [connections]
 * @property {string} [loss]
 * @property {string} [domains]
 */


/**
 * Adds the options of the loader to a command.
 * @param {Command} command
 * @param {string[]} defaultNetworks
 */
export function addLoaderOptions(command, defaultNetworks) {
  return command
    .option('--page <path>', 'page to load, as a URL path (repeatable; default: index.html and pages spread over the site, --sample of them)', collect)
    .option('--sample <n>', `pages to load when no --page is given (default ${REPORT_SAMPLE})`, count)
    .option('--protocol <list>', `strategies (comma-separated): ${STRATEGIES.join(', ')}`, list)
    .option('--network <list>', `network profiles (comma-separated; default ${defaultNetworks.join(',')}): ${[...Object.keys(NETWORKS), 'custom'].join(', ')}`, list)
    .option('--visit <list>', `visits (comma-separated; default all three): first (nothing cached), revalidate (every object asked again with its validators), repeat (a browser coming back --between-visits later: what its cache holds fresh is not asked for)`, list)
    .option('--between-visits <duration>', 'time from the first visit to the repeat visit: 30s, 10m, 2h, 1d, 1w, or seconds (default 1d)')
    .option('--rtt <ms>', 'custom network: round-trip time')
    .option('--bandwidth <kbit>', 'custom network: bandwidth in kbit/s, both ways')
    .option('--mss <bytes>', 'custom network: maximum segment size')
    .option('--iw <segments>', 'custom network: initial congestion window')
    .option('--rwnd <bytes>', 'custom network: receive window')
    .option('--loss <percent>', 'custom network: data segments lost, per hundred')
    .option('--connections <n>', 'parallel connections per host for http1.0 and http1.1')
    .option('--domains <n>', 'spread subresources over this many host names (domain sharding; modelled)');
}

/**
 * Turns the shared flags into loadSite options, with one-line errors for bad values.
 * @param {LoaderFlags} flags
 * @param {string[]} defaultNetworks
 * @returns {Omit<import('../loader/load.js').LoadSiteOptions, 'root'>}
 */
export function loaderOptions(flags, defaultNetworks) {
  /** @param {string | undefined} value @param {string} name */
  const num = (value, name) => {
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!Number.isFinite(n) || n < 0) throw new UserError(`--${name} must be a number, not '${value}'`);
    return n;
  };
  const protocols = flags.protocol ?? [...STRATEGIES];
  for (const p of protocols) if (!(/** @type {readonly string[]} */ (STRATEGIES)).includes(p)) throw new UserError(`unknown protocol '${p}' (known: ${STRATEGIES.join(', ')})`);
  const visits = flags.visit ?? [...VISITS];
  for (const v of visits) if (!(/** @type {readonly string[]} */ (VISITS)).includes(v)) throw new UserError(`unknown visit '${v}' (known: ${VISITS.join(', ')})`);
  const betweenVisits = flags.betweenVisits === undefined ? undefined : parseDuration(flags.betweenVisits);
  if (betweenVisits === null) throw new UserError(`--between-visits must be a duration (30s, 10m, 2h, 1d, 1w, or seconds), not '${flags.betweenVisits}'`);
  const custom = { rtt: num(flags.rtt, 'rtt'), bandwidth: num(flags.bandwidth, 'bandwidth'), mss: num(flags.mss, 'mss'), iw: num(flags.iw, 'iw'), rwnd: num(flags.rwnd, 'rwnd'), loss: num(flags.loss, 'loss'), connections: num(flags.connections, 'connections') };
  const networks = flags.network ?? defaultNetworks;
  for (const n of networks) {
    try {
      networkProfile(n, custom);
    } catch (error) {
      throw new UserError(/** @type {Error} */ (error).message);
    }
  }
  return {
    pages: flags.page?.map((p) => (p.startsWith('/') ? p : `/${p}`)),
    protocols: /** @type {import('../loader/client.js').Strategy[]} */ (protocols),
    networks,
    visits: /** @type {import('../loader/client.js').Visit[]} */ (visits),
    betweenVisits,
    custom,
    connections: num(flags.connections, 'connections'),
    domains: num(flags.domains, 'domains'),
  };
}

/**
 * The pages named with --page, each checked, or a sample of the site's.
 * @param {string} root
 * @param {string[] | undefined} named
 * @param {number | undefined} sample
 * @returns {Promise<string[]>}
 */
async function pagesToLoad(root, named, sample) {
  if (named) {
    const missing = await missingPages(root, named);
    if (missing.length) throw new UserError(`--page ${missing[0]}: no such page in ${root}`);
    return named;
  }
  const pages = await defaultPages(root, sample);
  if (!pages.length) throw new UserError(`no page (.html or .htm) in ${root}: nothing to load`);
  return pages;
}

/**
 * @param {string} dir
 * @param {string} what
 */
async function requireDirectory(dir, what) {
  const stat = await fs.stat(dir).catch(() => null);
  if (!stat) throw new UserError(`${what} ${dir} does not exist`);
  if (!stat.isDirectory()) throw new UserError(`${what} ${dir} is not a directory`);
}

/**
 * @param {Command} program
 * @param {import('./main.js').Io} sys
 * @param {(report: import('../report/compare.js').ReportData, file: string) => Promise<void>} writeHtml
 */
export function addLoaderCommands(program, sys, writeHtml) {
  addLoaderOptions(
    program
      .command('load')
      .description('load pages with the built-in robot over HTTP/1.0, HTTP/1.1, pipelining and HTTP/2, and model them on the studies\' and today\'s networks')
      .argument('<site>', 'directory of the site (served on 127.0.0.1 while it loads)'),
    ['wan-1997'],
  )
    .option('--json', 'print { runs: [...] } on stdout')
    .action(async (site, flags) => {
      const root = path.resolve(sys.cwd, site);
      await requireDirectory(root, 'site');
      const options = loaderOptions(flags, ['wan-1997']);
      const pages = await pagesToLoad(root, options.pages, flags.sample);
      const result = await loadSite({ ...options, root, pages });
      if (flags.json) sys.out(`${JSON.stringify({ runs: result.runs }, null, 2)}\n`);
      else sys.out(formatRuns(result.runs, { columns: sys.columns }));
    });

  addLoaderOptions(
    program
      .command('report')
      .description('load two versions of a site and show what the second saves: requests, packets, bytes and seconds per strategy and network')
      .argument('<before>', 'directory of the site before')
      .argument('<after>', 'directory of the site after'),
    REPORT_NETWORKS,
  )
    .option('--html <file>', 'also write a self-contained HTML report')
    .option('--json', 'print { before, after, savings, headline } on stdout')
    .option('--verbose', 'a table per page and network too')
    .addOption(new Option('--baseline <how>', 'how both sides are served besides precompressed files: gzip on the fly, as ordinary servers do (default), or raw').choices(['gzip', 'raw']))
    .action(async (before, after, flags) => {
      const [a, b] = [path.resolve(sys.cwd, before), path.resolve(sys.cwd, after)];
      await requireDirectory(a, 'before');
      await requireDirectory(b, 'after');
      if (flags.html) await checkTargets(sys.cwd, { html: flags.html });
      const options = loaderOptions(flags, REPORT_NETWORKS);
      const pages = await pagesToLoad(a, options.pages, flags.sample);
      const missing = await missingPages(b, pages);
      if (missing.length) throw new UserError(`${missing[0]} is a page of ${a} but not of ${b}`);
      const report = await compareSites({ ...options, pages, before: a, after: b, baseline: flags.baseline });
      if (flags.html) await writeHtml(report, path.resolve(sys.cwd, flags.html));
      if (flags.json) sys.out(`${JSON.stringify(report, null, 2)}\n`);
      else sys.out(formatReport(report, { columns: sys.columns, pages: flags.verbose }));
    });
}

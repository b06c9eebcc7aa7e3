// The terminal's build summary on a site of many pages with many repeated
// reasons: one screen (30 lines, 80 columns), decisions and messages grouped
// by reason with their counts and three examples, information counted and
// never listed unless --verbose.
import { beforeAll, describe, expect, it } from 'vitest';
import { build } from '../src/build/pipeline.js';
import { formatBuildSummary, SUMMARY_LINES } from '../src/report/build-text.js';
import { groupDecisions, groupMessages } from '../src/report/groups.js';
import { change, headline, REPORT_NETWORKS } from '../src/report/compare.js';
import { stripesGif } from '../scripts/fixtures/bad.js';
import { tempDir, writeTree } from './helpers/tmp.js';

const PAGES = 120;
const UNUSED_GIFS = 40;
const name = (/** @type {number} */ i) => `page-${String(i).padStart(3, '0')}.html`;

/** @type {import('../src/build/summary.js').BuildSummary} */
let summary;

beforeAll(async () => {
  /** @type {Record<string, string | Buffer>} */
  const files = {};
  for (let i = 0; i < PAGES; i++) {
    // A <div> never closed (markup browsers repair: information) and an image that is not there (a warning).
    files[name(i)] = `<!doctype html><html><head><title>Page ${i}</title></head><body><div><p>Page ${i}</p><img src="missing-${i}.png" alt=""></body></html>\n`;
  }
  for (let i = 0; i < UNUSED_GIFS; i++) files[`unused/${i}.gif`] = stripesGif();
  const input = await writeTree(await tempDir(), files);
  summary = await build({ input, output: `${await tempDir()}/out`, only: ['gif-to-png', 'html-case', 'precompress'], cache: false });
}, 120_000);

describe('the default summary', () => {
  it('fits one screen of 80 columns', () => {
    const lines = formatBuildSummary(summary, { columns: 80 }).trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(SUMMARY_LINES);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('cuts a line only to a terminal\'s width: in a pipe or a log every line is whole', () => {
    const long = { ...summary, input: `/site/${'deep/'.repeat(16)}input`, ms: 13_200 };
    const head = `pagediet ${summary.version}: ${long.input} -> ${summary.output} (13.2 s)`;
    expect(head.length).toBeGreaterThan(100);
    expect(formatBuildSummary(long).split('\n')[0]).toBe(head);
    expect(formatBuildSummary(long, { columns: 80 }).split('\n')[0]).toBe(`${head.slice(0, 79)}…`);
    expect(formatBuildSummary(long, { columns: 120 }).split('\n')[0]).toBe(`${head.slice(0, 119)}…`);
  });

  it('counts messages by severity and lists warnings grouped, with three examples', () => {
    const text = formatBuildSummary(summary);
    expect(summary.totals).toMatchObject({ errors: 0, warnings: PAGES, info: PAGES });
    expect(text).toContain(`Messages       0 errors, ${PAGES} warnings, ${PAGES} information (--verbose lists them)\n`);
    expect(text).toContain(`  warning ${PAGES}: references to files that do not exist (page-000.html, …)\n`);
  });

  it('never prints information line by line', () => {
    const text = formatBuildSummary(summary);
    expect(text).not.toContain('markup-repaired');
    expect(text).not.toContain('<div>');
  });

  it('groups the decisions of each pass by reason, the figures and files taken out', () => {
    const text = formatBuildSummary(summary);
    // As many of three examples as 80 columns hold.
    expect(text).toContain(`    skipped ${UNUSED_GIFS}: no page or style sheet refers to it (unused/0.gif, …)\n`);
    // Every page is under precompress's minimum, each of another size: one group, the sizes in parentheses dropped.
    expect(text).toContain(`    skipped ${PAGES}: under 256 B (page-000.html, page-001.html, page-002.html, …)\n`);
    expect(text).toContain(`    kept ${PAGES}: names already lower case (page-000.html, page-001.html, …)\n`);
  });

  it('lists every message and decision with --verbose', () => {
    const lines = formatBuildSummary(summary, { verbose: true }).split('\n');
    /** The lines of a group after its heading. @param {string} heading */
    const members = (heading) => {
      const at = lines.indexOf(heading);
      expect(at).toBeGreaterThan(0);
      return lines.slice(at + 1, at + 1 + PAGES + 1);
    };
    const info = members(`  info ${PAGES} markup-repaired: markup browsers repair`);
    expect(info.slice(0, PAGES).every((l, i) => l.startsWith(`    ${name(i)}: `) && l.includes('<div>'))).toBe(true);
    expect(info[PAGES].startsWith('    ')).toBe(false);
    const missing = members(`  warning ${PAGES} reference-missing: references to files that do not exist`);
    expect(missing.slice(0, PAGES).every((l, i) => l === `    ${name(i)}: img "missing-${i}.png" points at a file that does not exist`)).toBe(true);
  });

  it('with the report, shows the first visit, the repeat visit (its objects from the cache, the time between visits) and the revalidation, still one screen', () => {
    /** @type {import('../src/report/compare.js').Comparison[]} */
    const savings = [];
    for (const network of REPORT_NETWORKS) {
      for (const [visit, before, after, cached, bytes] of /** @type {const} */ ([['first', 1200, 960, 0, [1_704_960, 1_103_600]], ['revalidate', 1200, 960, 0, [401_234, 320_987]], ['repeat', 1200, 120, 840, [401_234, 40_123]]])) {
        savings.push({ page: '/index.html', protocol: 'h2', network, visit, requests: change(before, after), fromCache: change(0, cached), packets: change(10, 10), wireBytes: change(bytes[0], bytes[1]), seconds: change(12.5, 3.25), firstRender: change(1.5, 0.75) });
      }
    }
    const report = /** @type {import('../src/report/compare.js').ReportData} */ ({ headline: headline(savings, 10, PAGES, 'gzip', 7200) });
    const lines = formatBuildSummary(summary, { report, columns: 80 }).trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(SUMMARY_LINES);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    const at = lines.indexOf(`What visitors load (10 of ${PAGES} pages over HTTP/2):`);
    expect(lines.slice(at + 1, at + 13)).toEqual([
      '  first visit   1,704,960 B -> 1,103,600 B (-35%), 1200 -> 960 requests',
      '  repeat visit  401,234 B -> 40,123 B (-90%), 1200 -> 120 requests,',
      '                0 -> 840 from the cache',
      '  revalidation  401,234 B -> 320,987 B (-20%), 1200 -> 960 requests',
      '  seconds          modem-28.8k      wan-1997       slow-4g         cable',
      '    first         12.5 -> 3.25  12.5 -> 3.25  12.5 -> 3.25  12.5 -> 3.25',
      '    first render  1.50 -> 0.75  1.50 -> 0.75  1.50 -> 0.75  1.50 -> 0.75',
      '    repeat        12.5 -> 3.25  12.5 -> 3.25  12.5 -> 3.25  12.5 -> 3.25',
      '    revalidation  12.5 -> 3.25  12.5 -> 3.25  12.5 -> 3.25  12.5 -> 3.25',
      "  repeat visit 2 hours later; Cache-Control: none before, the configs' after",
      '  both sides served as ordinary servers do: gzip level 6 on the fly',
      expect.stringMatching(/^On disk /),
    ]);
  });

  it('stays within a wider terminal and uses it', () => {
    const lines = formatBuildSummary(summary, { columns: 120 }).trimEnd().split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(120);
    expect(lines).toContain(`  warning ${PAGES}: references to files that do not exist (page-000.html, page-001.html, page-002.html, …)`);
  });
});

describe('groups', () => {
  it('take the file and the detail in parentheses out of a reason, and show a figure only when the group shares it', () => {
    const decisions = [
      { file: 'a.gif', action: /** @type {const} */ ('kept'), reason: 'WIDTH or HEIGHT is not in pixels in a.html' },
      { file: 'b.gif', action: /** @type {const} */ ('kept'), reason: 'WIDTH or HEIGHT is not in pixels in b/c.html' },
      { file: 'c.gif', action: /** @type {const} */ ('kept'), reason: 'not text: 12 of 400 pixels are neither background nor ink' },
      { file: 'd.gif', action: /** @type {const} */ ('kept'), reason: 'not text: 30 of 400 pixels are neither background nor ink' },
      { file: 'e.gif', action: /** @type {const} */ ('kept'), reason: 'larger than 32 KB, the most a text image may be (40,000 B)' },
      { file: 'f.gif', action: /** @type {const} */ ('changed'), reason: '→ f.png' },
    ];
    const groups = groupDecisions(decisions, new Set(['a.html', 'b/c.html']));
    expect(groups.map((g) => [g.action, g.label, g.members.map((m) => m.file)])).toEqual([
      ['kept', 'WIDTH or HEIGHT is not in pixels', ['a.gif', 'b.gif']],
      ['kept', 'not text: … of 400 pixels are neither background nor ink', ['c.gif', 'd.gif']],
      ['kept', 'larger than 32 KB, the most a text image may be', ['e.gif']],
    ]);
  });

  it('put errors before warnings before information, the largest group first', () => {
    const m = (/** @type {string} */ code, /** @type {import('../src/build/messages.js').Severity} */ severity) => ({ file: 'x', code, severity, message: code });
    const groups = groupMessages([m('markup-repaired', 'info'), m('reference-missing', 'warning'), m('css-csso-failed', 'error'), m('markup-repaired', 'info'), m('empty-file', 'warning'), m('empty-file', 'warning')]);
    expect(groups.map((g) => [g.severity, g.code, g.members.length])).toEqual([
      ['error', 'css-csso-failed', 1], ['warning', 'empty-file', 2], ['warning', 'reference-missing', 1], ['info', 'markup-repaired', 2],
    ]);
  });
});

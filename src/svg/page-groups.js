/**
 * A page's inline <svg>s in the groups they are proven in: those that use
 * each other's ids together, each with the clip paths, masks and filters the
 * page's CSS draws through them.
 */
import { ORIGIN } from '../browser/site-route.js';
import { encodePath } from '../site/edits.js';
import { refersOutside } from './checks.js';
import { PROBE_SIZE } from './probes.js';
import { slots } from './proof.js';
import { sha } from './units.js';

/**
 * @typedef {import('../site/site.js').SiteFile} SiteFile
 * @typedef {import('../site/document-view.js').DocumentView} DocumentView
 * @typedef {import('./pages.js').PageSvg} PageSvg
 * @typedef {import('./units.js').Unit} Unit
 * @typedef {import('./units.js').Group} Group
 */

/** Element names a page's CSS draws through, by the property it uses. */
const CSS_PROBES = /** @type {Record<string, 'clip-path' | 'mask' | 'filter'>} */ ({ clipPath: 'clip-path', mask: 'mask', filter: 'filter' });

/**
 * A page's inline <svg>s in groups: those that use each other's ids (a
 * hidden sprite and the drawings that <use> it) together, the rest each by
 * itself. A group is drawn with every member as it is and with the contrast
 * properties, and every clip path, mask or filter the page's CSS refers to
 * is drawn through a box as CSS draws it.
 * @param {SiteFile} page
 * @param {PageSvg[]} svgs
 * @param {DocumentView} view
 * @returns {Group[]}
 */
export function pageGroups(page, svgs, view) {
  const defined = svgs.map((s) => new Set(s.found.elements.map((e) => e.id)));
  const used = svgs.map((s) => new Set([...(s.text ?? '').matchAll(/(?:href\s*=\s*["']?\s*|url\(\s*["']?\s*)#([^"'\s)>]+)/gi)].map((m) => safeDecode(m[1]))));
  // Fragments the rest of the page refers to (CSS, links), outside every <svg>.
  let outsideText = '';
  let at = 0;
  for (const s of svgs) {
    outsideText += view.text.slice(at, s.found.start);
    at = s.found.end;
  }
  outsideText += view.text.slice(at);
  const outsideFragments = new Set([...outsideText.matchAll(/#([\w\-.:%\u00B7\u00C0-\uFFFF]+)/g)].map((m) => safeDecode(m[1])));
  // Union-find over the <svg>s that refer to each other's ids.
  const parent = svgs.map((_, i) => i);
  const find = (/** @type {number} */ i) => { while (parent[i] !== i) i = parent[i] = parent[parent[i]]; return i; };
  for (let i = 0; i < svgs.length; i++) {
    for (let j = 0; j < svgs.length; j++) {
      if (i !== j && [...used[i]].some((id) => defined[j].has(id))) parent[find(i)] = find(j);
    }
  }
  /** @type {Map<number, number[]>} */
  const components = new Map();
  svgs.forEach((_, i) => { const r = find(i); components.set(r, [...(components.get(r) ?? []), i]); });
  const base = new URL(page.baseHref ?? '', `${ORIGIN}/${encodePath(page.path)}`).href;
  /** @type {Group[]} */
  const groups = [];
  for (const members of components.values()) {
    const units = /** @type {Unit[]} */ (members.map((i) => svgs[i].unit).filter(Boolean));
    if (!units.length) continue;
    const providersOf = (/** @type {number} */ i) => /** @type {Unit[]} */ (members.filter((j) => j !== i && svgs[j].unit && [...used[i]].some((id) => defined[j].has(id))).map((j) => svgs[j].unit));
    /** @type {{ owner: Unit | null, providers: Unit[], slot: (version: (i: number) => string) => string }[]} */
    const plan = [];
    for (const contrast of [false, true]) for (const i of members) plan.push({ owner: svgs[i].unit, providers: providersOf(i), slot: (version) => slots.markup(version(i), contrast) });
    for (const i of members) {
      for (const e of svgs[i].found.elements) {
        const property = CSS_PROBES[e.name];
        if (property && outsideFragments.has(e.id)) plan.push({ owner: svgs[i].unit, providers: [], slot: () => slots.css(property, `#${encodeURIComponent(e.id)}`, { width: PROBE_SIZE, height: PROBE_SIZE }) });
      }
    }
    const outside = members.some((i) => refersOutside(svgs[i].text ?? ''));
    const original = (/** @type {number} */ i) => /** @type {string} */ (svgs[i].text);
    const changed = (/** @type {number} */ i) => svgs[i].unit?.current ?? original(i);
    const group = () => ({ base: outside ? base : '', before: plan.map((p) => p.slot(original)), after: plan.map((p) => p.slot(changed)) });
    groups.push({
      units,
      owners: plan.map((p) => p.owner),
      providers: plan.map((p) => p.providers),
      cacheable: !outside,
      key: () => sha(JSON.stringify(['inline', group()])),
      build: group,
    });
  }
  return groups;
}

/** @param {string} s */
function safeDecode(s) {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

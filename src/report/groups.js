/**
 * Decisions and messages grouped by what they say, with the file taken out:
 * a site of hundreds of pages gives the same reason hundreds of times, and a
 * reader wants "kept 40: WIDTH or HEIGHT is not in pixels" once, with its
 * count and a few examples. The terminal's summary shows groups; --json and
 * the HTML report keep every member.
 */
import { messageCode } from '../build/messages.js';

/**
 * @typedef {import('../build/pass.js').Decision} Decision
 * @typedef {import('../site/site.js').Warning} Warning
 *
 * @typedef {object} DecisionGroup
 * @property {Decision['action']} action
 * @property {string} label the reason, without files, without what it says in parentheses, and with '…' for the
 *   figures that differ between the group's members
 * @property {Decision[]} members in the order they were made
 *
 * @typedef {object} MessageGroup
 * @property {import('../build/messages.js').Severity} severity
 * @property {string} code
 * @property {string} about
 * @property {Warning[]} members in the order they were given
 */

const SEVERITY_ORDER = { error: 0, warning: 1, info: 2 };

/**
 * Decisions that were not 'changed', grouped by their reason's shape, the
 * largest group first.
 * @param {Decision[]} decisions
 * @param {ReadonlySet<string>} [paths] the site's file paths, taken out of reasons that name them
 * @returns {DecisionGroup[]}
 */
export function groupDecisions(decisions, paths = new Set()) {
  /** @type {Map<string, { action: Decision['action'], shapes: string[][], members: Decision[] }>} */
  const groups = new Map();
  for (const d of decisions) {
    if (d.action === 'changed') continue;
    const shape = reasonShape(d.reason, paths, d.file);
    const key = `${d.action}\n${shape.filter((_, i) => i % 2 === 0).join('#')}`;
    const group = groups.get(key) ?? { action: d.action, shapes: [], members: [] };
    group.shapes.push(shape);
    group.members.push(d);
    groups.set(key, group);
  }
  return [...groups.values()]
    .map((g) => ({ action: g.action, label: labelOf(g.shapes), members: g.members }))
    .sort((a, b) => b.members.length - a.members.length);
}

/**
 * Messages grouped by their code: errors first, then warnings, then
 * information; within a severity, the largest group first.
 * @param {Warning[]} messages
 * @returns {MessageGroup[]}
 */
export function groupMessages(messages) {
  /** @type {Map<string, MessageGroup>} */
  const groups = new Map();
  for (const m of messages) {
    const group = groups.get(m.code) ?? { severity: m.severity, code: m.code, about: messageCode(m.code).about, members: [] };
    group.members.push(m);
    groups.set(m.code, group);
  }
  return [...groups.values()].sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || b.members.length - a.members.length || (a.code < b.code ? -1 : 1));
}

/**
 * A reason cut into text and figures: even indexes are text (what groups
 * share), odd ones figures. What it says in parentheses is detail and goes;
 * the file the decision is about and other files of the site become '…'.
 * @param {string} reason
 * @param {ReadonlySet<string>} paths
 * @param {string} file
 * @returns {string[]}
 */
function reasonShape(reason, paths, file) {
  let text = reason;
  for (let previous = ''; previous !== text;) {
    previous = text;
    text = text.replace(/\s*\([^()]*\)/g, '');
  }
  text = text
    .split(/(\s+)/)
    .map((word) => {
      const bare = word.replace(/^["'<]+|[>"':;,.]+$/g, '');
      return bare && (bare === file || paths.has(bare)) ? word.replace(bare, '\u0000') : word;
    })
    .join('')
    .replace(/ (?:in|of|on|from) \u0000/g, '')
    .replace(/\u0000/g, '…')
    .trim();
  return text.split(/(\d[\d,.]*\d|\d)/);
}

/**
 * The label of a group: its text, with each figure shown when every member
 * has the same and '…' where they differ.
 * @param {string[][]} shapes
 */
function labelOf(shapes) {
  const [first] = shapes;
  return first.map((part, i) => (i % 2 === 0 || shapes.every((s) => s[i] === part) ? part : '…')).join('');
}

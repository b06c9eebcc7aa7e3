/**
 * The HTML report's one script and the text box it drives: a box above a long
 * list (decisions and messages, the pages' runs) that hides the members that
 * do not contain the text typed, shows how many match in each group, and opens
 * the groups that have matches while it filters. The report is whole without
 * it: the boxes are hidden until the script shows them, and every list is in
 * the file.
 *
 * Markup it works on (filterBox below; the groups from html-decisions.js, the
 * pages' <details> from html-numbers.js):
 *   <p class="filter" data-filter="ID" hidden><input type="search"> <output></output></p>
 *   <div id="ID"> [data-section] > [data-group] (a <details> with <output class="shown">) > [data-item] </div>
 * An item outside any group (a page's <details>) matches on its summary line.
 *
 * It is kept in this file as text: it runs in the browser, never in Node. It
 * must not contain two slashes before a letter (a test looks for URLs).
 */
import { escapeHtml as esc } from './html-format.js';

export const FILTER_SCRIPT = `
(function () {
  'use strict';
  var lower = function (el) { return (el.textContent || '').toLowerCase(); };
  document.querySelectorAll('[data-filter]').forEach(function (box) {
    var scope = document.getElementById(box.getAttribute('data-filter'));
    var input = box.querySelector('input');
    var status = box.querySelector('output');
    if (!scope || !input) return;
    var groups = Array.prototype.map.call(scope.querySelectorAll('[data-group]'), function (g) {
      var summary = g.querySelector('summary');
      var items = Array.prototype.map.call(g.querySelectorAll('[data-item]'), function (el) { return { el: el, text: lower(el) }; });
      return { el: g, text: summary ? lower(summary) : '', shown: g.querySelector('output.shown'), items: items };
    });
    var loose = Array.prototype.filter.call(scope.querySelectorAll('[data-item]'), function (el) { return !el.closest('[data-group]'); })
      .map(function (el) { var s = el.matches('details') ? el.querySelector('summary') : null; return { el: el, text: lower(s || el) }; });
    var sections = Array.prototype.slice.call(scope.querySelectorAll('[data-section]'));
    var total = loose.length + groups.reduce(function (n, g) { return n + g.items.length; }, 0);
    var set = function (el, hidden) { if (el.hidden !== hidden) el.hidden = hidden; };
    var run = function () {
      var q = input.value.trim().toLowerCase();
      var shown = 0;
      groups.forEach(function (g) {
        var all = !q || g.text.indexOf(q) >= 0;
        var hits = 0;
        g.items.forEach(function (it) { var hit = all || it.text.indexOf(q) >= 0; set(it.el, !hit); if (hit) hits++; });
        shown += hits;
        set(g.el, hits === 0);
        if (g.shown) g.shown.textContent = q && hits ? ' ' + hits + ' of ' + g.items.length + ' match' : '';
        if (q && hits && !g.el.open) { g.el.open = true; g.el.setAttribute('data-opened', ''); }
        if (!q && g.el.hasAttribute('data-opened')) { g.el.open = false; g.el.removeAttribute('data-opened'); }
      });
      loose.forEach(function (it) { var hit = !q || it.text.indexOf(q) >= 0; set(it.el, !hit); if (hit) shown++; });
      sections.forEach(function (s) { set(s, !!q && !s.querySelector('[data-group]:not([hidden])')); });
      if (status) status.textContent = q ? shown + ' of ' + total + ' shown' : '';
    };
    input.addEventListener('input', run);
    box.hidden = false;
    if (input.value) run();
  });
})();
`;

/**
 * A text box that filters the items of a part of the page; the script shows it.
 * @param {string} target the id of what it filters @param {string} title @param {string} placeholder
 */
export function filterBox(target, title, placeholder) {
  return `<p class="filter" data-filter="${esc(target)}" hidden><label>${esc(title)} <input type="search" placeholder="${esc(placeholder)}" autocomplete="off" spellcheck="false"></label> <output class="muted small"></output></p>`;
}

"""The CSS and the JavaScript every Stateforge page inlines (one file, no network, no CDN).

The script only adds comfort: filtering the navigation, marking the section in view, sorting tables by a
click on a header. Without it the page reads the same (the navigation is plain links).
"""

from __future__ import annotations

CSS = """
:root {
  --ink: #1f2933; --muted: #616e7c; --faint: #9aa5b1; --line: #e4e7eb; --panel: #f5f7fa;
  --accent: #3b6fd8; --accent-soft: #e8effc; --bad: #d64545; --bad-soft: #fdecec;
  --good: #2f9e77; --good-soft: #e6f6f0; --warn: #c77c02; --warn-soft: #fff4e0;
  --nav: 248px;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Liberation Sans", "DejaVu Sans", sans-serif;
  font-size: 14px; line-height: 1.45; color: var(--ink); background: #fff;
}
* { box-sizing: border-box; }
body { margin: 0; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
code, .mono { font-family: ui-monospace, "DejaVu Sans Mono", "Liberation Mono", monospace;
  font-size: 12.5px; }
.nav { position: fixed; top: 0; left: 0; bottom: 0; width: var(--nav); overflow-y: auto;
  background: var(--panel); border-right: 1px solid var(--line); padding: 16px 10px 24px; }
.brand { font-size: 11px; letter-spacing: .08em; text-transform: uppercase; color: var(--muted);
  padding: 0 8px; }
.nav-title { font-size: 15px; margin: 2px 8px 12px; word-break: break-all; }
.nav input { width: 100%; padding: 6px 9px; border: 1px solid var(--line); border-radius: 6px;
  font: inherit; font-size: 13px; margin-bottom: 10px; background: #fff; }
.nav-head { font-size: 11px; font-weight: 600; text-transform: uppercase; letter-spacing: .06em;
  color: var(--muted); margin: 14px 8px 4px; }
.nav a { display: flex; align-items: center; gap: 6px; padding: 3px 8px; border-radius: 5px;
  color: var(--ink); font-size: 13px; }
.nav a:hover { background: #e9edf2; text-decoration: none; }
.nav a.current { background: var(--accent-soft); color: var(--accent); font-weight: 600; }
.nav a .label { flex: 1; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.nav a .note { color: var(--faint); font-size: 11.5px; font-variant-numeric: tabular-nums; }
.dot { width: 7px; height: 7px; border-radius: 50%; flex: none; background: var(--good); }
.dot.bad { background: var(--bad); } .dot.warn { background: var(--warn);
  } .dot.none { background: transparent; }
main { margin-left: var(--nav); padding: 24px 36px 60px; max-width: calc(var(--nav) + 1180px); }
.page-head h1 { font-size: 24px; margin: 0 0 4px; }
.page-head .sub { color: var(--muted); margin: 0 0 8px; }
section.section { padding-top: 18px; margin-top: 18px; border-top: 1px solid var(--line);
  scroll-margin-top: 8px; }
section.section > h2 { font-size: 19px; margin: 0 0 2px; display: flex; align-items: center; gap: 10px;
  flex-wrap: wrap; }
section.section > .sub { color: var(--muted); margin: 0 0 12px; }
h3 { font-size: 14.5px; margin: 20px 0 8px; }
p { margin: 6px 0 10px; }
.muted { color: var(--muted); }
.badge { display: inline-block; font-size: 11.5px; font-weight: 600; padding: 1px 8px; border-radius: 10px;
  background: var(--panel); color: var(--muted); border: 1px solid var(--line); white-space: nowrap; }
.badge.good { background: var(--good-soft); color: var(--good); border-color: transparent; }
.badge.bad { background: var(--bad-soft); color: var(--bad); border-color: transparent; }
.badge.warn { background: var(--warn-soft); color: var(--warn); border-color: transparent; }
.badge.info { background: var(--accent-soft); color: var(--accent); border-color: transparent; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 10px;
  margin: 10px 0 14px; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; background: #fff; }
.card .k { font-size: 11.5px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
.card .v { font-size: 20px; font-weight: 600; font-variant-numeric: tabular-nums; }
.card .n { font-size: 12px; color: var(--muted); }
.card.bad .v { color: var(--bad); } .card.good .v { color: var(--good);
  } .card.warn .v { color: var(--warn); }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 3px 16px; margin: 8px 0 12px; }
.facts dt { color: var(--muted); } .facts dd { margin: 0; word-break: break-word; }
.scroll { overflow-x: auto; margin: 6px 0 12px; }
table.data { border-collapse: collapse; font-size: 13px; min-width: 50%; }
table.data caption { text-align: left; color: var(--muted); font-size: 12.5px; padding-bottom: 4px; }
table.data th { text-align: left; font-weight: 600; color: var(--muted); font-size: 12px;
  border-bottom: 1px solid #cbd2d9; padding: 5px 10px; white-space: nowrap; background: #fff; }
table.data td { padding: 4px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
table.data tr:hover td { background: #fafbfc; }
table.data .r { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.data td.nw { white-space: nowrap; }
table.data th.r { text-align: right; }
table.sortable th { cursor: pointer; user-select: none; }
table.sortable th[aria-sort="ascending"]::after { content: " \\25B2"; font-size: 9px; }
table.sortable th[aria-sort="descending"]::after { content: " \\25BC"; font-size: 9px; }
.meter { display: inline-block; width: 64px; height: 7px; border-radius: 4px; background: var(--line);
  vertical-align: middle; margin-right: 6px; overflow: hidden; }
.meter > span { display: block; height: 100%; background: var(--accent); }
.meter.bad > span { background: var(--bad); } .meter.warn > span { background: var(--warn); }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(310px, 1fr)); gap: 12px;
  margin: 8px 0 14px; }
.tile { border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px 8px;
  background: #fff; min-width: 0; }
.tile h4 { margin: 0; font-size: 13.5px; display: flex; gap: 8px; align-items: baseline; flex-wrap: wrap; }
.tile h4 .type { font-weight: 400; color: var(--muted); font-size: 12px; }
.tile .stats { font-size: 12px; color: var(--muted); margin: 2px 0 4px; }
.tile .stats b { color: var(--ink); font-weight: 600; }
.tile .text { font-size: 12.5px; margin: 8px 0 4px; }
figure.plot { margin: 4px 0 0; }
figure.plot figcaption { font-size: 11.5px; color: var(--muted); }
.plot-svg { display: block; width: 100%; height: auto; }
.plot-svg * { stroke-linejoin: round; stroke-linecap: butt; }
.wide figure.plot { max-width: 640px; }
.callout { border-left: 3px solid var(--accent); background: var(--accent-soft); padding: 8px 12px;
  border-radius: 0 6px 6px 0; margin: 8px 0 12px; }
.callout.bad { border-color: var(--bad); background: var(--bad-soft); }
.callout.good { border-color: var(--good); background: var(--good-soft); }
.callout.warn { border-color: var(--warn); background: var(--warn-soft); }
details { margin: 6px 0; } summary { cursor: pointer; color: var(--accent); }
pre.code { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px;
  overflow-x: auto; font-size: 12px; white-space: pre-wrap; }
footer { margin-top: 40px; color: var(--faint); font-size: 12px; }
@media (max-width: 900px) {
  .nav { position: static; width: auto; border-right: 0; border-bottom: 1px solid var(--line); }
  main { margin-left: 0; padding: 16px; }
}
@media print {
  .nav { display: none; } main { margin-left: 0; max-width: none; }
  .tile, .card, figure.plot { break-inside: avoid; }
}
"""

JS = """
(function () {
  var filter = document.getElementById('nav-filter');
  if (filter) filter.addEventListener('input', function () {
    var q = filter.value.trim().toLowerCase();
    document.querySelectorAll('.nav a[data-filter]').forEach(function (a) {
      a.style.display = !q || a.getAttribute('data-filter').indexOf(q) >= 0 ? '' : 'none';
    });
  });
  var links = {};
  document.querySelectorAll('.nav a[href^="#"]').forEach(function (a) {
    links[a.getAttribute('href').slice(1)] = a; });
  if ('IntersectionObserver' in window) {
    var current = null;
    var seen = new IntersectionObserver(function (entries) {
      entries.forEach(function (e) {
        if (!e.isIntersecting || !links[e.target.id]) return;
        if (current) current.classList.remove('current');
        current = links[e.target.id]; current.classList.add('current');
      });
    }, { rootMargin: '0px 0px -75% 0px' });
    document.querySelectorAll('section.section[id]').forEach(function (s) { seen.observe(s); });
  }
  function key(td) {
    var v = td.getAttribute('data-sort'); if (v === null) v = td.textContent.trim();
    var t = v.replace(/[,%<>\u2248~\\s]/g, '');
    return t !== '' && !isNaN(Number(t)) ? Number(t) : v.toLowerCase();
  }
  document.querySelectorAll('table.sortable').forEach(function (table) {
    table.querySelectorAll('th').forEach(function (th, i) {
      th.addEventListener('click', function () {
        var asc = th.getAttribute('aria-sort') !== 'ascending';
        table.querySelectorAll('th').forEach(function (o) { o.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
        var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = key(a.cells[i]), y = key(b.cells[i]);
          var c = typeof x === typeof y ? (x < y ? -1 : x > y ? 1 : 0) : typeof x === 'number' ? -1 : 1;
          return asc ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
})();
"""

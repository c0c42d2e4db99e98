// A self-contained HTML report: uPlot and its CSS inlined, the data as JSON, no network.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Report } from './model.js';

const require = createRequire(import.meta.url);

function uplotAssets(): { js: string; css: string } {
  const dist = join(dirname(require.resolve('uplot/package.json')), 'dist');
  return {
    js: readFileSync(join(dist, 'uPlot.iife.min.js'), 'utf8'),
    css: readFileSync(join(dist, 'uPlot.min.css'), 'utf8'),
  };
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON that is safe inside a <script> element. */
function scriptJson(v: unknown): string {
  return JSON.stringify(v).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

// Runs in the browser: one replicas chart and one chart per metric for each autoscaler, then the decision log.
const CLIENT = `
(function () {
  var report = JSON.parse(document.getElementById('report-data').textContent);
  var root = document.getElementById('autoscalers');
  var width = Math.max(480, Math.min(1100, root.clientWidth || 900));
  function utc(s) { return uPlot.tzDate(new Date(s * 1000), 'Etc/UTC'); }
  function el(tag, cls, text) { var e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
  // Axis ticks: 1.07G rather than 1,073,741,824 (memory in bytes).
  function short(v) { var a = Math.abs(v); return a >= 1e9 ? +(v / 1e9).toFixed(2) + 'G' : a >= 1e6 ? +(v / 1e6).toFixed(2) + 'M' : a >= 1e4 ? +(v / 1e3).toFixed(1) + 'k' : String(+v.toFixed(3)); }
  function ts(ms) { return new Date(ms).toISOString().replace('T', ' ').replace(/\\.\\d+Z$/, 'Z'); }
  report.autoscalers.forEach(function (a, idx) {
    var sec = el('section', 'autoscaler'); sec.id = 'autoscaler-' + idx;
    sec.appendChild(el('h2', null, a.name));
    var s = a.summary;
    var t = el('table', 'summary');
    [['replicas min / max', s.minReplicas + ' / ' + s.maxReplicas], ['scale events', s.scaleEvents],
     ['time above target', Math.round(s.secondsAboveTarget / 60) + ' min'], ['pod-minutes', Math.round(s.podMinutes)]]
      .forEach(function (r) { var tr = el('tr'); tr.appendChild(el('th', null, r[0])); tr.appendChild(el('td', null, String(r[1]))); t.appendChild(tr); });
    sec.appendChild(t);
    var x = a.times.map(function (ms) { return ms / 1000; });
    var c1 = el('div', 'chart replicas'); sec.appendChild(c1);
    new uPlot({ title: 'replicas', width: width, height: 260, tzDate: utc, scales: { x: { time: true } },
      series: [{}, { label: 'replicas', stroke: '#1f77b4', width: 2 }, { label: 'desired', stroke: '#ff7f0e', dash: [6, 4] },
               { label: 'ready pods', stroke: '#2ca02c' }] },
      [x, a.replicas, a.desired, a.readyPods], c1);
    a.metrics.forEach(function (m) {
      var c = el('div', 'chart metric'); sec.appendChild(c);
      new uPlot({ title: m.label, width: width, height: 220, tzDate: utc, scales: { x: { time: true } },
        axes: [{}, { values: function (u, splits) { return splits.map(short); } }],
        series: [{}, { label: 'current', stroke: '#9467bd', width: 2, spanGaps: false }, { label: 'target', stroke: '#d62728', dash: [4, 4] }] },
        [x, m.current, a.times.map(function () { return m.target; })], c);
    });
    var log = el('table', 'log');
    var head = el('tr'); head.appendChild(el('th', null, 'time')); head.appendChild(el('th', null, 'decision')); log.appendChild(head);
    a.decisions.forEach(function (d) { var tr = el('tr'); tr.appendChild(el('td', 'time', ts(d.time))); tr.appendChild(el('td', null, d.text)); log.appendChild(tr); });
    var det = el('details'); det.open = a.decisions.length <= 40; det.appendChild(el('summary', null, 'decision log (' + a.decisions.length + ')')); det.appendChild(log);
    sec.appendChild(det);
    root.appendChild(sec);
  });
})();
`;

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
h1 { font-size: 20px; margin: 0 0 4px; } .subtitle { color: #666; margin-bottom: 16px; }
section.autoscaler { border-top: 1px solid #ddd; padding-top: 12px; margin-top: 20px; }
table.summary th { text-align: left; font-weight: normal; color: #666; padding-right: 12px; }
table.log { border-collapse: collapse; font: 12px/1.3 ui-monospace, monospace; }
table.log td, table.log th { border-bottom: 1px solid #eee; padding: 2px 8px; text-align: left; vertical-align: top; }
td.time { white-space: nowrap; color: #666; }
.chart { margin: 8px 0; }
`;

export function renderHtmlReport(report: Report): string {
  const { js, css } = uplotAssets();
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(report.title)}</title>
<style>${css}</style>
<style>${STYLE}</style>
</head>
<body>
<h1>${escapeHtml(report.title)}</h1>
<div class="subtitle">${escapeHtml(report.subtitle)}</div>
<div id="autoscalers"></div>
<script id="report-data" type="application/json">${scriptJson(report)}</script>
<script>${js}</script>
<script>${CLIENT}</script>
</body>
</html>
`;
}

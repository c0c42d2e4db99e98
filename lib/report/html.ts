// A self-contained HTML report: uPlot and its CSS inlined, the data as JSON, no network.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Report } from './model.js';
import { formatAmount, unitLabel } from './units.js';

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

// Runs in the browser, with formatAmount and unitLabel (lib/report/units.ts) defined before it: the
// comparison chart when asked, then per autoscaler its summary, replicas chart (with load, min and max),
// one chart per metric and the decision log. Every chart shares one cursor.
const CLIENT = `
(function () {
  var report = JSON.parse(document.getElementById('report-data').textContent);
  var root = document.getElementById('autoscalers');
  var width = Math.max(480, Math.min(1100, root.clientWidth || 900));
  var PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22'];
  var charts = window.shpaCharts = [];
  function utc(s) { return uPlot.tzDate(new Date(s * 1000), 'Etc/UTC'); }
  function el(tag, cls, text) { var e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
  function ts(ms) { return new Date(ms).toISOString().replace('T', ' ').replace(/\\.\\d+Z$/, 'Z'); }
  function duration(s) { if (s < 60) return s + 's'; var m = Math.round(s / 60); return m < 60 ? m + 'm' : Math.floor(m / 60) + 'h' + String(m % 60).padStart(2, '0') + 'm'; }
  function amounts(unit) { return function (u, splits) { return splits.map(function (v) { return formatAmount(v, unit); }); }; }
  function legendValue(unit) { return function (u, v) { return v == null ? '-' : formatAmount(v, unit); }; }
  // Bytes tick at powers of two (256Mi, 512Mi, 1Gi), not at uPlot's decimal steps (477Mi, 954Mi).
  var BINARY_INCRS = [];
  for (var k = 0; k <= 5; k++) [1, 2, 4, 8, 16, 32, 64, 128, 256, 512].forEach(function (m) { BINARY_INCRS.push(m * Math.pow(1024, k)); });
  function valueAxis(opts, unit) { if (unit === 'bytes') opts.incrs = BINARY_INCRS; opts.values = amounts(unit); return opts; }
  function named(name, unit) { var l = unitLabel(unit); return l ? name + ' (' + l + ')' : name; }
  var stepped = uPlot.paths.stepped({ align: 1 });
  var xAxis = { label: 'time (UTC)' };
  function chart(cls, parent, title, height, opts, data) {
    var c = el('div', 'chart ' + cls); parent.appendChild(c);
    var u = new uPlot(Object.assign({ title: title, width: width, height: height, tzDate: utc,
      cursor: { sync: { key: 'shpa' }, y: false }, legend: { live: true } }, opts), data, c);
    charts.push(u);
    return u;
  }
  function constant(times, v) { return times.map(function () { return v; }); }
  function replicasAxis(label) { return { label: label, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000], values: amounts('') }; }
  function loadAxis(a) { return valueAxis({ scale: 'load', side: 1, grid: { show: false }, label: a.loadLabel }, a.loadUnit); }
  function zeroTo(top) { return function (u, min, max) { return [0, Math.max(max, top) * 1.08]; }; }
  function summaryRows(a) {
    var s = a.summary;
    return [a.name, s.lowestReplicas, s.highestReplicas, a.minReplicas, a.maxReplicas, duration(s.secondsAtMin), duration(s.secondsAtMax),
            s.scaleEvents, duration(s.secondsAboveTarget), s.podHours.toFixed(s.podHours < 10 ? 2 : 1),
            a.demand ? Math.round(s.underProvisionedReplicaMinutes) : '-'];
  }
  function summaryTable(list) {
    var t = el('table', 'summary');
    var head = el('tr');
    ['autoscaler', 'lowest', 'highest', 'minReplicas', 'maxReplicas', 'at minReplicas', 'at maxReplicas', 'scale events', 'above target', 'pod-hours', 'under-provisioned replica-min']
      .forEach(function (h) { head.appendChild(el('th', null, h)); });
    t.appendChild(head);
    list.forEach(function (a) { var tr = el('tr'); summaryRows(a).forEach(function (v) { tr.appendChild(el('td', null, String(v))); }); t.appendChild(tr); });
    return t;
  }

  if (report.compare && report.autoscalers.length > 1) {
    var first = report.autoscalers[0];
    var sec = el('section', 'compare'); sec.appendChild(el('h2', null, 'Compared on the same load'));
    sec.appendChild(summaryTable(report.autoscalers));
    var x = first.times.map(function (ms) { return ms / 1000; });
    var series = [{}, { label: named('load', first.loadUnit), scale: 'load', stroke: '#999', fill: 'rgba(150,150,150,0.12)', value: legendValue(first.loadUnit) }];
    var data = [x, first.load];
    report.autoscalers.forEach(function (a, i) {
      var color = PALETTE[i % PALETTE.length];
      series.push({ label: a.name, stroke: color, width: 2, paths: stepped, value: legendValue('') });
      series.push({ label: a.name + ' maxReplicas', stroke: color, width: 1, dash: [3, 5], value: legendValue('') });
      data.push(a.replicas, constant(a.times, a.maxReplicas));
      if (a.forecast) {
        series.push({ label: a.name + ' predictive minimum', stroke: color, width: 2, dash: [8, 4], paths: stepped, spanGaps: false, value: legendValue('') });
        data.push(a.forecast);
      }
    });
    var top = Math.max.apply(null, report.autoscalers.map(function (a) { return a.maxReplicas; }));
    chart('compare', sec, 'replicas of each autoscaler', 320,
      { scales: { x: { time: true }, y: { range: zeroTo(top) } }, axes: [xAxis, replicasAxis('replicas'), loadAxis(first)], series: series }, data);
    root.appendChild(sec);
  }

  // KEP-5679: a metric that used its fallback draws its fallback count where it was in use, and says when.
  function usedFallback(a) { return a.metrics.filter(function (m) { return m.fallback; }); }
  function fallbackSeries(a) {
    // Shaded, and wider than replicas: where the fallback count is the replica count, the two lines coincide.
    return usedFallback(a).map(function (m) { return { label: 'fallback: ' + m.name, stroke: '#8c0000', width: 4, dash: [2, 3], fill: 'rgba(140,0,0,0.12)', paths: stepped, spanGaps: false, value: legendValue('') }; });
  }
  function fallbackData(a) { return usedFallback(a).map(function (m) { return m.fallback; }); }
  function fallbackNotes(a) {
    return usedFallback(a).map(function (m) {
      var n = m.fallback.filter(function (v) { return v != null; }).length;
      var first = m.fallback.findIndex(function (v) { return v != null; });
      return 'Fallback: ' + m.name + ' could not be read and proposed its fallback count (' + m.fallback[first] + ' replicas) in ' + n + ' syncs, from ' + ts(a.times[first]) + '.';
    });
  }
  // Ours (issue 32): the predictive minimum, a gap where it does not act (not enough history, no pattern).
  function forecastSeries(a) { return a.forecast ? [{ label: 'predictive minimum', stroke: '#9467bd', width: 2, dash: [8, 4], paths: stepped, spanGaps: false, value: legendValue('') }] : []; }
  function forecastData(a) { return a.forecast ? [a.forecast] : []; }
  function forecastNote(a) {
    var n = a.forecast.filter(function (v) { return v != null; }).length;
    var first = a.forecast.findIndex(function (v) { return v != null; });
    if (n === 0) return 'Predictive minimum: never acted during the run (not enough history, or no pattern worth acting on).';
    return 'Predictive minimum: acted in ' + n + ' of ' + a.forecast.length + ' syncs, from ' + ts(a.times[first]) + ' (learned from the trace itself, as the worker learns from its own history).';
  }
  report.autoscalers.forEach(function (a, idx) {
    var sec = el('section', 'autoscaler'); sec.id = 'autoscaler-' + idx;
    sec.appendChild(el('h2', null, a.name));
    a.notes.forEach(function (n) { sec.appendChild(el('p', 'note', 'Warning: ' + n)); });
    sec.appendChild(summaryTable([a]));
    var x = a.times.map(function (ms) { return ms / 1000; });
    chart('replicas', sec, 'replicas', 300, {
      scales: { x: { time: true }, y: { range: zeroTo(a.maxReplicas) } },
      axes: [xAxis, replicasAxis('replicas'), loadAxis(a)],
      series: [{},
        { label: named('load', a.loadUnit), scale: 'load', stroke: '#aaa', fill: 'rgba(150,150,150,0.14)', spanGaps: false, value: legendValue(a.loadUnit) },
        { label: 'ready pods', stroke: '#2ca02c', fill: 'rgba(44,160,44,0.12)', paths: stepped, value: legendValue('') },
        { label: 'replicas', stroke: '#1f77b4', width: 3, paths: stepped, value: legendValue('') },
        // Drawn over replicas, dashed: visible where the two agree, distinct where they do not.
        { label: 'desired', stroke: '#ff7f0e', width: 2, dash: [7, 5], paths: stepped, value: legendValue('') },
        // With scheduled minimums, the effective minimum (stepped), else the spec's.
        { label: a.minimum ? 'minimum (schedules)' : 'minReplicas', stroke: '#555', width: a.minimum ? 2 : 1, dash: [2, 4], paths: a.minimum ? stepped : undefined, value: legendValue('') },
        { label: 'maxReplicas', stroke: '#d62728', width: 1.5, dash: [10, 4], value: legendValue('') }].concat(forecastSeries(a), fallbackSeries(a))
    }, [x, a.load, a.readyPods, a.replicas, a.desired, a.minimum || constant(a.times, a.minReplicas), constant(a.times, a.maxReplicas)].concat(forecastData(a), fallbackData(a)));
    if (a.forecast) sec.appendChild(el('p', 'forecast', forecastNote(a)));
    fallbackNotes(a).forEach(function (n) { sec.appendChild(el('p', 'fallback', n)); });
    if (a.spans && a.spans.length) {
      var spans = el('table', 'spans');
      var sh = el('tr'); ['window or pause', 'from (UTC)', 'to (UTC)'].forEach(function (h) { sh.appendChild(el('th', null, h)); }); spans.appendChild(sh);
      a.spans.forEach(function (w) { var tr = el('tr', w.kind); [w.label, ts(w.from), ts(w.to)].forEach(function (v) { tr.appendChild(el('td', null, v)); }); spans.appendChild(tr); });
      sec.appendChild(spans);
    }
    a.metrics.forEach(function (m) {
      // At zero replicas a per-pod average has no pods: the value compared with the activation threshold stands in.
      var zero = m.activation != null && m.atZero ? m.atZero : null;
      var values = m.current.concat(zero || []).concat(m.activation != null ? [m.activation] : []);
      var top = values.reduce(function (t, v) { return v == null ? t : Math.max(t, v); }, m.target);
      var series = [{}, { label: 'current', stroke: '#9467bd', width: 2, paths: stepped, spanGaps: false, value: legendValue(m.unit) },
                    { label: 'target', stroke: '#d62728', dash: [4, 4], value: legendValue(m.unit) }];
      var data = [x, m.current, constant(a.times, m.target)];
      if (zero) {
        series.push({ label: 'value at zero replicas', stroke: '#17becf', width: 2, paths: stepped, spanGaps: false, value: legendValue(m.unit) },
                    { label: 'activation threshold', stroke: '#17becf', dash: [2, 4], value: legendValue(m.unit) });
        data.push(zero, constant(a.times, m.activation));
      }
      chart('metric', sec, m.label, 220, {
        scales: { x: { time: true }, y: { range: zeroTo(top) } },
        axes: [xAxis, valueAxis({ label: named(m.name, m.unit), size: 70 }, m.unit)],
        series: series
      }, data);
    });
    var log = el('table', 'log');
    var head = el('tr');
    ['time (UTC)', 'replicas', 'type', 'reason', 'message', 'limited by', 'metrics'].forEach(function (h) { head.appendChild(el('th', null, h)); });
    log.appendChild(head);
    a.decisions.forEach(function (d) {
      var tr = el('tr', d.type === 'Warning' ? 'warning' : null);
      [[ts(d.time), 'time'], [d.from === d.to ? 'holds ' + d.to : 'scaled ' + d.from + '\\u2192' + d.to, 'replicas'], [d.type], [d.reason], [d.message], [d.limit || ''], [d.metrics, 'metrics']]
        .forEach(function (c) { tr.appendChild(el('td', c[1] || null, c[0])); });
      log.appendChild(tr);
    });
    var det = el('details'); det.open = a.decisions.length <= 60; det.appendChild(el('summary', null, 'decision log (' + a.decisions.length + ')')); det.appendChild(log);
    sec.appendChild(det);
    root.appendChild(sec);
  });
})();
`;

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
h1 { font-size: 20px; margin: 0 0 4px; } .subtitle { color: #666; margin-bottom: 16px; }
section { border-top: 1px solid #ddd; padding-top: 12px; margin-top: 20px; }
table.summary { border-collapse: collapse; margin: 8px 0; }
table.summary th, table.summary td { text-align: right; padding: 2px 10px; border-bottom: 1px solid #eee; }
table.summary th:first-child, table.summary td:first-child { text-align: left; }
table.summary th { font-weight: normal; color: #666; }
p.note { background: #fff4d6; border-left: 4px solid #e0a800; padding: 6px 10px; margin: 8px 0; }
p.forecast { background: #f3eefa; border-left: 4px solid #9467bd; padding: 6px 10px; margin: 8px 0; }
p.fallback { background: #fdecea; border-left: 4px solid #8c0000; padding: 6px 10px; margin: 8px 0; }
table.log { border-collapse: collapse; font: 12px/1.3 ui-monospace, monospace; }
table.log td, table.log th { border-bottom: 1px solid #eee; padding: 2px 8px; text-align: left; vertical-align: top; }
table.log tr.warning td { background: #fdecea; }
table.spans { border-collapse: collapse; margin: 4px 0; } table.spans td, table.spans th { padding: 2px 10px; text-align: left; }
table.spans tr.window td { background: #e8f1fb; } table.spans tr.pause td { background: #fff4d6; }
td.time, td.replicas { white-space: nowrap; } td.time { color: #666; } td.metrics { color: #555; }
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
<script>${formatAmount.toString()}\n${unitLabel.toString()}</script>
<script>${CLIENT}</script>
</body>
</html>
`;
}

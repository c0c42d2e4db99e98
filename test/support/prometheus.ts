// A real Prometheus (Debian's package) scraping the local workload model's pods, for the
// PrometheusMetric tests: demo/web's pods serve `rate` requests a second between them, as the
// counter http_requests_total. Tests skip, saying so, where the binary is missing.
import { WorkloadModel } from '../../lib/local/kubernetes/workload-model.js';
import { startPodExposition, type PodExposition } from '../../lib/local/prometheus/exposition.js';
import { findPrometheus, startPrometheus, type LocalPrometheus } from '../../lib/local/prometheus/prometheus-server.js';

export const PROMETHEUS_BIN = findPrometheus();

export function sayIfSkipped(file: string): void {
  if (!PROMETHEUS_BIN) console.log(`${file}: skipped — no prometheus binary on PATH (apt-get install prometheus, or set PROMETHEUS_BIN, to run these tests)`);
}

export interface PrometheusFixture {
  prometheus: LocalPrometheus;
  exposition: PodExposition;
  model: WorkloadModel;
  /** Sets demo/web's request rate (requests a second, over all its pods). */
  setRate(rps: number): void;
  /** An instant query straight to Prometheus (at `time`, epoch seconds): the vector's values summed (undefined: empty). */
  sum(query: string, time?: number): Promise<number | undefined>;
  stop(): Promise<void>;
}

/**
 * The rate over 10 s, not the examples' 1 m: rate() divides by the whole range, so over a series
 * seconds old a 1 m window reads low until a minute has passed.
 */
export const RATE_QUERY = 'sum(rate(http_requests_total{namespace="demo"}[10s]))';

/** Starts it all and waits until the rate query answers about `rps` (a few scrapes). */
export async function startPrometheusFixture(rps: number): Promise<PrometheusFixture> {
  const clock = { now: () => new Date() };
  const model = new WorkloadModel({ clock });
  model.addWorkload({ kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'demo', name: 'web', replicas: 3, selector: { app: 'web' }, createdAt: new Date(Date.now() - 3_600_000) });
  const exposition = await startPodExposition(model, clock);
  let rate = rps;
  exposition.serve({ namespace: 'demo', selector: { app: 'web' }, rate: () => rate });
  const prometheus = await startPrometheus({ binary: PROMETHEUS_BIN!, targets: [exposition.target] });
  const sum = async (query: string, time = Date.now() / 1000) => {
    const r = (await (await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent(query)}&time=${time}`)).json()) as { data: { result: { value: [number, string] }[] } };
    return r.data.result.length ? r.data.result.reduce((a, s) => a + Number(s.value[1]), 0) : undefined;
  };
  // Answered right even 6 s back: queries evaluated at the start of a 5 s period see the rate too.
  const until = Date.now() + 40_000;
  for (;;) {
    const v = await sum(RATE_QUERY, Date.now() / 1000 - 6);
    if (v !== undefined && Math.abs(v - rps) < rps * 0.1) break;
    if (Date.now() > until) throw new Error(`Prometheus never answered ${RATE_QUERY} ≈ ${rps} (last: ${v})`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    prometheus,
    exposition,
    model,
    setRate: (r) => void (rate = r),
    sum,
    stop: async () => {
      await prometheus.stop();
      await exposition.close();
    },
  };
}

// Per-pod metrics of the local workload model in Prometheus' text exposition format, for a real
// Prometheus to scrape: each ready pod of a workload serves its share of the workload's request
// rate as a counter, http_requests_total{namespace, pod, app}, so rate() over it answers the rate.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WorkloadModel } from '../kubernetes/workload-model.js';
import { closeServer } from '../shared/aws-json-protocol.js';

export interface RequestSource {
  namespace: string;
  /** The workload's pod labels (its selector): the pods that share the rate. */
  selector: Record<string, string>;
  /** Requests per second the workload serves at `now`. */
  rate: (now: Date) => number;
}

export interface PodExposition {
  /** host:port, as a scrape target. */
  target: string;
  /** Adds (or replaces, by namespace and selector) the request rate of a workload. */
  serve(source: RequestSource): void;
  close(): Promise<void>;
}

interface PodObject {
  metadata?: { name?: string; labels?: Record<string, string>; deletionTimestamp?: string };
  status?: { conditions?: { type?: string; status?: string }[] };
}

const isReady = (p: PodObject) => !p.metadata?.deletionTimestamp && (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
const matches = (p: PodObject, selector: Record<string, string>) => Object.entries(selector).every(([k, v]) => p.metadata?.labels?.[k] === v);
const escape = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

/** Serves GET /metrics on 127.0.0.1. Counters grow on the model's clock between scrapes. */
export async function startPodExposition(model: WorkloadModel, clock: { now(): Date } = { now: () => new Date() }): Promise<PodExposition> {
  const sources: RequestSource[] = [];
  const counters = new Map<string, number>();
  let lastMs: number | undefined;

  const render = (): string => {
    const now = clock.now();
    const dt = lastMs === undefined ? 0 : Math.max(0, (now.getTime() - lastMs) / 1000);
    lastMs = now.getTime();
    const lines = ['# HELP http_requests_total Requests served by the pod.', '# TYPE http_requests_total counter'];
    for (const s of sources) {
      const pods = (model.podObjects(s.namespace) as PodObject[]).filter((p) => matches(p, s.selector));
      const ready = pods.filter(isReady);
      const share = ready.length ? s.rate(now) / ready.length : 0;
      for (const p of pods) {
        const name = p.metadata?.name ?? '';
        const key = `${s.namespace}/${name}`;
        const total = (counters.get(key) ?? 0) + (isReady(p) ? share * dt : 0);
        counters.set(key, total);
        const labels = { namespace: s.namespace, pod: name, ...s.selector };
        lines.push(`http_requests_total{${Object.entries(labels).map(([k, v]) => `${k}="${escape(v)}"`).join(',')}} ${total}`);
      }
    }
    return `${lines.join('\n')}\n`;
  };

  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || !req.url?.startsWith('/metrics')) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(render());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    target: `127.0.0.1:${port}`,
    serve(source) {
      const same = (s: RequestSource) => s.namespace === source.namespace && JSON.stringify(s.selector) === JSON.stringify(source.selector);
      const i = sources.findIndex(same);
      if (i >= 0) sources[i] = source;
      else sources.push(source);
    },
    close: () => closeServer(server),
  };
}

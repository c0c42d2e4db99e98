// A stand-in for kube-controller-manager's HPA controller, for migrations on the local stack: every
// sync period it reads each autoscaling/v2 HorizontalPodAutoscaler from the local API server (as a
// client, over HTTPS, with the controller's User-Agent, so its writes are told apart from ours),
// computes the replica count of its cpu Utilization metrics with upstream's basic rule (ratio of
// usage to target, tolerance 0.1, min/max), writes /scale and the HPA's status. It acts on an HPA
// only while the HPA exists: deleting it stops it, as deleting an HPA stops the real controller.
// Not modelled: other metric types, behavior (stabilization windows, policies), readiness delays.
import https from 'node:https';
import { milliToBig, parseMilli } from '#hpa/api';

/** kube-controller-manager's User-Agent and the controller's name in it. */
export const HPA_CONTROLLER_USER_AGENT = 'kube-controller-manager/v1.35.0 (linux/amd64) kubernetes/local/horizontal-pod-autoscaler';

export interface StandInHpaControllerOptions {
  url: string;
  caPem: string;
  token: string;
  /** --horizontal-pod-autoscaler-sync-period; default 15 s. */
  syncPeriodMs?: number;
}

export interface StandInHpaController {
  /** One pass over every HPA (what each period runs). */
  syncAll(): Promise<void>;
  stop(): Promise<void>;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const seg = encodeURIComponent;

/** Upstream's default tolerance (--horizontal-pod-autoscaler-tolerance). */
const TOLERANCE = 0.1;

export function startStandInHpaController(o: StandInHpaControllerOptions): StandInHpaController {
  const agent = new https.Agent({ ca: o.caPem, keepAlive: true });
  const call = (method: string, path: string, body?: unknown, contentType = 'application/merge-patch+json'): Promise<{ status: number; body: unknown }> =>
    new Promise((resolve, reject) => {
      const url = new URL(path, o.url);
      const data = body === undefined ? undefined : JSON.stringify(body);
      const req = https.request(
        url,
        {
          method,
          agent,
          headers: {
            authorization: `Bearer ${o.token}`,
            accept: 'application/json',
            'user-agent': HPA_CONTROLLER_USER_AGENT,
            ...(data ? { 'content-type': contentType, 'content-length': Buffer.byteLength(data) } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const raw = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown;
            try {
              parsed = raw ? JSON.parse(raw) : undefined;
            } catch {
              parsed = raw;
            }
            resolve({ status: res.statusCode ?? 0, body: parsed });
          });
        },
      );
      req.on('error', reject);
      req.end(data);
    });

  async function syncOne(hpa: Obj): Promise<void> {
    const meta = obj(hpa.metadata);
    const ns = text(meta.namespace);
    const name = text(meta.name);
    const spec = obj(hpa.spec);
    const ref = obj(spec.scaleTargetRef);
    const group = text(ref.apiVersion).includes('/') ? text(ref.apiVersion) : 'apps/v1';
    const scalePath = `/apis/${group}/namespaces/${seg(ns)}/${text(ref.kind).toLowerCase()}s/${seg(text(ref.name))}/scale`;
    const scale = await call('GET', scalePath);
    if (scale.status !== 200) return void (await writeStatus(ns, name, hpa, 0, 0, 'FailedGetScale', `the HPA controller was unable to get the target's current scale (HTTP ${scale.status})`));
    const current = Number(obj(obj(scale.body).spec).replicas ?? 0);
    const selector = text(obj(obj(scale.body).status).selector);
    const min = typeof spec.minReplicas === 'number' ? spec.minReplicas : 1;
    const max = Number(spec.maxReplicas);
    const cpu = list(spec.metrics).map(obj).find((m) => m.type === 'Resource' && obj(m.resource).name === 'cpu' && obj(obj(m.resource).target).type === 'Utilization');
    if (!cpu) return void (await writeStatus(ns, name, hpa, current, current, 'InvalidMetricSourceType', 'the local stand-in HPA controller reads cpu Utilization metrics only'));
    const target = Number(obj(obj(cpu.resource).target).averageUtilization);
    const utilization = await cpuUtilization(ns, selector);
    let desired = current;
    let metric: Obj | undefined;
    if (utilization !== undefined && current > 0) {
      const ratio = utilization / target;
      if (Math.abs(ratio - 1) > TOLERANCE) desired = Math.ceil(ratio * current);
      metric = { type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: Math.round(utilization) } } };
    }
    desired = Math.min(max, Math.max(min, desired));
    // Re-read: an HPA deleted since the list is not acted on (the real controller's informer drops it).
    if ((await call('GET', `/apis/autoscaling/v2/namespaces/${seg(ns)}/horizontalpodautoscalers/${seg(name)}`)).status !== 200) return;
    let scaledAt: string | undefined;
    if (desired !== current) {
      const w = await call('PATCH', scalePath, { spec: { replicas: desired } });
      if (w.status === 200) scaledAt = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    }
    await writeStatus(ns, name, hpa, scaledAt ? desired : current, desired, utilization === undefined ? 'FailedGetResourceMetric' : 'ValidMetricFound', '', metric, scaledAt);
  }

  /** Average cpu utilization (%) of the selected pods: usage over requests, as upstream's GetResourceUtilizationRatio. */
  async function cpuUtilization(ns: string, selector: string): Promise<number | undefined> {
    const q = `?labelSelector=${seg(selector)}`;
    const [pods, metrics] = await Promise.all([call('GET', `/api/v1/namespaces/${seg(ns)}/pods${q}`), call('GET', `/apis/metrics.k8s.io/v1beta1/namespaces/${seg(ns)}/pods${q}`)]);
    if (pods.status !== 200 || metrics.status !== 200) return undefined;
    const requests = new Map<string, bigint>();
    for (const p of list(obj(pods.body).items).map(obj)) {
      const sum = list(obj(p.spec).containers).reduce<bigint>((s, c) => s + milliToBig(parseMilli(text(obj(obj(obj(c).resources).requests).cpu) || '0')), 0n);
      requests.set(text(obj(p.metadata).name), sum);
    }
    let used = 0n;
    let requested = 0n;
    for (const m of list(obj(metrics.body).items).map(obj)) {
      const r = requests.get(text(obj(m.metadata).name));
      if (r === undefined || r === 0n) continue;
      used += list(m.containers).reduce<bigint>((s, c) => s + milliToBig(parseMilli(text(obj(obj(c).usage).cpu) || '0')), 0n);
      requested += r;
    }
    return requested === 0n ? undefined : (Number(used) * 100) / Number(requested);
  }

  async function writeStatus(ns: string, name: string, hpa: Obj, current: number, desired: number, reason: string, message: string, metric?: Obj, scaledAt?: string): Promise<void> {
    const previous = obj(hpa.status);
    const status: Obj = {
      currentReplicas: current,
      desiredReplicas: desired,
      ...(scaledAt ?? previous.lastScaleTime ? { lastScaleTime: scaledAt ?? previous.lastScaleTime } : {}),
      currentMetrics: metric ? [metric] : null,
      conditions: [{ type: 'ScalingActive', status: reason === 'ValidMetricFound' ? 'True' : 'False', reason, message, lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') }],
    };
    await call('PATCH', `/apis/autoscaling/v2/namespaces/${seg(ns)}/horizontalpodautoscalers/${seg(name)}/status`, { status });
  }

  async function syncAll(): Promise<void> {
    const all = await call('GET', '/apis/autoscaling/v2/horizontalpodautoscalers');
    if (all.status !== 200) return;
    for (const hpa of list(obj(all.body).items).map(obj)) await syncOne(hpa).catch(() => undefined);
  }

  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    if (stopped) return;
    running = running.then(syncAll).catch(() => undefined);
  }, o.syncPeriodMs ?? 15_000);
  return {
    syncAll: () => (running = running.then(syncAll)),
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running.catch(() => undefined);
      agent.destroy();
    },
  };
}

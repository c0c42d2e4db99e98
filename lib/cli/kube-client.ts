// The user's cluster as kubectl reaches it: the kubeconfig ($KUBECONFIG or ~/.kube/config, or
// --kubeconfig), its current context or --context, and that context's namespace. JSON requests
// over HTTPS with the kubeconfig's credentials (exec plugins included), through @kubernetes/client-node.
import https from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { CliError } from './context.js';
import { errorText } from '../shared/error-text.js';

export interface KubeAnswer {
  status: number;
  body: unknown;
}

export interface KubeClient {
  /** The context's namespace, "default" when it names none. */
  namespace: string;
  request(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown, contentType?: string): Promise<KubeAnswer>;
}

export interface KubeClientOptions {
  kubeconfig?: string;
  context?: string;
}

export function connectKube(o: KubeClientOptions): KubeClient {
  const kc = new KubeConfig();
  try {
    if (o.kubeconfig) kc.loadFromFile(o.kubeconfig);
    else kc.loadFromDefault();
    if (o.context) kc.setCurrentContext(o.context);
  } catch (e) {
    throw new CliError(`cannot read the kubeconfig${o.kubeconfig ? ` ${o.kubeconfig}` : ''}: ${errorText(e)}`);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new CliError(`the kubeconfig has no cluster for context "${kc.getCurrentContext()}": set one with --context or kubectl config use-context`);
  const namespace = kc.getContextObject(kc.getCurrentContext())?.namespace ?? 'default';
  return {
    namespace,
    async request(method, path, body, contentType = 'application/merge-patch+json') {
      const opts: https.RequestOptions = { method, headers: { accept: 'application/json', 'user-agent': 'shpa' } };
      await kc.applyToHTTPSOptions(opts);
      const data = body === undefined ? undefined : JSON.stringify(body);
      if (data) opts.headers = { ...opts.headers, 'content-type': method === 'POST' ? 'application/json' : contentType, 'content-length': Buffer.byteLength(data) };
      return new Promise<KubeAnswer>((resolve, reject) => {
        const req = https.request(new URL(path, cluster.server), opts, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const raw = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = raw;
            try {
              parsed = raw ? JSON.parse(raw) : undefined;
            } catch {
              // kept as text
            }
            resolve({ status: res.statusCode ?? 0, body: parsed });
          });
        });
        req.on('error', (e) => reject(new CliError(`cannot reach the cluster at ${cluster.server}: ${e.message}`)));
        req.end(data);
      });
    },
  };
}

/** The message of a Status answer (kubectl's "Error from server"), or the HTTP status. */
export function kubeError(what: string, a: KubeAnswer): CliError {
  const message = (a.body as { message?: unknown } | undefined)?.message;
  return new CliError(`${what}: ${typeof message === 'string' ? message : `HTTP ${a.status}`}`);
}

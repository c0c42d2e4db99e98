// A kubeconfig for a running local API server, so kubectl (or any client) can
// talk to it: its URL, its CA, a bearer token.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { stringify } from 'yaml';

export interface KubeconfigOptions {
  /** the name of the cluster, user and context entries; default "shpa-local" */
  name?: string;
  /** the context's default namespace */
  namespace?: string;
  /** the bearer token; default the server's static token */
  token?: string;
}

/** What a kubeconfig needs of a server (a K8sApiServer has it). */
export interface KubeconfigTarget {
  url: string;
  /** base64 of the CA's PEM */
  caData: string;
  token: string;
}

export function kubeconfigYaml(server: KubeconfigTarget, options: KubeconfigOptions = {}): string {
  const name = options.name ?? 'shpa-local';
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: server.url, 'certificate-authority-data': server.caData } }],
    users: [{ name, user: { token: options.token ?? server.token } }],
    contexts: [{ name, context: { cluster: name, user: name, ...(options.namespace ? { namespace: options.namespace } : {}) } }],
    'current-context': name,
    preferences: {},
  });
}

/** Writes the kubeconfig (mode 0600: it holds a token), creating its folder; returns the path. */
export async function writeKubeconfig(server: KubeconfigTarget, path: string, options: KubeconfigOptions = {}): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, kubeconfigYaml(server, options), { mode: 0o600 });
  return path;
}

// examples/kubernetes/sqs-queue.yaml validates: each object is admitted by its CRD (as kubectl apply
// would have the API server check it) and passes the sync's own validation; the autoscaler reads
// the SQSQueueMetric by name in its namespace, at zero with an activation threshold; and the queue
// is one the local stack grants and serves.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { validateSQSQueueMetric, sqsQueueIdentity, type SQSQueueMetric } from '#api';
import { validateAutoscaler } from '#hpa/api';
import { admitCustomResource, formatError } from '../../lib/local/kubernetes/crd/admission.js';
import { crdManifests } from '../../lib/local/kubernetes/crd/manifests.js';

const FILE = join(import.meta.dirname, '..', '..', 'examples', 'kubernetes', 'sqs-queue.yaml');
const docs = parseAllDocuments(readFileSync(FILE, 'utf8')).map((d) => d.toJS() as { kind: string; apiVersion: string; metadata: { name: string; namespace: string }; spec: Record<string, unknown> });

describe('examples/kubernetes/sqs-queue.yaml', () => {
  it('is admitted by the CRDs, with no errors', () => {
    expect(docs.map((d) => d.kind)).toEqual(['SQSQueueMetric', 'ServerlessHorizontalPodAutoscaler']);
    for (const doc of docs) {
      const crd = Object.values(crdManifests()).find((c) => c.spec.names.kind === doc.kind);
      expect(crd, doc.kind).toBeDefined();
      expect(admitCustomResource(crd, 'v1', doc).errors.map(formatError)).toEqual([]);
    }
  });

  it('passes the sync: the SQSQueueMetric, and the autoscaler as an autoscaling/v2 HPA, scaling to zero on it with an activation threshold', () => {
    const [metric, shpa] = docs;
    const m = validateSQSQueueMetric(metric);
    expect(m.valid ? [] : m.errors).toEqual([]);
    const hpa = validateAutoscaler({ ...shpa, apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' });
    expect(hpa.valid ? [] : hpa.errors).toEqual([]);
    expect(shpa.spec).toMatchObject({ minReplicas: 0, metrics: [{ type: 'External', external: { metric: { name: metric.metadata.name }, activation: { value: expect.any(String) } } }] });
    expect(shpa.metadata.namespace).toBe(metric.metadata.namespace);
    // The local stack's SQS answers for this account and region.
    expect(sqsQueueIdentity((metric as unknown as SQSQueueMetric).spec)).toMatchObject({ region: 'us-east-1', accountId: '000000000000', name: 'orders' });
  });
});

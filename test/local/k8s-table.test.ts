// Tables as kube-apiserver builds them for kubectl: ages, printer columns, built-in kinds.
import { describe, expect, it } from 'vitest';
import { compileJsonPath, evaluate, printValue } from '../../lib/local/kubernetes/jsonpath.js';
import type { K8sObject } from '../../lib/local/kubernetes/object-store.js';
import { builtInConvertors, customResourceConvertor, humanDuration, toTable } from '../../lib/local/kubernetes/table.js';

const now = new Date('2026-01-01T12:00:00Z');
const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000).toISOString().replace('.000Z', 'Z');

describe('humanDuration (apimachinery duration.HumanDuration)', () => {
  it('prints ages as kubectl does', () => {
    const cases: [number, string][] = [
      [-1.5, '0s'],
      [-3, '<invalid>'],
      [59, '59s'],
      [119, '119s'],
      [120, '2m'],
      [150, '2m30s'],
      [600, '10m'],
      [3 * 3600 - 1, '179m'],
      [3 * 3600, '3h'],
      [7 * 3600 + 60 * 5, '7h5m'],
      [47 * 3600, '47h'],
      [50 * 3600, '2d2h'],
      [9 * 86400, '9d'],
      [800 * 86400, '2y70d'],
      [9 * 365 * 86400, '9y'],
    ];
    for (const [s, want] of cases) expect([s, humanDuration(s * 1000)]).toEqual([s, want]);
  });
});

describe('printer-column JSONPath', () => {
  const o = { metadata: { annotations: { 'a.b/c': 'x' } }, status: { conditions: [{ type: 'Ready', status: 'False' }, { type: 'Able', status: 'True' }], n: 1.5, m: { k: 1 } } };
  it('evaluates fields, escaped dots, indices and filters', () => {
    expect(evaluate(o, compileJsonPath('.status.conditions[?(@.type=="Able")].status'))).toEqual(['True']);
    expect(evaluate(o, compileJsonPath('.status.conditions[-1].type'))).toEqual(['Able']);
    expect(evaluate(o, compileJsonPath('.metadata.annotations.a\\.b/c'))).toEqual(['x']);
    expect(evaluate(o, compileJsonPath(".metadata.annotations['a.b/c']"))).toEqual(['x']);
    expect(evaluate(o, compileJsonPath('.status.missing'))).toEqual([]);
    expect(() => compileJsonPath('status.n')).toThrow(/starting with \./);
  });
  it('prints values as Go %v does', () => {
    expect([printValue(1.5), printValue(3), printValue(0.00001), printValue({ k: 1 }), printValue(true)]).toEqual(['1.5', '3', '1e-05', '{"k":1}', 'true']);
  });
});

describe('Tables', () => {
  it("converts custom resources with their CRD's printer columns, and Name first", () => {
    const conv = customResourceConvertor([
      { name: 'Reference', type: 'string', jsonPath: '.status.reference' },
      { name: 'MinPods', type: 'integer', jsonPath: '.spec.minReplicas' },
      { name: 'Ratio', type: 'number', jsonPath: '.spec.ratio', priority: 1 },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ]);
    const cr: K8sObject = { metadata: { name: 'web', creationTimestamp: ago(150) }, spec: { minReplicas: 2.7, ratio: 'x' }, status: { reference: 'Deployment/web' } };
    const table = toTable(conv, [cr], { resourceVersion: '7' }, { includeObject: 'Metadata' }, now);
    expect(table).toMatchObject({
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: '7' },
      columnDefinitions: [
        { name: 'Name', type: 'string', format: 'name' },
        { name: 'Reference', type: 'string', description: 'Custom resource definition column (in JSONPath format): .status.reference' },
        { name: 'MinPods', type: 'integer' },
        { name: 'Ratio', type: 'number', priority: 1 },
        { name: 'Age', type: 'date' },
      ],
      rows: [{ cells: ['web', 'Deployment/web', 2, null, '2m30s'], object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: cr.metadata } }],
    });
    expect(customResourceConvertor(undefined).columns.map((c) => c.name)).toEqual(['Name', 'Age']);
  });

  it('prints pods, deployments and events with the columns of kubectl', () => {
    const pod: K8sObject = {
      metadata: { name: 'web-1', creationTimestamp: ago(30), deletionTimestamp: ago(-30) },
      spec: { containers: [{ name: 'a' }, { name: 'b' }] },
      status: {
        phase: 'Running',
        podIPs: [{ ip: '10.0.0.1' }],
        containerStatuses: [
          { name: 'a', ready: true, restartCount: 1, state: { running: {} } },
          { name: 'b', ready: false, restartCount: 0, state: { waiting: { reason: 'CrashLoopBackOff' } } },
        ],
      },
    };
    expect(builtInConvertors['/pods'].cells(pod, now)).toEqual(['web-1', '1/2', 'Terminating', '1', '30s', '10.0.0.1', '<none>', '<none>', '<none>']);
    const deploy: K8sObject = {
      metadata: { name: 'web', creationTimestamp: ago(4000) },
      spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { spec: { containers: [{ name: 'app', image: 'nginx' }] } } },
      status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
    };
    expect(builtInConvertors['apps/deployments'].cells(deploy, now)).toEqual(['web', '2/3', 3, 2, '66m', 'app', 'nginx', 'app=web']);
    const event: K8sObject = {
      metadata: { name: 'web.1' },
      involvedObject: { kind: 'ServerlessHorizontalPodAutoscaler', name: 'web' },
      reason: 'SuccessfulRescale',
      type: 'Normal',
      message: ' New size: 3 ',
      source: { component: 'serverless-hpa' },
      firstTimestamp: ago(600),
      lastTimestamp: ago(60),
      count: 4,
    };
    expect(builtInConvertors['/events'].cells(event, now)).toEqual(['60s', 'Normal', 'SuccessfulRescale', 'serverlesshorizontalpodautoscaler/web', '', 'serverless-hpa', 'New size: 3', '10m', 4, 'web.1']);
    expect(builtInConvertors['/events'].columns.filter((c) => c.priority === 0).map((c) => c.name)).toEqual(['Last Seen', 'Type', 'Reason', 'Object', 'Message']);
  });
});

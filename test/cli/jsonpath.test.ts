// kubectl's -o jsonpath templates, as kubectl prints them.
import { describe, expect, it } from 'vitest';
import { jsonpathOutput } from '../../lib/cli/jsonpath.js';

const list = {
  apiVersion: 'v1',
  kind: 'List',
  items: [
    { metadata: { name: 'web', labels: { app: 'web' } }, spec: { maxReplicas: 20 } },
    { metadata: { name: 'api' }, spec: { maxReplicas: 5 } },
  ],
};

describe('-o jsonpath', () => {
  it.each([
    ['{.items[*].metadata.name}', 'web api'],
    ['{.items[0].spec.maxReplicas}', '20'],
    ['{range .items[*]}{.metadata.name}{"\\t"}{.spec.maxReplicas}{"\\n"}{end}', 'web\t20\napi\t5\n'],
    ['names: {.items[*].metadata.name}!', 'names: web api!'],
    ['{.items[?(@.spec.maxReplicas>10)].metadata.name}', 'web'],
    ['{.items[0].metadata.labels}', '{"app":"web"}'],
    ['{.items[1].metadata.labels}', ''],
    ['{..name}', 'web api'],
    ['{$.kind}', 'List'],
  ])('%s', (template, want) => expect(jsonpathOutput(template, list)).toBe(want));

  it('says what is wrong with a template', () => {
    expect(() => jsonpathOutput('{.items', list)).toThrow('jsonpath template "{.items": unclosed action at column 1: close it with "}"');
    expect(() => jsonpathOutput('{range .items[*]}{.x}', list)).toThrow('{range} without {end}');
    expect(() => jsonpathOutput('{end}', list)).toThrow('{end} without {range}');
  });
});

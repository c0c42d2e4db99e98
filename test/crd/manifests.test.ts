// The committed CRDs are what the schema modules generate, and they are structural as
// apiextensions requires.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseCel } from '@bufbuild/cel';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { JSONSchemaProps } from '../../lib/hpa/api/openapi-schema.js';
import { crdManifests, serverlessHpaCrd } from '../../lib/local/kubernetes/crd/manifests.js';
import { crdVersion } from '../../lib/local/kubernetes/crd/structural.js';
import { CRD_DIR, renderCrds } from '../../scripts/gen-crds.js';

/** Every schema node with its path. */
function nodes(s: JSONSchemaProps, path = ''): [string, JSONSchemaProps][] {
  const out: [string, JSONSchemaProps][] = [[path || '.', s]];
  for (const [k, p] of Object.entries(s.properties ?? {})) out.push(...nodes(p, `${path}.${k}`));
  if (s.items) out.push(...nodes(s.items, `${path}[]`));
  if (typeof s.additionalProperties === 'object') out.push(...nodes(s.additionalProperties, `${path}{}`));
  return out;
}

describe('infra/crds', () => {
  it.each(Object.entries(renderCrds()))('%s is what npm run crds generates', (file, text) => {
    let committed = '';
    try {
      committed = readFileSync(join(CRD_DIR, file), 'utf8');
    } catch {
      // reported below
    }
    expect(committed === text, `infra/crds/${file} differs from the schema modules: run npm run crds`).toBe(true);
    expect(parseYaml(committed)).toEqual(crdManifests()[file]);
  });

  it.each(Object.entries(crdManifests()))('%s is a structural schema with rules that parse', (_file, crd) => {
    const version = crd.spec.versions[0];
    expect(crd.metadata.name).toBe(`${crd.spec.names.plural}.${crd.spec.group}`);
    expect(crdVersion(crd, version.name).kind).toBe(crd.spec.names.kind);
    for (const [path, s] of nodes(version.schema.openAPIV3Schema)) {
      // Every field typed (x-kubernetes-int-or-string stands for integer|string).
      expect(s.type !== undefined || s['x-kubernetes-int-or-string'] === true, `${path}: no type`).toBe(true);
      if (s.type === 'array') expect(s['x-kubernetes-list-type'], `${path}: list type`).toBeDefined();
      if (s['x-kubernetes-list-type'] === 'map') {
        for (const k of s['x-kubernetes-list-map-keys'] ?? []) expect(s.items?.required, `${path}: map key ${k} must be required`).toContain(k);
      }
      for (const r of s['x-kubernetes-validations'] ?? []) {
        expect(() => parseCel(r.rule), `${path}: ${r.rule}`).not.toThrow();
        if (r.messageExpression) expect(() => parseCel(r.messageExpression!), `${path}: ${r.messageExpression}`).not.toThrow();
        // CEL cost estimation needs bounds on what a rule scans: strings it searches, lists it iterates.
        const scanned = [...r.rule.matchAll(/self(?:\.(\w+))?\.(?:contains|matches|startsWith|endsWith)\(|quantity\(self(?:\.(\w+))?\)/gi)];
        for (const [, a, b] of scanned) {
          const field = a ?? b;
          expect((field ? s.properties?.[field] : s)?.maxLength, `${path}${field ? `.${field}` : ''}: maxLength for ${r.rule}`).toBeDefined();
        }
        for (const [, list] of r.rule.matchAll(/self\.(\w+)\.(?:exists|all|filter|map)\(/g)) {
          expect(s.properties?.[list]?.maxItems, `${path}.${list}: maxItems for ${r.rule}`).toBeDefined();
        }
      }
    }
  });

  it('has the printer columns of kubectl get hpa and a status subresource', () => {
    const v = serverlessHpaCrd().spec.versions[0];
    expect(v.additionalPrinterColumns?.map((c) => [c.name.toUpperCase(), c.type, c.jsonPath])).toEqual([
      ['REFERENCE', 'string', '.status.reference'],
      ['TARGETS', 'string', '.status.targets'],
      ['MINPODS', 'integer', '.spec.minReplicas'],
      ['MAXPODS', 'integer', '.spec.maxReplicas'],
      ['REPLICAS', 'integer', '.status.currentReplicas'],
      ['AGE', 'date', '.metadata.creationTimestamp'],
    ]);
    expect(v.subresources).toEqual({ status: {} });
    expect(serverlessHpaCrd().spec.names.shortNames).toEqual(['shpa']);
  });
});

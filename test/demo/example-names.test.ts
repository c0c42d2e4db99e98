// Each example folder applies as a whole (kubectl apply -f examples/kubernetes/, shpa apply -f a folder):
// no two objects of one kind and namespace share a name, and no two autoscalers share a target.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const root = join(import.meta.dirname, '..', '..', 'examples');
const folders = [root, ...readdirSync(root).map((d) => join(root, d)).filter((p) => statSync(p).isDirectory())];

interface Doc {
  kind?: string;
  metadata?: { name?: string; namespace?: string };
  spec?: { scaleTargetRef?: { kind?: string; name?: string } };
}

describe('example folders', () => {
  it.each(folders.map((f) => [f.slice(root.length) || '/', f]))('%s: unique names and one autoscaler per target', (_, folder) => {
    const docs = readdirSync(folder)
      .filter((f) => f.endsWith('.yaml'))
      .flatMap((f) => parseAllDocuments(readFileSync(join(folder, f), 'utf8')).map((d) => ({ file: f, doc: d.toJS() as Doc | null })))
      .filter((d): d is { file: string; doc: Doc } => d.doc !== null && typeof d.doc === 'object');
    const seen = new Map<string, string>();
    const targets = new Map<string, string>();
    const twice: string[] = [];
    const autoscaler = (k?: string) => k === 'HorizontalPodAutoscaler' || k === 'ServerlessHorizontalPodAutoscaler';
    for (const { file, doc } of docs) {
      const ns = doc.metadata?.namespace ?? 'default';
      const key = `${autoscaler(doc.kind) ? 'autoscaler' : doc.kind} ${ns}/${doc.metadata?.name}`;
      if (seen.has(key)) twice.push(`${key} in ${seen.get(key)} and ${file}`);
      seen.set(key, file);
      const ref = doc.spec?.scaleTargetRef;
      if (autoscaler(doc.kind) && ref) {
        const t = `${ns}/${ref.kind}/${ref.name}`;
        // examples/migrate is the one folder whose point is two autoscalers of one target (one in dry-run).
        if (targets.has(t) && !folder.endsWith('migrate')) twice.push(`target ${t} in ${targets.get(t)} and ${file}`);
        targets.set(t, file);
      }
    }
    expect(twice).toEqual([]);
  });
});

import { describe as group, expect, it } from 'vitest';
import { describe } from '../../lib/cli/describe.js';
import type { MinReplicaSchedule } from '../../lib/hpa/types.js';
import { autoscaler } from '../hpa/drive.js';

const record = (annotations: Record<string, string> | undefined, schedules?: MinReplicaSchedule[]) => ({
  namespace: 'shop',
  name: 'web',
  hpa: autoscaler({ min: 2, annotations, schedules }),
  history: { recommendations: null, scaleUpEvents: [], scaleDownEvents: [] },
  createdAt: '2026-11-01T00:00:00.000Z',
});
const rows = (text: string, label: string) => {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.startsWith(label));
  if (at < 0) return [];
  const column = lines[0].indexOf('web');
  const out = [lines[at].slice(column)];
  for (let i = at + 1; i < lines.length && lines[i].startsWith(' '.repeat(column)); i++) out.push(lines[i].slice(column));
  return out;
};

group('shpa describe: pause and schedules', () => {
  const now = new Date('2026-11-26T08:30:00Z');
  const windows = [
    { name: 'day', minReplicas: 10, timezone: 'Europe/Berlin', start: '0 9 * * 1-5', end: '0 18 * * 1-5' },
    { name: 'night', minReplicas: 3, start: '0 22 * * *', end: '0 6 * * *' },
  ];
  it.each<{ name: string; annotations?: Record<string, string>; windows?: MinReplicaSchedule[]; paused: unknown[]; schedules: string[] }>([
    {
      name: 'a pause in force, one expired, one malformed',
      annotations: { 'shpa.dev/pause-scale-down': '2026-11-26T18:00:00Z', 'shpa.dev/pause-scale-up': '2026-11-26T08:00:00Z', 'shpa.dev/pause': 'soon' },
      paused: [
        'scale down paused until 2026-11-26T18:00:00Z (shpa.dev/pause-scale-down)',
        'scale up pause expired at 2026-11-26T08:00:00Z (shpa.dev/pause-scale-up)',
        expect.stringMatching(/^metadata\.annotations\[shpa\.dev\/pause\]: "soon" ignored: must be "true"/),
      ],
      schedules: [],
    },
    {
      name: 'an open window and the next one',
      annotations: undefined,
      windows,
      paused: [],
      schedules: [
        'day: minReplicas 10, 0 9 * * 1-5 → 0 18 * * 1-5 (Europe/Berlin), open until 2026-11-26T17:00:00Z',
        'night: minReplicas 3, 0 22 * * * → 0 6 * * * (UTC), next opens at 2026-11-26T22:00:00Z',
        'effective minimum now: 10 (window day)',
      ],
    },
    { name: 'neither: no line of ours', annotations: { note: 'x' }, paused: [], schedules: [] },
  ])('$name', (c) => {
    const text = describe(record(c.annotations, c.windows), 'prod', now);
    expect(rows(text, 'Paused:')).toEqual(c.paused);
    expect(rows(text, 'Schedules:')).toEqual(c.schedules);
  });
});

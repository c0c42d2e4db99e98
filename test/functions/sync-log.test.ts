// The log lines of a cycle: secrets never reach them, and the Logs Insights queries read fields they have.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionLine } from '../../functions/sync-log.js';
import { logSampleCycle, missingFields, report } from './log-lines.js';

const TOKEN = 'k8s-aws-v1.aHR0cHM6Ly9zdHMuYW1hem9uYXdzLmNvbS8_QWN0aW9uPUdldENhbGxlcklkZW50aXR5';
const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW0ifQ.c2lnbmF0dXJl';

describe('decision line', () => {
  it('redacts tokens and signatures wherever an error message carries them', () => {
    const line = decisionLine(
      report({
        outcome: 'failed',
        errors: [
          { stage: 'updateScale', message: `Unauthorized: token ${TOKEN} rejected` },
          // A message quoting JSON: the token ends right before an escaped quote once serialized.
          { stage: 'updateScale', message: `request failed: {"headers":{"authorization":"Bearer ${JWT}"}}` },
          { stage: 'saveState', message: 'GET https://sts.amazonaws.com/?X-Amz-Credential=AKIDEXAMPLE%2F20260302&X-Amz-Signature=deadbeef01 failed' },
        ],
      }),
      '2026-03-02T10:00:00.000Z',
    );
    const text = JSON.stringify(line);
    for (const secret of [TOKEN.slice('k8s-aws-v1.'.length), JWT, 'AKIDEXAMPLE', 'deadbeef01']) expect(text).not.toContain(secret);
    const messages = (line.errors as { message: string }[]).map((e) => e.message);
    expect(messages[0]).toBe('Unauthorized: token k8s-aws-v1…[redacted] rejected');
    expect(messages[1]).toMatch(/^request failed: \{"headers":\{"authorization":"Bearer…\[redacted\]"\}\}$/);
    expect(messages[2]).toContain('X-Amz-Credential…[redacted]&X-Amz-Signature…[redacted] failed');
  });
});

describe('Logs Insights queries', () => {
  const dir = join(import.meta.dirname, '../../infra/logs-insights');

  it('read fields that the cycle and decision lines have', () => {
    const lines = logSampleCycle({ autoscalerMetrics: false });
    expect(lines.filter((l) => l.message === 'decision')).toHaveLength(2);

    const queries = readdirSync(dir).filter((f) => f.endsWith('.query'));
    expect(queries.length).toBeGreaterThanOrEqual(4);
    for (const file of queries) expect(missingFields(readFileSync(join(dir, file), 'utf8'), lines), file).toEqual([]);
  });
});

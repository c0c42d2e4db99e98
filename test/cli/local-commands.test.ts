// The commands typed into `shpa local up`: a workload's load, and a CloudWatch value that the local
// CloudWatch then serves to GetMetricData through the real SDK client.
import { CloudWatchClient, GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { command } from '../../lib/cli/local.js';
import { startLocalCloudWatch, type LocalCloudWatch } from '../../lib/local/cloudwatch/server.js';

let cloudWatch: LocalCloudWatch;
const loads: [string, string, number][] = [];
const up = () => ({ cloudWatch, setLoad: (ns: string, name: string, load: number) => void loads.push([ns, name, load]) });

beforeAll(async () => {
  cloudWatch = await startLocalCloudWatch({ clock: () => Date.now(), ingestDelaySeconds: 0 });
});
afterAll(async () => {
  await cloudWatch?.close();
});

describe('shpa local up commands', () => {
  it('metric NAMESPACE NAME DIMENSION=VALUE VALUE feeds the local CloudWatch a datapoint a minute', async () => {
    expect(command(up(), 'metric AWS/SQS ApproximateNumberOfMessagesVisible QueueName=jobs 120'.split(' '))).toBe(
      'CloudWatch AWS/SQS ApproximateNumberOfMessagesVisible QueueName=jobs is now 120, a datapoint a minute',
    );
    const client = new CloudWatchClient({ endpoint: cloudWatch.url, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    const end = new Date(Math.floor(Date.now() / 60_000) * 60_000);
    const r = await client.send(
      new GetMetricDataCommand({
        StartTime: new Date(end.getTime() - 300_000),
        EndTime: end,
        MetricDataQueries: [
          { Id: 'q', MetricStat: { Metric: { Namespace: 'AWS/SQS', MetricName: 'ApproximateNumberOfMessagesVisible', Dimensions: [{ Name: 'QueueName', Value: 'jobs' }] }, Period: 60, Stat: 'Average' } },
        ],
      }),
    );
    expect(r.MetricDataResults?.[0].Values?.length).toBeGreaterThan(0);
    expect(new Set(r.MetricDataResults?.[0].Values)).toEqual(new Set([120]));
  });

  it('load NAME FACTOR sets a load; anything else says what the commands take', () => {
    expect(command(up(), ['load', 'web', '4'])).toBe('load of demo/web is now 4');
    expect(loads).toEqual([['demo', 'web', 4]]);
    expect(() => command(up(), ['metric', 'AWS/SQS', 'Depth', 'QueueName', '12'])).toThrow(/^metric takes NAMESPACE NAME \[DIMENSION=VALUE \.\.\.\] VALUE, a number last/);
    expect(() => command(up(), ['metric', 'AWS/SQS', 'Depth', 'many'])).toThrow(/a number last/);
    expect(() => command(up(), ['scale', 'web'])).toThrow(/^type "load NAME FACTOR"/);
  });
});

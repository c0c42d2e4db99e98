// Every AWS price `shpa cost` uses, in one place: us-east-1, Lambda on arm64 (serverless.yml),
// list prices without free tiers or savings plans, as published on the day below. To update,
// change the figures and `takenOn` together, and keep each source.

export interface Price {
  usd: number;
  /** What one `usd` buys. */
  per: string;
  source: string;
}

export interface Prices {
  takenOn: string;
  region: string;
  architecture: string;
  lambda: { requests: Price; duration: Price };
  sqs: { requests: Price };
  dynamodb: { writeRequestUnits: Price; readRequestUnits: Price; storage: Price };
  cloudWatch: { getMetricData: Price; logIngestion: Price; logStorage: Price; customMetrics: Price; alarms: Price; dashboards: Price };
  amp: { querySamples: Price };
}

export const PRICES: Prices = {
  takenOn: '2026-11-24',
  region: 'us-east-1',
  architecture: 'arm64',
  lambda: {
    requests: { usd: 0.2, per: '1,000,000 requests', source: 'https://aws.amazon.com/lambda/pricing/' },
    // Arm, first tier (first 7.5 billion GB-seconds a month).
    duration: { usd: 0.0000133334, per: 'GB-second', source: 'https://aws.amazon.com/lambda/pricing/' },
  },
  sqs: {
    // Standard queue, first 100 billion requests a month; each 64 KB chunk of a payload is one request.
    requests: { usd: 0.4, per: '1,000,000 requests', source: 'https://aws.amazon.com/sqs/pricing/' },
  },
  dynamodb: {
    // On-demand, after the 50 % cut of 1 November 2024 (was $1.25 and $0.25): see the AWS News Blog post, updated 31 January 2025,
    // https://aws.amazon.com/blogs/aws/amazon-dynamodb-on-demand-no-capacity-planning-and-pay-per-request-pricing/
    writeRequestUnits: { usd: 0.625, per: '1,000,000 write request units', source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/' },
    readRequestUnits: { usd: 0.125, per: '1,000,000 read request units', source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/' },
    // Standard table class; the first 25 GB a month are free (not applied here).
    storage: { usd: 0.25, per: 'GB-month', source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/' },
  },
  cloudWatch: {
    getMetricData: { usd: 0.01, per: '1,000 metrics requested', source: 'https://aws.amazon.com/cloudwatch/pricing/' },
    // Logs, Standard log class.
    logIngestion: { usd: 0.5, per: 'GB ingested', source: 'https://aws.amazon.com/cloudwatch/pricing/' },
    logStorage: { usd: 0.03, per: 'GB-month archived (compressed)', source: 'https://aws.amazon.com/cloudwatch/pricing/' },
    // First 10,000 metrics a month. "All custom metrics charges are prorated by the hour and metered only when you
    // send metrics to CloudWatch" (the pricing page); the CloudWatch User Guide says the same of custom and embedded
    // (EMF) metrics: https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/cloudwatch_billing.html
    customMetrics: { usd: 0.3, per: 'metric-month', source: 'https://aws.amazon.com/cloudwatch/pricing/' },
    // Standard resolution, prorated by the hour; a metric-math alarm is billed per metric it reads (same User Guide page).
    alarms: { usd: 0.1, per: 'alarm metric-month', source: 'https://aws.amazon.com/cloudwatch/pricing/' },
    // The first 3 dashboards (up to 50 metrics each) are free (not applied here).
    dashboards: { usd: 3, per: 'dashboard-month', source: 'https://aws.amazon.com/cloudwatch/pricing/' },
  },
  amp: {
    // Amazon Managed Service for Prometheus bills a query by the samples it processes (QSP), whoever asks.
    querySamples: { usd: 0.1, per: '1,000,000,000 query samples processed', source: 'https://aws.amazon.com/prometheus/pricing/' },
  },
};

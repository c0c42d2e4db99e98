// CloudWatch's statistic grammar (GetMetricData MetricStat.Stat): the five basic
// statistics, percentiles and the extended statistics of "CloudWatch statistics definitions".

const BASIC = new Set(['SampleCount', 'Average', 'Sum', 'Minimum', 'Maximum', 'IQM']);
// At most 10 decimal places, as CloudWatch documents for extended statistic bounds.
const NUMBER = '\\d+(?:\\.\\d{1,10})?';
const SHORT = new RegExp(`^(p|tm|wm|tc|ts)(${NUMBER})$`);
const RANGE = new RegExp(`^(TM|WM|TC|TS|PR)\\((${NUMBER}%?)?:(${NUMBER}%?)?\\)$`);

/** Why a statistic is not one CloudWatch accepts, or undefined when it is. */
export function statisticProblem(stat: string): string | undefined {
  if (BASIC.has(stat)) return undefined;
  const short = SHORT.exec(stat);
  if (short) {
    const v = Number(short[2]);
    return v <= 100 ? undefined : `${short[1]}${short[2]}: the percentage must be between 0 and 100`;
  }
  const range = RANGE.exec(stat);
  if (!range) {
    return 'must be SampleCount, Average, Sum, Minimum, Maximum, IQM, pNN, tmNN, wmNN, tcNN, tsNN or TM/WM/TC/TS/PR(lower:upper)';
  }
  const [, fn, lo, hi] = range;
  if (lo === undefined && hi === undefined) return `${fn}(:) needs at least one bound`;
  const bounds = [lo, hi].filter((b): b is string => b !== undefined);
  const percent = bounds.map((b) => b.endsWith('%'));
  if (percent.some((p) => p !== percent[0])) return 'both bounds must be percentages or both absolute values';
  if (fn === 'PR' && percent[0]) return 'PR bounds are absolute values, not percentages';
  const values = bounds.map((b) => Number(b.replace('%', '')));
  if (percent[0] && values.some((v) => v > 100)) return 'percentages must be between 0 and 100';
  if (lo !== undefined && hi !== undefined && values[0] >= values[1]) return 'the lower bound must be less than the upper bound';
  return undefined;
}

// A CloudWatch float as a Kubernetes quantity, the way external metrics adapters do it:
// resource.NewMilliQuantity(int64(value*1000), DecimalSI), i.e. milli precision,
// truncated toward zero (Go's float-to-int conversion). A value whose milli-value does not
// fit an int64 has no quantity (Go's conversion would overflow silently): it is refused.
import { formatMilli } from '#hpa/api';
import type { QuantityString } from '#hpa';

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

/** The quantity of `value` and its milli-value, or why it has none (a phrase: "is not a finite number"). */
export function floatToMilliQuantity(value: number): { quantity: QuantityString; milli: bigint } | { problem: string } {
  if (!Number.isFinite(value)) return { problem: 'is not a finite number' };
  const scaled = Math.trunc(value * 1000);
  const milli = Number.isFinite(scaled) ? BigInt(scaled) : undefined;
  if (milli === undefined || milli > INT64_MAX || milli < INT64_MIN) {
    return { problem: `is ${value}, beyond what a Kubernetes quantity holds (int64 milli-units, at most ±9223372036854775.807)` };
  }
  return { quantity: formatMilli(milli), milli };
}

// A CloudWatch float as a Kubernetes quantity, the way external metrics adapters do it:
// resource.NewMilliQuantity(int64(value*1000), DecimalSI), i.e. milli precision,
// truncated toward zero (Go's float-to-int conversion), saturated at the int64 limits.
import { formatMilli } from '../hpa/quantity.js';
import type { QuantityString } from '../hpa/types.js';

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

/** undefined for NaN and infinities, which have no quantity. */
export function floatToMilliQuantity(value: number): QuantityString | undefined {
  if (!Number.isFinite(value)) return undefined;
  const milli = Math.trunc(value * 1000);
  if (!Number.isFinite(milli)) return formatMilli(milli > 0 ? INT64_MAX : INT64_MIN);
  const m = BigInt(milli);
  return formatMilli(m > INT64_MAX ? INT64_MAX : m < INT64_MIN ? INT64_MIN : m);
}

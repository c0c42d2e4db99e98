// Kubernetes resource.Quantity: parse, MilliValue (rounds up, saturates at int64), format.
// CONTRACT (owned by the replica-calculator helper): keep these exports and signatures.
import type { QuantityString } from './types.js';

export class QuantityError extends Error {
  override readonly name = 'QuantityError';
  constructor(
    readonly input: string,
    message: string,
  ) {
    super(message);
  }
}

/** An exact decimal: value = unscaled × 10^(-scale). */
export interface Quantity {
  readonly unscaled: bigint;
  readonly scale: number;
}

/** Throws QuantityError naming the input when it is not a valid quantity. */
export function parseQuantity(input: string): Quantity {
  throw new QuantityError(input, 'not implemented');
}

/** Upstream Quantity.MilliValue(): ceil(value × 1000), saturated at the int64 limits. */
export function milliValue(q: Quantity): bigint {
  throw new Error('not implemented');
}

/** Upstream AsApproximateFloat64. */
export function toFloat(q: Quantity): number {
  throw new Error('not implemented');
}

/** -1, 0 or 1. */
export function sign(q: Quantity): number {
  throw new Error('not implemented');
}

/** resource.NewMilliQuantity(milli, DecimalSI).String(), e.g. 1500n -> "1500m", 2000n -> "2". */
export function formatMilli(milli: bigint): QuantityString {
  throw new Error('not implemented');
}

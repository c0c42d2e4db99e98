// Kubernetes resource.Quantity: parse, MilliValue (rounds up, saturates at int64), format.
// Follows k8s.io/apimachinery/pkg/api/resource (quantity.go, amount.go, suffix.go).
import type { QuantityString } from '../types.js';

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

export const INT64_MAX = 9223372036854775807n;
export const INT64_MIN = -9223372036854775808n;
export const INT32_MAX = 2147483647;
export const INT32_MIN = -2147483648;

/** Upstream int64 overflow handling replaced by saturation at the int64 limits. */
export function saturateInt64(v: bigint): bigint {
  return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : v;
}

// Upstream error texts (ErrFormatWrong, ErrSuffix, ErrNumeric).
const FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const SUFFIX_WRONG = "unable to parse quantity's suffix";

const enum Format {
  DecimalSI,
  BinarySI,
  DecimalExponent,
}

interface Suffix {
  base: 2 | 10;
  exponent: number;
  format: Format;
}

const SUFFIXES = new Map<string, Suffix>([
  ['', { base: 10, exponent: 0, format: Format.DecimalSI }],
  ['n', { base: 10, exponent: -9, format: Format.DecimalSI }],
  ['u', { base: 10, exponent: -6, format: Format.DecimalSI }],
  ['m', { base: 10, exponent: -3, format: Format.DecimalSI }],
  ['k', { base: 10, exponent: 3, format: Format.DecimalSI }],
  ['M', { base: 10, exponent: 6, format: Format.DecimalSI }],
  ['G', { base: 10, exponent: 9, format: Format.DecimalSI }],
  ['T', { base: 10, exponent: 12, format: Format.DecimalSI }],
  ['P', { base: 10, exponent: 15, format: Format.DecimalSI }],
  ['E', { base: 10, exponent: 18, format: Format.DecimalSI }],
  ['Ki', { base: 2, exponent: 10, format: Format.BinarySI }],
  ['Mi', { base: 2, exponent: 20, format: Format.BinarySI }],
  ['Gi', { base: 2, exponent: 30, format: Format.BinarySI }],
  ['Ti', { base: 2, exponent: 40, format: Format.BinarySI }],
  ['Pi', { base: 2, exponent: 50, format: Format.BinarySI }],
  ['Ei', { base: 2, exponent: 60, format: Format.BinarySI }],
]);

const SUFFIX_CHARS = 'eEinumkKMGTP';
const EXPONENT_FORM = /^[eE]([+-]?\d+)$/;

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** suffixer.interpret: a named suffix, or the decimal exponent form e<int>/E<int>. */
function interpretSuffix(s: string): Suffix | undefined {
  const named = SUFFIXES.get(s);
  if (named) return named;
  const m = EXPONENT_FORM.exec(s);
  if (!m) return undefined;
  const exponent = Number(m[1]);
  // strconv.ParseInt(…, 64) rejects what does not fit an int64.
  if (!Number.isFinite(exponent) || BigInt(m[1]) > INT64_MAX || BigInt(m[1]) < INT64_MIN) return undefined;
  return { base: 10, exponent, format: Format.DecimalExponent };
}

const BIG_TEN = 10n;
const pow10Cache: bigint[] = [];
export function bigPow10(n: number): bigint {
  if (n < 64) {
    let v = pow10Cache[n];
    if (v === undefined) {
      v = BIG_TEN ** BigInt(n);
      pow10Cache[n] = v;
    }
    return v;
  }
  return BIG_TEN ** BigInt(n);
}

function abs(v: bigint): bigint {
  return v < 0n ? -v : v;
}

/** Divides by 10^n rounding away from zero (inf.RoundUp). */
function divPow10Up(v: bigint, n: number): bigint {
  const d = bigPow10(n);
  const q = v / d;
  if (q * d === v) return q;
  return v < 0n ? q - 1n : q + 1n;
}

/** Absolute values above this are capped by ParseQuantity (maxAllowed = 2^63-1 units). */
const MAX_ALLOWED = INT64_MAX;
const NANO_SCALE = 9;

/** Throws QuantityError naming the input when it is not a valid quantity. */
export function parseQuantity(input: string): Quantity {
  if (input.length === 0) throw new QuantityError(input, `invalid quantity "": ${FORMAT_WRONG}`);
  const end = input.length;
  let pos = 0;
  let positive = true;
  const first = input.charCodeAt(0);
  if (first === 45 /* - */) {
    positive = false;
    pos++;
  } else if (first === 43 /* + */) {
    pos++;
  }
  // Leading zeros are dropped; an all-zero or empty numerator reads as "0" (upstream parseQuantityString).
  while (pos < end && input.charCodeAt(pos) === 48) pos++;
  const numStart = pos;
  while (pos < end && isDigit(input.charCodeAt(pos))) pos++;
  let num = input.slice(numStart, pos);
  if (num.length === 0) num = '0';
  let denom = '';
  if (pos < end && input.charCodeAt(pos) === 46 /* . */) {
    pos++;
    const denomStart = pos;
    while (pos < end && isDigit(input.charCodeAt(pos))) pos++;
    denom = input.slice(denomStart, pos);
  }
  const suffixStart = pos;
  while (pos < end && SUFFIX_CHARS.includes(input[pos])) pos++;
  if (pos < end && (input[pos] === '-' || input[pos] === '+')) pos++;
  while (pos < end && isDigit(input.charCodeAt(pos))) pos++;
  if (pos < end) throw new QuantityError(input, `invalid quantity "${input}": ${FORMAT_WRONG}`);
  const suffix = interpretSuffix(input.slice(suffixStart));
  if (!suffix) throw new QuantityError(input, `invalid quantity "${input}": ${SUFFIX_WRONG}`);

  const digits = BigInt(num + denom);
  const signed = positive ? digits : -digits;

  // Upstream's int64 fast path keeps the parsed digits as they are (int64Amount).
  let precision: number;
  let mantissa = 1n;
  let fastScale: number; // value = digits × mantissa × 10^fastScale
  if (suffix.format === Format.BinarySI) {
    fastScale = -denom.length;
    if (suffix.exponent >= 0 && denom.length === 0) {
      mantissa = 1n << BigInt(suffix.exponent);
      precision = 15 - num.length - Math.trunc(Math.fround((suffix.exponent * 3) / 10)) - 1;
    } else {
      precision = -1;
    }
  } else {
    fastScale = suffix.exponent - denom.length;
    precision = 18 - (num.length + denom.length);
  }
  if (precision >= 0 && fastScale >= -NANO_SCALE) {
    const result = signed * mantissa;
    if (digits <= INT64_MAX && abs(result) <= INT64_MAX) return { unscaled: result, scale: fastScale === 0 ? 0 : -fastScale };
  }

  // Otherwise an exact decimal (inf.Dec): rounded away from zero to nano, capped at ±(2^63-1).
  let unscaled: bigint;
  let scale: number;
  if (suffix.base === 2) {
    unscaled = signed << BigInt(suffix.exponent);
    scale = denom.length;
  } else {
    unscaled = signed;
    scale = denom.length - suffix.exponent;
  }
  if (unscaled === 0n) return { unscaled: 0n, scale: 0 };
  const magnitude = abs(unscaled);
  // Magnitudes far beyond the cap are decided by digit count alone (no giant powers of ten).
  const intDigits = magnitude.toString().length - scale;
  if (intDigits > 20) return { unscaled: positive ? MAX_ALLOWED : -MAX_ALLOWED, scale: 0 };
  let rounded: bigint;
  if (scale > NANO_SCALE) {
    const shift = scale - NANO_SCALE;
    rounded = shift > magnitude.toString().length + 1 ? 1n : divPow10Up(magnitude, shift);
  } else {
    rounded = magnitude * bigPow10(NANO_SCALE - scale);
  }
  if (rounded > MAX_ALLOWED * bigPow10(NANO_SCALE)) return { unscaled: positive ? MAX_ALLOWED : -MAX_ALLOWED, scale: 0 };
  return { unscaled: positive ? rounded : -rounded, scale: NANO_SCALE };
}

/**
 * A milli value: a plain number while it is a safe integer (the fast path), with the exact
 * bigint alongside only when it is not.
 */
export interface Milli {
  readonly n: number;
  readonly big?: bigint;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
export const MILLI_ZERO: Milli = { n: 0 };

export function milliFromBig(v: bigint): Milli {
  return v <= MAX_SAFE && v >= -MAX_SAFE ? { n: Number(v) } : { n: Number(v), big: v };
}

export function milliToBig(m: Milli): bigint {
  return m.big ?? BigInt(m.n);
}

/** An exact running total of milli values: number arithmetic while it stays a safe integer. */
export class MilliTotal {
  private n = 0;
  private big: bigint | undefined;

  add(m: Milli): void {
    if (this.big === undefined && m.big === undefined) {
      const t = this.n + m.n;
      if (Number.isSafeInteger(t)) {
        this.n = t;
        return;
      }
    }
    this.big = this.exact + milliToBig(m);
  }

  get exact(): bigint {
    return this.big ?? BigInt(this.n);
  }

  /** The total, saturated at the int64 limits where upstream's int64 sums would overflow. */
  get saturated(): Milli {
    return this.big === undefined ? { n: this.n } : milliFromBig(saturateInt64(this.big));
  }
}

const milliCache = new Map<string, Milli>();
const MILLI_CACHE_LIMIT = 4096;

/** milliValue(parseQuantity(s)) as a Milli, memoized: the same request/usage strings recur on every pod. */
export function parseMilli(input: string): Milli {
  let v = milliCache.get(input);
  if (v === undefined) {
    v = milliFromBig(milliValue(parseQuantity(input)));
    if (milliCache.size >= MILLI_CACHE_LIMIT) milliCache.clear();
    milliCache.set(input, v);
  }
  return v;
}

/**
 * Upstream Quantity.MilliValue(): value × 1000 rounded up to an integer (away from zero,
 * as int64Amount's negativeScaleInt64 does), saturated at the int64 limits where upstream
 * would overflow.
 */
export function milliValue(q: Quantity): bigint {
  const shift = q.scale - 3;
  if (shift <= 0) return saturateInt64(q.unscaled * bigPow10(-shift));
  return saturateInt64(divPow10Up(q.unscaled, shift));
}

// math.Pow10: exact table entries combined as Go does.
const POW10_TAB = Array.from({ length: 32 }, (_, i) => Number(`1e${i}`));
const POW10_POST32 = Array.from({ length: 10 }, (_, i) => Number(`1e${i * 32}`));
function goPow10(n: number): number {
  if (n >= 0 && n <= 308) return POW10_TAB[n % 32] * POW10_POST32[Math.floor(n / 32)];
  if (n < 0 && n >= -323) return 1 / (POW10_TAB[-n % 32] * POW10_POST32[Math.floor(-n / 32)]);
  return n > 0 ? Infinity : 0;
}

/** Upstream AsApproximateFloat64. */
export function toFloat(q: Quantity): number {
  const base = Number(q.unscaled);
  if (q.scale === 0) return base;
  return base * goPow10(-q.scale);
}

/** -1, 0 or 1. */
export function sign(q: Quantity): number {
  return q.unscaled > 0n ? 1 : q.unscaled < 0n ? -1 : 0;
}

const SI_SUFFIX: Record<number, string> = { [-3]: 'm', 0: '', 3: 'k', 6: 'M', 9: 'G', 12: 'T', 15: 'P', 18: 'E' };

/** resource.NewMilliQuantity(milli, DecimalSI).String(), e.g. 1500n -> "1500m", 2000n -> "2". */
export function formatMilli(milli: bigint): QuantityString {
  if (milli === 0n) return '0';
  // int64Amount.AsCanonicalBytes: strip factors of ten, then align the exponent down to a multiple of 3.
  const text = milli.toString();
  let end = text.length;
  while (end > 1 && text.charCodeAt(end - 1) === 48) end--;
  let exponent = -3 + (text.length - end);
  let digits = text.slice(0, end);
  const r = ((exponent % 3) + 3) % 3;
  if (r !== 0) {
    digits += r === 1 ? '0' : '00';
    exponent -= r;
  }
  return digits + SI_SUFFIX[exponent];
}

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatMilli, INT64_MAX, INT64_MIN, milliValue, parseMilli, parseQuantity, QuantityError, sign, toFloat } from '../../lib/hpa/api/quantity.js';

const milli = (s: string) => milliValue(parseQuantity(s));

describe('parseQuantity + milliValue', () => {
  it.each([
    ['100m', 100n],
    ['1', 1000n],
    ['0', 0n],
    ['1.5', 1500n],
    ['.5', 500n],
    ['1.', 1000n],
    ['+5', 5000n],
    ['007', 7000n],
    ['-1', -1000n],
    ['10k', 10_000_000n],
    ['1M', 1_000_000_000n],
    ['1G', 1_000_000_000_000n],
    ['1Ki', 1_024_000n],
    ['1.5Gi', 1_610_612_736_000n],
    ['1Mi', 1_048_576_000n],
    ['1e3', 1_000_000n],
    ['1E3', 1_000_000n],
    ['1.5e-3', 2n], // 1.5m rounds up
    ['2e+2', 200_000n],
    ['1n', 1n], // rounds up to 1m
    ['1u', 1n],
    ['999u', 1n],
    ['1001u', 2n],
    ['-1500u', -2n], // away from zero, as int64Amount
    ['1.G', 1_000_000_000_000n],
    ['9223372036854775807m', INT64_MAX],
  ])('%s -> %s milli', (input, expected) => {
    expect(milli(input)).toBe(expected);
  });

  it('saturates at the int64 limits instead of overflowing', () => {
    expect(milli('9223372036854775808m')).toBe(INT64_MAX);
    expect(milli('1E')).toBe(INT64_MAX);
    expect(milli('1e40')).toBe(INT64_MAX);
    expect(milli('-10E')).toBe(INT64_MIN);
    expect(milli('12345678901234567890')).toBe(INT64_MAX);
  });

  it('caps parsed values at 2^63-1 units and rounds beyond nano up, as ParseQuantity', () => {
    expect(parseQuantity('12345678901234567890')).toEqual({ unscaled: INT64_MAX, scale: 0 });
    // The int64 fast path keeps small mantissas with any exponent, uncapped.
    expect(parseQuantity('10E')).toEqual({ unscaled: 10n, scale: -18 });
    expect(parseQuantity('1e-40')).toEqual({ unscaled: 1n, scale: 9 });
    expect(parseQuantity('-1e-40')).toEqual({ unscaled: -1n, scale: 9 });
  });

  it('reads upstream oddities of the grammar as zero', () => {
    for (const s of ['-', '+', '.', '0000', 'k', 'e3']) expect(milli(s)).toBe(0n);
  });

  it.each([
    ['', 'quantities must match the regular expression'],
    [' 1', 'quantities must match the regular expression'],
    ['1 ', 'quantities must match the regular expression'],
    ['abc', 'quantities must match the regular expression'],
    ['1..2', 'quantities must match the regular expression'],
    ['1ki', "unable to parse quantity's suffix"],
    ['1m5', "unable to parse quantity's suffix"],
    ['1e', "unable to parse quantity's suffix"],
    ['--1', "unable to parse quantity's suffix"],
  ])('rejects %j', (input, text) => {
    let caught: unknown;
    try {
      parseQuantity(input);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(QuantityError);
    expect((caught as QuantityError).input).toBe(input);
    expect((caught as QuantityError).message).toContain(`invalid quantity ${JSON.stringify(input)}`);
    expect((caught as QuantityError).message).toContain(text);
  });

  it('parseMilli memoizes the same value', () => {
    expect(parseMilli('250m')).toEqual({ n: 250 });
    expect(parseMilli('9223372036854775807m')).toEqual({ n: Number(INT64_MAX), big: INT64_MAX });
  });
});

describe('toFloat and sign', () => {
  it.each([
    ['100m', 0.1],
    ['0.05', 0.05],
    ['1.5Gi', 1610612736],
    ['10k', 10000],
    ['-2', -2],
  ])('%s ~ %s', (input, expected) => {
    expect(toFloat(parseQuantity(input))).toBe(expected);
  });

  it('signs', () => {
    expect(sign(parseQuantity('-1m'))).toBe(-1);
    expect(sign(parseQuantity('0'))).toBe(0);
    expect(sign(parseQuantity('3Ki'))).toBe(1);
  });
});

describe('formatMilli (NewMilliQuantity(v, DecimalSI).String())', () => {
  it.each([
    [0n, '0'],
    [1n, '1m'],
    [1500n, '1500m'],
    [2000n, '2'],
    [10_000_000n, '10k'],
    [100_000n, '100'],
    [1_000_000n, '1k'],
    [123_456_789n, '123456789m'],
    [-1500n, '-1500m'],
    [-3000n, '-3'],
    [2_415_919_104_000n, '2415919104'],
    [9_000_000_000_000_000_000n, '9P'],
    [INT64_MAX, '9223372036854775807m'],
    [INT64_MIN, '-9223372036854775808m'],
  ])('%s -> %s', (value, text) => {
    expect(formatMilli(value)).toBe(text);
  });

  it('round-trips any int64 milli value', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: INT64_MIN, max: INT64_MAX }), (v) => {
        expect(milli(formatMilli(v))).toBe(v);
      }),
    );
  });

  it('milliValue never lies below the exact value (rounds up for positives)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.integer({ min: 0, max: 9 }), (digits, decimals) => {
        const text = decimals === 0 ? `${digits}` : `${digits / 10n ** BigInt(decimals)}.${(digits % 10n ** BigInt(decimals)).toString().padStart(decimals, '0')}`;
        const m = milli(text);
        // m/1000 >= digits/10^decimals and (m-1)/1000 < digits/10^decimals
        expect(m * 10n ** BigInt(decimals) >= digits * 1000n).toBe(true);
        expect((m - 1n) * 10n ** BigInt(decimals) < digits * 1000n).toBe(true);
      }),
    );
  });
});

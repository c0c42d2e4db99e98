// The Kubernetes CEL quantity library (apiserver pkg/cel/library/quantity.go) for @bufbuild/cel:
// quantity(string), isQuantity(string), and the methods sign, compareTo, isGreaterThan, isLessThan.
// A Quantity is an opaque CEL map whose parsed value only these functions can see.
import { celFunc, celMap, celMethod, CelScalar, mapType, type CelFunc, type CelValue } from '@bufbuild/cel';
import { bigPow10, parseQuantity, type Quantity, QUANTITY_FORMAT_MESSAGE, QuantityError, sign } from '#hpa/api';

const QUANTITY = mapType(CelScalar.STRING, CelScalar.DYN);
const parsed = new WeakMap<object, Quantity>();

function toCel(q: Quantity): CelValue {
  const value = celMap(new Map());
  parsed.set(value, q);
  return value;
}

function of(v: CelValue): Quantity {
  const q = typeof v === 'object' && v !== null ? parsed.get(v) : undefined;
  // cel-go's wording, which apiextensions recognizes.
  if (!q) throw new Error('no such overload');
  return q;
}

function compare(a: Quantity, b: Quantity): number {
  const scale = Math.max(a.scale, b.scale);
  const x = a.unscaled * bigPow10(scale - a.scale);
  const y = b.unscaled * bigPow10(scale - b.scale);
  return x < y ? -1 : x > y ? 1 : 0;
}

function parse(s: string): Quantity {
  try {
    return parseQuantity(s);
  } catch (e) {
    if (e instanceof QuantityError) throw new Error(QUANTITY_FORMAT_MESSAGE);
    throw e;
  }
}

export const quantityLibrary: CelFunc[] = [
  celFunc('quantity', [CelScalar.STRING], QUANTITY, (s) => toCel(parse(s)) as never),
  celFunc('isQuantity', [CelScalar.STRING], CelScalar.BOOL, (s) => {
    try {
      parseQuantity(s);
      return true;
    } catch (e) {
      if (e instanceof QuantityError) return false;
      throw e;
    }
  }),
  celMethod('sign', QUANTITY, [], CelScalar.INT, function () {
    return BigInt(sign(of(this)));
  }),
  celMethod('compareTo', QUANTITY, [QUANTITY], CelScalar.INT, function (other) {
    return BigInt(compare(of(this), of(other)));
  }),
  celMethod('isGreaterThan', QUANTITY, [QUANTITY], CelScalar.BOOL, function (other) {
    return compare(of(this), of(other)) > 0;
  }),
  celMethod('isLessThan', QUANTITY, [QUANTITY], CelScalar.BOOL, function (other) {
    return compare(of(this), of(other)) < 0;
  }),
];

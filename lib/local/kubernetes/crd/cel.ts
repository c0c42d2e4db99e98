// x-kubernetes-validations of a custom resource, as apiextensions-apiserver's schema/cel
// Validator runs them: each rule with `self` (and `oldSelf` for transition rules, on update),
// message/messageExpression, fieldPath and reason, ratcheting of unchanged values; evaluated
// with @bufbuild/cel plus the Kubernetes quantity library and the strings extension.
// Not done: compile-time type checking and cost estimation (a CRD the API server would refuse
// for them is not refused here).
import { celEnv, isCelError, parse, plan, type CelError, type CelInput } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import type { JSONSchemaProps, ValidationRule } from '#hpa/api';
import { quantityLibrary } from './cel-quantity.js';
import { fieldSchema, oldField, oldItem, unchanged } from './correlation.js';
import { at, child, duplicate, forbidden, index, invalid, key, required, type AdmissionError } from './field-errors.js';
import { normalizeFieldPath } from './structural.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const env = celEnv({ funcs: [...strings, ...quantityLibrary] });
/** celconfig.MaxEvaluatedMessageExpressionSizeBytes */
const MAX_MESSAGE_BYTES = 5 * 1024;

type Program = (vars: Record<string, CelInput>) => unknown;

interface Compiled {
  run?: Program;
  usesOldSelf: boolean;
  error?: string;
}

// Programs by expression text: the same rule on many nodes (and many CRD objects) is planned once.
const programs = new Map<string, Compiled>();

function compile(expr: string): Compiled {
  let c = programs.get(expr);
  if (!c) {
    try {
      const parsed = parse(expr);
      c = { run: plan(env, parsed), usesOldSelf: mentionsOldSelf(parsed) };
    } catch (e) {
      c = { usesOldSelf: false, error: e instanceof Error ? e.message : String(e) };
    }
    programs.set(expr, c);
  }
  return c;
}

function mentionsOldSelf(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(mentionsOldSelf);
  if (!isObj(node)) return false;
  if (node.case === 'identExpr' && isObj(node.value) && node.value.name === 'oldSelf') return true;
  return Object.values(node).some(mentionsOldSelf);
}

/** A JSON value as CEL sees it under its schema: integers are ints, objects maps. */
function toCel(v: unknown, s: JSONSchemaProps | undefined): CelInput {
  if (typeof v === 'number') return Number.isInteger(v) && s?.type !== 'number' ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map((item) => toCel(item, s?.items));
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, val]) => [k, toCel(val, fieldSchema(s, k))]));
  return v as CelInput;
}

/** At the resource root, `self` sees apiVersion, kind and only metadata.name and generateName. */
function rootSelf(v: Obj, s: JSONSchemaProps): CelInput {
  const meta = isObj(v.metadata) ? v.metadata : {};
  const shown = Object.fromEntries(['name', 'generateName'].filter((k) => typeof meta[k] === 'string').map((k) => [k, meta[k]]));
  return toCel({ ...v, metadata: shown }, s);
}

/** A correlated pair for ratcheting: the new value, its old one and its schema. */
interface Correlated {
  value: unknown;
  old: unknown;
  schema: JSONSchemaProps | undefined;
}

interface Ratchet {
  current?: Correlated;
  parent?: Correlated;
}

const hasRulesCache = new WeakMap<JSONSchemaProps, boolean>();

function hasRules(s: JSONSchemaProps | undefined): boolean {
  if (!s) return false;
  let has = hasRulesCache.get(s);
  if (has === undefined) {
    has =
      (s['x-kubernetes-validations']?.length ?? 0) > 0 ||
      hasRules(s.items) ||
      Object.values(s.properties ?? {}).some(hasRules) ||
      (typeof s.additionalProperties === 'object' && hasRules(s.additionalProperties));
    hasRulesCache.set(s, has);
  }
  return has;
}

/** Runs every rule of the schema over the resource; `old` on update. */
export function validateRules(obj: Obj, s: JSONSchemaProps, old?: Obj): AdmissionError[] {
  const errs: AdmissionError[] = [];
  const ratchet: Ratchet = old !== undefined ? { current: { value: obj, old, schema: s } } : {};
  walk(errs, obj, s, '', old, ratchet, true);
  return errs;
}

function walk(errs: AdmissionError[], v: unknown, s: JSONSchemaProps, path: string, old: unknown, ratchet: Ratchet, root = false): void {
  if (v === null || v === undefined || !hasRules(s)) return;
  runRules(errs, v, s, path, old, ratchet, root);
  if (Array.isArray(v) && s.items) {
    v.forEach((item, i) => {
      const oldV = oldItem(old, item, s);
      walk(errs, item, s.items!, index(path, i), oldV, step(ratchet, item, oldV, s.items!));
    });
  } else if (isObj(v)) {
    for (const [k, val] of Object.entries(v)) {
      const prop = s.properties?.[k];
      const sub = prop ?? fieldSchema(s, k);
      if (!sub) continue;
      const oldV = oldField(old, v, k, s);
      // apiVersion and kind of the resource are never ratcheted.
      const r = root && ratchet.parent === undefined && (k === 'apiVersion' || k === 'kind') ? {} : step(ratchet, val, oldV, sub);
      walk(errs, val, sub, prop ? child(path, k) : key(path, k), oldV, r);
    }
  }
}

// ratchetingOptions.key/index: an uncorrelated child keeps the nearest correlated ancestor.
function step(r: Ratchet, value: unknown, old: unknown, schema: JSONSchemaProps): Ratchet {
  if (!r.current) return r;
  return { current: old === undefined ? undefined : { value, old, schema }, parent: r.current };
}

function shouldRatchet(r: Ratchet): boolean {
  const c = r.current ?? r.parent;
  return c !== undefined && unchanged(c.value, c.old, c.schema);
}

function runRules(errs: AdmissionError[], v: unknown, s: JSONSchemaProps, path: string, old: unknown, ratchet: Ratchet, root: boolean): void {
  const rules = s['x-kubernetes-validations'] ?? [];
  if (rules.length === 0) return;
  const typeName = s.type ?? '';
  const self = root && isObj(v) ? rootSelf(v, s) : toCel(v, s);
  const vars: Record<string, CelInput> = { self };
  if (old !== undefined && old !== null) vars.oldSelf = root && isObj(old) ? rootSelf(old, s) : toCel(old, s);
  for (const r of rules) {
    const c = compile(r.rule);
    if (!c.run) {
      errs.push(invalid(at(path), typeName, `rule compile error: ${c.error}`));
      continue;
    }
    if (c.usesOldSelf && vars.oldSelf === undefined) continue;
    const result = c.run(vars);
    if (result === true) continue;
    if (isCelError(result)) {
      errs.push(invalid(at(path), typeName, evaluationError(result, r)));
      continue;
    }
    // A failed rule on an unchanged value is a warning only; transition rules are never ratcheted.
    if (!c.usesOldSelf && shouldRatchet(ratchet)) continue;
    const field = r.fieldPath ? child(path, normalizeFieldPath(r.fieldPath, s)) : path;
    const detail = (r.messageExpression && messageOf(compile(r.messageExpression).run?.(vars))) || ruleMessage(r);
    // Rules on objects and lists show no value (field.OmitValueType).
    errs.push(errorFor(at(field), s.type === 'object' || s.type === 'array' ? undefined : v, detail, r.reason));
  }
}

function errorFor(field: string, value: unknown, detail: string, reason: ValidationRule['reason']): AdmissionError {
  switch (reason) {
    case 'FieldValueForbidden':
      return forbidden(field, detail);
    case 'FieldValueRequired':
      return required(field, detail);
    case 'FieldValueDuplicate':
      return duplicate(field, value);
    default:
      return invalid(field, value, detail);
  }
}

const ruleText = (r: ValidationRule): string => (r.message ? r.message.trim() : r.rule.trim());
const ruleMessage = (r: ValidationRule): string => (r.message ? r.message.trim() : `failed rule: ${ruleText(r)}`);

// cel-go's texts, which apiextensions matches on.
function evaluationError(e: CelError, r: ValidationRule): string {
  const text = e.message.replace(/^found no matching overload for /, 'no such overload: ').replace(/^field not found: /, 'no such key: ');
  if (text.startsWith('no such overload')) {
    return `'${text}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText(r)}`;
  }
  return `${text} evaluating rule: ${ruleText(r)}`;
}

/** evalMessageExpression: a trimmed, non-empty, one-line string of at most 5 KiB, or undefined (then the message is used). */
function messageOf(result: unknown): string | undefined {
  if (typeof result !== 'string') return undefined;
  const text = result.trim();
  if (text.length === 0 || /\n/.test(text) || Buffer.byteLength(text) > MAX_MESSAGE_BYTES) return undefined;
  return text;
}

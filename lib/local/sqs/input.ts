// Checks of the fields of SQS requests, with the errors SQS answers for bad ones.
import { sqsErrors } from './errors.js';
import type { WireMessageAttribute } from './md5.js';

export type Input = Record<string, unknown>;

// Characters SQS accepts in a body or string attribute.
const INVALID_CHARACTER = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

const invalid = sqsErrors.invalidParameterValue;

export function requiredString(input: Input, name: string): string {
  const v = input[name];
  if (typeof v !== 'string' || v === '') throw sqsErrors.missingParameter(`The request must contain the parameter ${name}.`);
  return v;
}

export function optionalString(input: Input, name: string): string | undefined {
  const v = input[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalid(`Value ${JSON.stringify(v)} for parameter ${name} is invalid. Reason: must be a string.`);
  return v;
}

export function optionalStringList(input: Input, name: string): string[] | undefined {
  const v = input[name];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw invalid(`Value ${JSON.stringify(v)} for parameter ${name} is invalid. Reason: must be a list of strings.`);
  return v;
}

export function optionalInt(input: Input, name: string, min: number, max: number, reason = `Must be between ${min} and ${max}.`): number | undefined {
  const v = input[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw invalid(`Value ${JSON.stringify(v)} for parameter ${name} is invalid. Reason: ${reason}`);
  }
  return v;
}

export function stringMap(v: unknown, name: string): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v) || !Object.values(v).every((x) => typeof x === 'string')) {
    throw invalid(`Value for parameter ${name} is invalid. Reason: must map attribute names to strings.`);
  }
  return v as Record<string, string>;
}

export function checkCharacters(text: string, where: string): void {
  const bad = INVALID_CHARACTER.exec(text);
  if (bad) {
    const code = bad[0].codePointAt(0)!.toString(16).toUpperCase();
    throw sqsErrors.invalidMessageContents(
      `Invalid binary character '#x${code}' was found in ${where}, the set of allowed characters is #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF`,
    );
  }
}

export function checkMessageAttributes(v: unknown): Record<string, WireMessageAttribute> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw invalid('MessageAttributes must map attribute names to {DataType, StringValue | BinaryValue}.');
  const entries = Object.entries(v as Record<string, Input>);
  if (entries.length > 10) throw invalid(`Number of message attributes [${entries.length}] exceeds the allowed maximum [10].`);
  const out: Record<string, WireMessageAttribute> = {};
  for (const [name, a] of entries) {
    if (!/^[A-Za-z0-9_.-]{1,256}$/.test(name) || /^(aws|amazon)\./i.test(name) || name.startsWith('.') || name.endsWith('.') || name.includes('..')) {
      throw invalid(`Message (user) attribute name '${name}' is invalid: use 1 to 256 letters, digits, '_', '-' and '.', not starting with AWS. or Amazon.`);
    }
    const type = a?.DataType;
    if (typeof type !== 'string' || !/^(String|Number|Binary)(\..+)?$/.test(type)) {
      throw invalid(`The type of message (user) attribute '${name}' is invalid. You must use only the following supported type prefixes: Binary, Number, String.`);
    }
    const binary = type.startsWith('Binary');
    const value = binary ? a.BinaryValue : a.StringValue;
    if (typeof value !== 'string' || value === '') {
      throw invalid(`Message (user) attribute '${name}' must contain a non-empty value of type '${binary ? 'Binary' : 'String'}'.`);
    }
    if (type.startsWith('Number') && !Number.isFinite(Number(value))) throw invalid(`Can't cast the value of message (user) attribute '${name}' to a number.`);
    if (!binary) checkCharacters(value, `message attribute '${name}'`);
    out[name] = binary ? { DataType: type, BinaryValue: value } : { DataType: type, StringValue: value };
  }
  return out;
}

// What SQS accepts as a MessageGroupId, on a FIFO queue or (fair queues) a standard one.
const MESSAGE_GROUP_ID = /^[A-Za-z0-9!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]{1,128}$/;

/** The message's group (its tenant on a standard queue), checked as SQS checks it. */
export function messageGroupIdOf(input: Input): string | undefined {
  const id = optionalString(input, 'MessageGroupId');
  if (id !== undefined && !MESSAGE_GROUP_ID.test(id)) {
    throw invalid(`Value ${id} for parameter MessageGroupId is invalid. Reason: MessageGroupId can only include alphanumeric and punctuation characters. 1 to 128 in length.`);
  }
  return id;
}

export function traceHeaderOf(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  const entries = Object.entries(v as Record<string, Input>);
  const [name, a] = entries[0] ?? [];
  if (entries.length !== 1 || name !== 'AWSTraceHeader' || a?.DataType !== 'String' || typeof a.StringValue !== 'string') {
    throw invalid('MessageSystemAttributes may only hold AWSTraceHeader, a String.');
  }
  return a.StringValue;
}

/** Body and message attributes (names, types and values) count toward the size limit. */
export function messageSize(input: Input): number {
  let n = Buffer.byteLength(typeof input.MessageBody === 'string' ? input.MessageBody : '');
  const attributes = input.MessageAttributes;
  if (attributes && typeof attributes === 'object') {
    for (const [name, a] of Object.entries(attributes as Record<string, WireMessageAttribute>)) {
      n += Buffer.byteLength(name) + Buffer.byteLength(String(a?.DataType ?? ''));
      n += a?.BinaryValue !== undefined ? Buffer.from(String(a.BinaryValue), 'base64').length : Buffer.byteLength(String(a?.StringValue ?? ''));
    }
  }
  return n;
}

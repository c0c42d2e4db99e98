// The digests SQS returns with messages (the SDK checks MD5OfBody and MD5OfMessageBody).
import { createHash } from 'node:crypto';

/** A message attribute as it travels in AWS JSON (BinaryValue in base64). */
export interface WireMessageAttribute {
  DataType: string;
  StringValue?: string;
  BinaryValue?: string;
}

export function md5Hex(data: string | Buffer): string {
  return createHash('md5').update(data).digest('hex');
}

/**
 * SQS's MD5OfMessageAttributes: over the attributes sorted by name, each as
 * length-prefixed (4-byte big-endian) name and data type, a transport byte
 * (1 string or number, 2 binary), then the length-prefixed value.
 */
export function md5OfMessageAttributes(attributes: Record<string, WireMessageAttribute>): string {
  const parts: Buffer[] = [];
  const field = (b: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(b.length);
    parts.push(len, b);
  };
  for (const name of Object.keys(attributes).sort()) {
    const a = attributes[name];
    field(Buffer.from(name, 'utf8'));
    field(Buffer.from(a.DataType, 'utf8'));
    const binary = a.DataType.startsWith('Binary');
    parts.push(Buffer.from([binary ? 2 : 1]));
    field(binary ? Buffer.from(a.BinaryValue ?? '', 'base64') : Buffer.from(a.StringValue ?? '', 'utf8'));
  }
  return md5Hex(Buffer.concat(parts));
}

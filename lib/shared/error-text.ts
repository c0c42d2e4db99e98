// What a caught value says, for our own messages (never a remote answer's body: see lib/api/redact.ts).

/** The message of an Error, or the value as text. */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The same, prefixed with the error's class when it has one of its own ("ThrottlingException: Rate exceeded"). */
export function namedErrorText(e: unknown): string {
  if (e instanceof Error) return e.name && e.name !== 'Error' ? `${e.name}: ${e.message}` : e.message;
  return String(e);
}

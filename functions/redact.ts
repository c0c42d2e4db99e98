// The redaction of logs lives with the pure modules (lib/api/redact.ts): status and events use it too.
export { redact, redactAll } from '#api';

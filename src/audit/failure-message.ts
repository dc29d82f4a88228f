/**
 * Why a call failed, as the audit log keeps it: the failure's message and its first field issue,
 * with what looks like a credential taken out, capped. The gateway article's advice is to read
 * the log for failure patterns and tune tool descriptions; the error code alone does not say
 * which field models get wrong or what an upstream answered.
 *
 * Messages can quote what a tool or upstream returned, which may echo a token, so redaction is
 * deliberately broad: a value after a secret-named key (`api_key=`, `"token": "..."`,
 * `Authorization: Bearer ...`) and any long unbroken run of token characters.
 */

import type { ErrorEnvelope } from "../errors/error-envelope.ts";
import { MAX_ERROR_MESSAGE_CHARS } from "./audit-record.ts";
import { REDACTED, redactSecretsInText } from "./redact-secrets.ts";

// `name=value`, `name: value` for secret-sounding names, in URLs, headers and prose.
const SECRET_ASSIGNMENT =
  /\b([\w-]*(?:token|password|passwd|secret|api[_-]?key|apikey|authorization|auth|credential|signature|sig)[\w-]*)(\s*[=:]\s*)(?:bearer\s+|basic\s+)?("[^"]*"|'[^']*'|[^\s&,;"'}]+)/gi;
const BEARER = /\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi;
// 32+ characters of token alphabet with a digit in them: keys, JWTs, signatures, hashes.
const LONG_TOKEN = /\b(?=[A-Za-z0-9._~+/=-]*\d)[A-Za-z0-9._~+/=-]{32,}/g;
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

/** The message of a failed call's envelope, for the audit row; null when the call did not fail. */
export function failureMessageOf(envelope: ErrorEnvelope | undefined): string | null {
  if (envelope === undefined) return null;
  const issue = envelope.issues?.[0];
  // The pipeline's INVALID_ARGUMENTS message already lists its issues; others may not.
  const listed = issue === undefined || envelope.error.includes(issue.message);
  return sanitizeMessage(listed ? envelope.error : `${envelope.error} [${issue.path === "" ? "arguments" : issue.path}: ${issue.message}]`);
}

/** `text` with credentials redacted, control characters and runs of whitespace squeezed, capped. */
export function sanitizeMessage(text: string): string {
  const cleaned = redactSecretsInText(text)
    .replace(SECRET_ASSIGNMENT, (_match, name: string, separator: string) => `${name}${separator}${REDACTED}`)
    .replace(BEARER, (_match, scheme: string) => `${scheme} ${REDACTED}`)
    .replace(LONG_TOKEN, REDACTED)
    .replace(CONTROL, " ")
    .replace(/\s+/g, " ")
    .trim();
  return cleaned.length <= MAX_ERROR_MESSAGE_CHARS ? cleaned : `${cleaned.slice(0, MAX_ERROR_MESSAGE_CHARS - 1)}…`;
}

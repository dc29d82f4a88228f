/**
 * The audit keeps at most MAX_ARGUMENT_BYTES of a call's arguments, but redacting, sorting and
 * hashing them walked every character first: a 10 MiB write_file held the isolate about half a
 * second per record (measured in Node 22, issue 27). The redaction walk (redact-secrets.ts)
 * replaces each string far longer than the record keeps by its start, its length and a digest of
 * the whole (native SHA-256, tens of milliseconds for 10 MiB), so the record still tells two
 * such calls apart, and the approvals page shows no 10 MiB value either.
 */
import type * as NodeCrypto from "node:crypto";

/** Strings longer than this are shortened; well past the record's own 4 KiB cap. */
export const LONG_STRING_CHARS = 8_192;
/** How much of a shortened string's start the record keeps. */
const KEPT_CHARS = 256;

/** `text` itself, or, past LONG_STRING_CHARS, its start, its length and a digest of the whole. */
export function shortenLongString(text: string): string {
  return text.length <= LONG_STRING_CHARS ? text : shortened(text);
}

function shortened(text: string): string {
  // Loaded here, not imported: an import of node:crypto makes workerd evaluate its Node crypto,
  // stream and zlib polyfills at every isolate's start-up (issue 33), for a digest only strings
  // over LONG_STRING_CHARS need. getBuiltinModule is synchronous, as this walk is.
  const { createHash } = process.getBuiltinModule("node:crypto") as typeof NodeCrypto;
  const digest = createHash("sha256").update(text).digest("hex");
  return `${text.slice(0, KEPT_CHARS)}… [${text.length} characters in all, sha256 ${digest}]`;
}

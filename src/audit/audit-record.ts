/**
 * One audit record per tool call, whatever its outcome. This zod schema is the shape's single
 * source: the type, the check the queue consumer runs on every message body (a message is
 * data from outside this request, and a bad one must not poison a D1 batch), and the limits
 * that keep one record far below a queue message's 128 KB.
 */
import { z } from "zod";
import { CREDENTIAL_KINDS } from "../registry/credential-kind.ts";

/**
 * How a call ended, for the audit log.
 * - `ok`, `error`: ran (or failed) normally; RATE_LIMITED is an `error` with that error code,
 *   so one status filter (`error`) finds every failure and `error_code` narrows it.
 * - `blocked`: PERMISSION_DENIED at stage `policy` or `pre_hook` (a rule or hook said no).
 * - `timed_out`: TOOL_TIMEOUT (the call's or the batch's deadline, or the tool's own upstream).
 * - `pending_approval`, `approved`, `denied`, `expired`: the approvals layer's; `approved` is a
 *   call that ran successfully after an approval (a failure after approval keeps its failure
 *   status, with `approvalId` set). Each decision is on exactly one record: the run of an
 *   approved call, or the `denied` / `expired` record, with `decision` saying who, when, why.
 */
export const AUDIT_STATUSES = ["ok", "error", "blocked", "timed_out", "pending_approval", "approved", "denied", "expired"] as const;
export type AuditStatus = (typeof AUDIT_STATUSES)[number];

/** Statuses counted as errors in stats: the call was allowed and failed. */
export const FAILED_STATUSES: readonly AuditStatus[] = ["error", "timed_out"];

/** Arguments are kept up to this many bytes of JSON; longer ones become a marked preview. */
export const MAX_ARGUMENT_BYTES = 4096;
/** Coercions kept per record; `coercionCount` has the full number. */
export const MAX_RECORDED_COERCIONS = 20;
/** Identifiers that come from the model (tool names, call ids) are clipped to this length. */
export const MAX_ID_CHARS = 256;
/** An approver's reason is kept up to this many characters. */
export const MAX_REASON_CHARS = 1000;
/** A failed call's message (with its first field issue) is kept up to this many characters. */
export const MAX_ERROR_MESSAGE_CHARS = 500;
/** A request id is at most this long (src/tracing/request-id.ts keeps only such ids). */
export const MAX_REQUEST_ID_CHARS = 128;
/** A record's `rid` is a JavaScript-safe integer, so D1 returns it exactly. */
export const MAX_RID = Number.MAX_SAFE_INTEGER;

/**
 * Lazy: only the audit queue's consumer parses records (audit-candidate.ts), while the call path
 * imports this file for its types and limits at every isolate's start-up (issue 33).
 */
export const AuditRecordSchema = z.lazy(() => {
  const id = z.string().max(MAX_ID_CHARS);
  const count = z.number().int().nonnegative();
  return z.object({
    /** When the call ended, epoch ms. */
    at: count,
    /**
     * 53 random bits made once per call. With `at` it is the primary key (audit-table.ts), so a
     * redelivered record is skipped and two records of one millisecond both stay.
     */
    rid: count.max(MAX_RID),
    keyId: id,
    sessionId: id,
    /** The agent run the call was part of (migration 0007); absent for calls a client sent itself. */
    runId: id.nullable().optional(),
    /** The alias a curated endpoint (`/mcp/{toolset}`) was called by; `tool` is always the real name. */
    calledAs: id.nullable().optional(),
    toolCallId: id,
    tool: id,
    toolset: id.nullable(),
    /** Canonical JSON of the redacted arguments, or a `{"$truncated":true,...}` preview of it. */
    arguments: z.string().max(MAX_ARGUMENT_BYTES),
    argumentsTruncated: z.boolean(),
    /**
     * SHA-256 (hex) of the canonical JSON of the whole redacted arguments, before the size cap;
     * empty when `arguments` holds that whole text, which then determines it (arguments-hash.ts).
     */
    argumentsSha256: z.string().regex(/^(?:[0-9a-f]{64})?$/),
    coercions: z.array(z.object({ path: id, from: id, to: id })).max(MAX_RECORDED_COERCIONS),
    coercionCount: count,
    policyDecision: z.string().max(64).nullable(),
    policyRule: id.nullable(),
    approvalId: id.nullable(),
    status: z.enum(AUDIT_STATUSES),
    errorCode: z.string().max(64).nullable(),
    /** Why a failed call failed: its message, secrets redacted, then its first field issue; null on success. */
    errorMessage: z.string().max(MAX_ERROR_MESSAGE_CHARS).nullable(),
    attempts: count,
    durationMs: count,
    /** Characters of the full result (before any size limit); 0 for calls that did not run. */
    resultChars: count,
    /** Whether the model got a cut result (the full text is behind a read_result handle). */
    truncated: z.boolean(),
    /** The x-request-id of the request that made the call (a webhook run: its delivery's); null on records from before it was kept. */
    requestId: z.string().max(MAX_REQUEST_ID_CHARS).nullable(),
    /**
     * The credential the call carried upstream (src/registry/credential-kind.ts): its kind, never
     * its value; null when it carried none. Absent on records made before it was kept.
     */
    credential: z.enum(CREDENTIAL_KINDS).nullable().optional(),
    /** A person's decision about the call (approvals layer): who (key id; null when it expired), when, scope, reason. */
    decision: z
      .object({ by: id.nullable(), at: count, scope: z.enum(["once", "session"]).nullable(), reason: z.string().max(MAX_REASON_CHARS).nullable() })
      .optional(),
  });
});

export type AuditRecord = z.infer<typeof AuditRecordSchema>;

/**
 * A fresh `rid`: 53 bits of Math.random. It only has to differ between the records of one
 * millisecond (a collision would make ON CONFLICT skip a record); nothing depends on it being
 * unpredictable, and crypto.getRandomValues costs several times more per call.
 */
export function newRid(): number {
  return Math.floor(Math.random() * (MAX_RID + 1));
}

/** The record's id as the API shows it: `<at>-<rid>`, its primary key. */
export function auditRecordId(record: Pick<AuditRecord, "at" | "rid">): string {
  return `${record.at}-${record.rid}`;
}

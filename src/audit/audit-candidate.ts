/**
 * The queue consumer's check of one queued record when D1 refused a batch, or when a message is
 * in an older format: the record is rebuilt from whatever shape it travelled in and validated
 * against AuditRecordSchema, so a bad one is dropped instead of failing every retry.
 */
import { type AuditRecord, AuditRecordSchema } from "./audit-record.ts";
import { AUDIT_COLUMNS, type AuditRow, fromRow } from "./audit-table.ts";
import { ridOfLegacyId } from "./legacy-audit-table.ts";

/**
 * The length of a row queued before 0006, 0007, 0015 and 0016 added request_id, run_id, credential and called_as, the last columns:
 * such a row (or one queued between the two) ends early, and its missing values are null. A
 * Worker deployed over a queue still holding them must not drop them when D1 refuses a batch.
 */
const OLDEST_ROW_LENGTH = AUDIT_COLUMNS.indexOf("request_id");

export type CandidateCheck = { ok: true; record: AuditRecord } | { ok: false; why: string };

/**
 * A candidate is a row (AuditRowValues, the current message format) or a record object (the
 * formats before it, whose TEXT `id` becomes a rid and which had no error message); rows and
 * records from before request ids were kept have none.
 */
export function checkCandidate(candidate: unknown): CandidateCheck {
  let shaped: unknown = candidate;
  if (Array.isArray(candidate)) {
    if (candidate.length < OLDEST_ROW_LENGTH || candidate.length > AUDIT_COLUMNS.length) {
      return { ok: false, why: `a row has ${OLDEST_ROW_LENGTH} to ${AUDIT_COLUMNS.length} values, this one ${candidate.length}` };
    }
    try {
      shaped = fromRow(Object.fromEntries(AUDIT_COLUMNS.map((column, i) => [column, candidate[i]])) as AuditRow);
    } catch (error) {
      return { ok: false, why: String(error) };
    }
  } else if (typeof candidate === "object" && candidate !== null && !("rid" in candidate) && "id" in candidate && typeof candidate.id === "string") {
    shaped = { errorMessage: null, requestId: null, ...candidate, rid: ridOfLegacyId(candidate.id) };
  }
  const parsed = AuditRecordSchema.safeParse(shaped);
  if (parsed.success) return { ok: true, record: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, why: issue === undefined ? "invalid" : `${issue.path.join(".") || "record"}: ${issue.message}` };
}

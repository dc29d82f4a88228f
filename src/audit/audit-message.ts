/**
 * The audit queue's message (docs/storage.md): several records in one message, sent as text.
 *
 * Why several: a queue operation is paid per message (and per 64 KB of it), and both the
 * broker and the consumer do per-message work, so one message per record made the queue most
 * of the audit log's cost. Why text: the body is JSON we write once here; with the `json`
 * content type the platform would serialise the same object a second time.
 *
 * Why rows: a record travels as the INSERT's own row (AuditRowValues, in AUDIT_COLUMNS order),
 * so the consumer binds the rows of a message to the INSERT as they arrived, without parsing or
 * re-serialising them; D1 checks their types and the status (the table is STRICT), and only a
 * batch D1 refuses is parsed and validated record by record (handle-audit-queue.ts).
 *
 * A message is acked only when every record in it is written (or proved unwritable), and the
 * writer skips (at, rid) pairs already stored, so redelivering a whole message after a partial
 * failure never makes a second row.
 */
import type { AuditRecord } from "./audit-record.ts";
import { toRowValues } from "./audit-table.ts";

/** The content type audit messages are sent with. */
export const AUDIT_MESSAGE_CONTENT_TYPE = "text";

/** The body's JSON: `{"v":2,"rows":[<AuditRowValues>, ...]}`. */
export interface AuditMessage {
  v: 2;
  rows: unknown[][];
}

/** Cloudflare Queues: at most 128 KB per message. */
const MESSAGE_LIMIT_BYTES = 128 * 1024;
/** At most 100 messages and 256 KB per sendBatch. */
export const QUEUE_BATCH_MESSAGES = 100;
const BATCH_LIMIT_BYTES = 256 * 1024;
/** Headroom for what the platform counts beyond the body. */
const OVERHEAD_BYTES = 8 * 1024;

/**
 * UTF-8 takes at most 3 bytes per UTF-16 code unit, so 3 x `length` bounds a text's size
 * without encoding it: packing by that bound costs nothing per record, and a record (at most
 * ~25 000 characters: 4 KiB of arguments, 20 coercions of 3 x 256 characters) always fits.
 */
const MESSAGE_MAX_CHARS = Math.floor((MESSAGE_LIMIT_BYTES - OVERHEAD_BYTES) / 3);
const BATCH_MAX_CHARS = Math.floor((BATCH_LIMIT_BYTES - OVERHEAD_BYTES) / 3);

const PREFIX = '{"v":2,"rows":[';
const SUFFIX = "]}";

/** One sendBatch: its message bodies and the records they carry. */
export interface PackedBatch {
  bodies: string[];
  records: AuditRecord[];
}

/**
 * Packs records into message bodies within the message size limit, and the bodies into
 * sendBatch calls within the batch limits, in order.
 */
export function packAuditMessages(records: readonly AuditRecord[]): PackedBatch[] {
  const batches: PackedBatch[] = [];
  let batch: PackedBatch = { bodies: [], records: [] };
  let batchChars = 0;
  let parts: string[] = [];
  let partRecords: AuditRecord[] = [];
  let chars = PREFIX.length + SUFFIX.length;
  const closeMessage = () => {
    if (parts.length === 0) return;
    if (batch.bodies.length === QUEUE_BATCH_MESSAGES || batchChars + chars > BATCH_MAX_CHARS) {
      batches.push(batch);
      batch = { bodies: [], records: [] };
      batchChars = 0;
    }
    batch.bodies.push(`${PREFIX}${parts.join(",")}${SUFFIX}`);
    batch.records.push(...partRecords);
    batchChars += chars;
    parts = [];
    partRecords = [];
    chars = PREFIX.length + SUFFIX.length;
  };
  for (const record of records) {
    const text = JSON.stringify(toRowValues(record));
    if (parts.length > 0 && chars + text.length + 1 > MESSAGE_MAX_CHARS) closeMessage();
    parts.push(text);
    partRecords.push(record);
    chars += text.length + 1;
  }
  closeMessage();
  if (batch.bodies.length > 0) batches.push(batch);
  return batches;
}

/**
 * The rows of a body in this format, as the text between its brackets (comma-separated rows,
 * ready for writeAuditRowLists), without parsing it; undefined for any other body.
 */
export function rowListOf(body: unknown): string | undefined {
  if (typeof body !== "string" || !body.startsWith(PREFIX) || !body.endsWith(SUFFIX)) return undefined;
  return body.slice(PREFIX.length, body.length - SUFFIX.length);
}

/**
 * The candidate records of a message body, for validating one by one: the rows of an
 * AuditMessage (arrays), the records of the format before it (`{"records":[...]}`, objects), or
 * the body itself when it is a lone record (the first format's one-record `json` messages).
 * Messages of every format may still be in the queue or its dead-letter queue after a deploy.
 * Undefined when the body is none of these.
 */
export function candidatesOf(body: unknown): unknown[] | undefined {
  let parsed: unknown = body;
  if (typeof body === "string") {
    try {
      parsed = JSON.parse(body);
    } catch {
      return undefined;
    }
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
  if ("rows" in parsed) return Array.isArray(parsed.rows) ? parsed.rows : undefined;
  if ("records" in parsed) return Array.isArray(parsed.records) ? parsed.records : undefined;
  return [parsed];
}

/** The part of D1 the audit writer and readers use; tests wrap it to inject faults. */
export type AuditDatabase = Pick<D1Database, "prepare" | "batch">;

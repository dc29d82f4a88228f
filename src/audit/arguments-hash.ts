/**
 * A record's arguments hash. Short arguments are stored whole, so their hash is a function of
 * the stored text: the record leaves `argumentsSha256` empty and readers compute it from
 * `arguments` (a page of at most 200 records), instead of every call paying a SHA-256 in
 * JavaScript on the write path. Only a record whose arguments were cut to a preview carries the
 * hash of the whole text, which nothing else can recover.
 */
import { sha256Hex } from "../crypto/sha256.ts";
import type { AuditRecord } from "./audit-record.ts";

/** SHA-256 (hex) of the canonical JSON of the whole redacted arguments. */
export function argumentsSha256Of(record: Pick<AuditRecord, "arguments" | "argumentsSha256">): string {
  return record.argumentsSha256 === "" ? sha256Hex(record.arguments) : record.argumentsSha256;
}

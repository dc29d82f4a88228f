/**
 * Multi-row INSERTs for a Run object's SQLite tables. In a Durable Object a statement costs far
 * more than the bytes it writes (scripts/bench/profile.ts --chat), so rows written together go in
 * one statement, split only where Cloudflare's limit of 100 bound parameters a statement bites.
 */

/** Durable Object SQL binds at most this many parameters in one statement. */
const MAX_BOUND_PARAMETERS = 100;

/** Statement texts by head, tail and row count: the same few are made again and again. */
const statements = new Map<string, string>();

function statement(head: string, tail: string, width: number, rows: number): string {
  const key = `${rows}\n${head}\n${tail}`;
  let text = statements.get(key);
  if (text === undefined) {
    const row = `(${Array.from({ length: width }, () => "?").join(", ")})`;
    text = `${head} ${Array.from({ length: rows }, () => row).join(", ")}${tail === "" ? "" : ` ${tail}`}`;
    statements.set(key, text);
  }
  return text;
}

/**
 * Inserts `values` (rows of `width` values, flat) with `head` (`INSERT INTO t (a, b) VALUES`)
 * and `tail` (an `ON CONFLICT` clause, or "").
 */
export function insertRows(sql: SqlStorage, head: string, tail: string, width: number, values: readonly SqlStorageValue[]): void {
  const perStatement = Math.floor(MAX_BOUND_PARAMETERS / width) * width;
  for (let at = 0; at < values.length; at += perStatement) {
    const chunk = values.slice(at, at + perStatement);
    sql.exec(statement(head, tail, width, chunk.length / width), ...chunk);
  }
}

/**
 * Canonical JSON for hashing: object keys sorted by UTF-16 code units at every depth and no
 * whitespace, as RFC 8785 (JCS) orders them. Written out by hand because JSON.stringify always
 * puts integer-like keys ("2", "10") first, whatever order they were inserted in.
 */

/** The canonical JSON text of `value`; values JSON cannot hold are dropped as JSON.stringify drops them. */
export function canonicalJson(value: unknown): string {
  return write(value, new WeakSet()) ?? "null";
}

function write(value: unknown, seen: WeakSet<object>): string | undefined {
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") return Number.isFinite(value) ? JSON.stringify(value) : "null";
  if (typeof value === "bigint") return JSON.stringify(value.toString());
  if (typeof value !== "object") return undefined;
  if (seen.has(value)) return JSON.stringify("[Circular]");
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function") return write(toJSON.call(value), seen);
  seen.add(value);
  try {
    if (Array.isArray(value)) return `[${value.map((item: unknown) => write(item, seen) ?? "null").join(",")}]`;
    const entries: string[] = [];
    for (const key of Object.keys(value).sort()) {
      const text = write((value as Record<string, unknown>)[key], seen);
      if (text !== undefined) entries.push(`${JSON.stringify(key)}:${text}`);
    }
    return `{${entries.join(",")}}`;
  } finally {
    // A value seen twice side by side is not a cycle; only a value inside itself is.
    seen.delete(value);
  }
}

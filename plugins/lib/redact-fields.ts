/** Replacing named fields of a JSON result, at any depth. */

/** What a redacted field's value becomes: still valid JSON, and plainly not the value. */
export const REDACTED = "[redacted]";

/** `a, b ,c` → {a, b, c}; empty entries are dropped. */
export function parseFieldList(value: string): ReadonlySet<string> {
  return new Set(
    value
      .split(",")
      .map((field) => field.trim())
      .filter((field) => field !== ""),
  );
}

/**
 * The result with every field named in `fields` replaced by {@link REDACTED}, or undefined when
 * the result is not JSON or has no such field (so the model reads it unchanged).
 */
export function redactFields(result: string, fields: ReadonlySet<string>): string | undefined {
  let data: unknown;
  try {
    data = JSON.parse(result);
  } catch {
    return undefined;
  }
  let redacted = 0;
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (typeof value !== "object" || value === null) return value;
    // No prototype, so a field named "__proto__" stays a field instead of replacing the prototype.
    const out = Object.create(null) as Record<string, unknown>;
    for (const [key, item] of Object.entries(value)) {
      if (fields.has(key)) {
        out[key] = REDACTED;
        redacted += 1;
      } else {
        out[key] = walk(item);
      }
    }
    return out;
  };
  const cleaned = walk(data);
  return redacted === 0 ? undefined : JSON.stringify(cleaned);
}

/**
 * A handler may return a string (passed through) or plain JSON data (serialised). Anything
 * else is a contract error naming the tool and where the bad value sits, instead of JSON
 * quietly dropping a function or turning NaN into null.
 */

export type Serialized = { ok: true; content: string } | { ok: false; resultType: string };

/**
 * What cannot be serialised, and where: the path's segments are pushed innermost first as the
 * walk unwinds, so a result that serialises (nearly every one) builds no path strings at all.
 */
interface Unserialisable {
  what: string;
  path: string[];
}

function findUnserialisable(value: unknown, seen: Set<object>): Unserialisable | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
      return undefined;
    case "number":
      return Number.isFinite(value) ? undefined : { what: String(value), path: [] };
    case "object": {
      if (value === null) return undefined;
      if (seen.has(value)) return { what: "a circular reference", path: [] };
      seen.add(value);
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          const bad = findUnserialisable(value[i], seen);
          if (bad !== undefined) return at(bad, `[${i}]`);
        }
      } else {
        const proto: unknown = Object.getPrototypeOf(value);
        if (proto !== Object.prototype && proto !== null) {
          return { what: (value as { constructor?: { name?: string } }).constructor?.name ?? "a class instance", path: [] };
        }
        const record = value as Record<string, unknown>;
        for (const key of Object.keys(record)) {
          const bad = findUnserialisable(record[key], seen);
          if (bad !== undefined) return at(bad, `.${key}`);
        }
      }
      seen.delete(value);
      return undefined;
    }
    default:
      return { what: typeof value, path: [] };
  }
}

function at(bad: Unserialisable, segment: string): Unserialisable {
  bad.path.push(segment);
  return bad;
}

/** Serialises a handler's return value, or names what cannot be serialised. */
export function serializeResult(value: unknown): Serialized {
  if (typeof value === "string") return { ok: true, content: value };
  const bad = findUnserialisable(value, new Set());
  if (bad !== undefined) return { ok: false, resultType: `${bad.what} at result${bad.path.reverse().join("")}` };
  return { ok: true, content: JSON.stringify(value) };
}

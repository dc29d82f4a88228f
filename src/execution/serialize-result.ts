/**
 * A handler may return a string (passed through) or plain JSON data (serialised). Anything
 * else is a contract error naming the tool and where the bad value sits, instead of JSON
 * quietly dropping a function or turning NaN into null.
 */

export type Serialized = { ok: true; content: string } | { ok: false; resultType: string };

function findUnserialisable(value: unknown, path: string, seen: Set<object>): string | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
      return undefined;
    case "number":
      return Number.isFinite(value) ? undefined : `${String(value)} at ${path}`;
    case "object": {
      if (value === null) return undefined;
      if (seen.has(value)) return `a circular reference at ${path}`;
      seen.add(value);
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          const bad = findUnserialisable(value[i], `${path}[${i}]`, seen);
          if (bad !== undefined) return bad;
        }
      } else {
        const proto: unknown = Object.getPrototypeOf(value);
        if (proto !== Object.prototype && proto !== null) {
          return `${(value as { constructor?: { name?: string } }).constructor?.name ?? "a class instance"} at ${path}`;
        }
        for (const [key, item] of Object.entries(value)) {
          const bad = findUnserialisable(item, `${path}.${key}`, seen);
          if (bad !== undefined) return bad;
        }
      }
      seen.delete(value);
      return undefined;
    }
    default:
      return `${typeof value} at ${path}`;
  }
}

/** Serialises a handler's return value, or names what cannot be serialised. */
export function serializeResult(value: unknown): Serialized {
  if (typeof value === "string") return { ok: true, content: value };
  const bad = findUnserialisable(value, "result", new Set());
  if (bad !== undefined) return { ok: false, resultType: bad };
  return { ok: true, content: JSON.stringify(value) };
}

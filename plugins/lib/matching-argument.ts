/** Finding the string arguments of a call that match a pattern, however deeply nested. */

/**
 * The path (`command`, `files[2].name`) of the first string in `args` that `pattern` matches,
 * or undefined. Nested values are searched because a dangerous string in an array or an
 * object reaches the tool as surely as a top-level one.
 */
export function matchingArgument(args: Record<string, unknown>, pattern: RegExp): string | undefined {
  for (const [key, value] of Object.entries(args)) {
    const found = search(value, key, pattern);
    if (found !== undefined) return found;
  }
  return undefined;
}

function search(value: unknown, path: string, pattern: RegExp): string | undefined {
  if (typeof value === "string") return pattern.test(value) ? path : undefined;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = search(item, `${path}[${i}]`, pattern);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const found = search(item, `${path}.${key}`, pattern);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/**
 * Tool-name globs for key policies: `*` matches any run of characters (empty included), `?`
 * exactly one; everything else matches itself. `mcp__github__*` covers every tool of that MCP
 * server. Patterns compile once per request (tool-access.ts), not once per tool checked.
 */

/** A test for one pattern: plain names compare as strings, globs through an anchored RegExp. */
export function compileGlob(pattern: string): (name: string) => boolean {
  if (!/[*?]/.test(pattern)) return (name) => name === pattern;
  let source = "";
  for (const char of pattern) {
    if (char === "*") source += "[\\s\\S]*";
    else if (char === "?") source += "[\\s\\S]";
    // Only syntax characters may be escaped under the u flag (`\-` would be a SyntaxError).
    else source += char.replace(/[\\^$.|+()[\]{}]/g, "\\$&");
  }
  // The u flag makes `?` one code point, matching how a person counts characters.
  const regexp = new RegExp(`^${source}$`, "u");
  return (name) => regexp.test(name);
}

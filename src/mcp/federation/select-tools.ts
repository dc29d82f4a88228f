/**
 * Which of a server's tools are offered: `include` (names or globs), when given, is a whitelist
 * that wins over `exclude`; otherwise every tool but the excluded ones. Patterns match the
 * remote (raw) names, as in the reference client, so an admin writes what the server calls them.
 */
import { compileGlob } from "../../policy/glob.ts";

/** The tools `include` and `exclude` let through, in their original order. */
export function selectTools<T extends { name: string }>(tools: readonly T[], include: readonly string[] | undefined, exclude: readonly string[]): T[] {
  if (include !== undefined) {
    const included = include.map(compileGlob);
    return tools.filter((tool) => included.some((matches) => matches(tool.name)));
  }
  const excluded = exclude.map(compileGlob);
  return tools.filter((tool) => !excluded.some((matches) => matches(tool.name)));
}

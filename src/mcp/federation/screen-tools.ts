/**
 * A remote server's tool list is outside input: a server may send thousands of tools, or an
 * input schema nested 10,000 deep or holding an enum of a million values. Every later step walks
 * each schema (the pin's canonical JSON, zod's importer, JSON.stringify of the pins and of every
 * listing a model reads), synchronously, on the one thread every request shares; JSON.stringify
 * recurses, and writing the pins of a schema 10,000 levels deep overflowed the stack (500). So the list is screened once, before any of them: a schema
 * past the caps the gateway holds arguments to (src/arguments/argument-shape.ts) refuses that
 * tool, and tools past MAX_REMOTE_TOOLS are left out; each refusal is a problem of the server,
 * shown in its status, never an exception.
 */
import { MAX_ARGUMENT_DEPTH, MAX_ARGUMENT_VALUES, shapeProblem } from "../../arguments/argument-shape.ts";
import type { RemoteTool } from "../client/mcp-client.ts";

/** Tools registered from one server; no model can choose among more, and each costs a schema import. */
export const MAX_REMOTE_TOOLS = 1_000;

export interface ScreenedTools {
  tools: RemoteTool[];
  /** One sentence per tool or group of tools left out. */
  problems: string[];
}

/**
 * The tools whose schemas are within the caps, the first MAX_REMOTE_TOOLS of them. Each schema
 * is walked at most to its first problem, so the screen costs at most the caps per tool.
 */
export function screenTools(listed: readonly RemoteTool[]): ScreenedTools {
  const problems: string[] = [];
  if (listed.length > MAX_REMOTE_TOOLS) {
    problems.push(
      `the server lists ${listed.length} tools; only the first ${MAX_REMOTE_TOOLS} are considered, the other ${listed.length - MAX_REMOTE_TOOLS} are not registered`,
    );
  }
  const tools: RemoteTool[] = [];
  for (const tool of listed.slice(0, MAX_REMOTE_TOOLS)) {
    const problem = shapeProblem(tool.inputSchema);
    if (problem === undefined) tools.push(tool);
    else if ("tooDeep" in problem) {
      problems.push(`'${tool.name}' has an input schema nested deeper than ${MAX_ARGUMENT_DEPTH} levels (at ${problem.tooDeep}); not registered`);
    } else problems.push(`'${tool.name}' has an input schema of more than ${MAX_ARGUMENT_VALUES} values; not registered`);
  }
  return { tools, problems };
}

/**
 * Serves every registered tool's declared worst inputs (ToolSpec.worstInputs) to the hostile
 * suite, inside workerd. Mounted only by Workers made for measuring (the hostile test's entry,
 * the bench Worker), never by the shipped one: the inputs are built lazily, one at a time, so a
 * 10 MiB file is made only when the suite asks for it.
 */
/// <reference path="../../worker-configuration.d.ts" />
import { registry } from "../../src/registry/registry.ts";

export const WORST_INPUTS_PATH = "/__hostile/worst-inputs";

/** One tool's inputs, as the suite lists them before asking for each. */
export interface WorstInputsListing {
  tools: { name: string; timeoutMs: number | null; inputs: { name: string; holdsIsolateMs: number | null }[] }[];
  /** Tools outside the suite, with the reason (test fixtures, which no admin can call). */
  skipped: { name: string; reason: string }[];
}

/** One input, built: the setup calls and the hostile call's arguments. */
export interface BuiltWorstInput {
  setup: { tool: string; args: Record<string, unknown> }[];
  args: Record<string, unknown>;
}

/**
 * `GET WORST_INPUTS_PATH` lists; `GET WORST_INPUTS_PATH?tool=patch&input=0` builds one input.
 * Returns undefined for any other path, so the caller's own routing goes on.
 */
export function serveWorstInputs(request: Request): Response | undefined {
  const url = new URL(request.url);
  if (url.pathname !== WORST_INPUTS_PATH) return undefined;
  const toolName = url.searchParams.get("tool");
  if (toolName === null) return Response.json(listing());
  const entry = registry.get(toolName);
  const input = entry?.worstInputs?.[Number(url.searchParams.get("input"))];
  if (input === undefined) return Response.json({ error: `no worst input ${url.searchParams.get("input")} for '${toolName}'` }, { status: 404 });
  const built: BuiltWorstInput = { setup: [...(input.setup?.() ?? [])], args: input.args() };
  return Response.json(built);
}

function listing(): WorstInputsListing {
  const tools: WorstInputsListing["tools"] = [];
  const skipped: WorstInputsListing["skipped"] = [];
  for (const name of registry.names()) {
    const entry = registry.get(name);
    if (entry === undefined) continue;
    if (entry.fixture === true) {
      skipped.push({ name, reason: "a test fixture: only a key naming its toolset may call it" });
      continue;
    }
    const inputs = (entry.worstInputs ?? []).map((input) => ({ name: input.name, holdsIsolateMs: input.holdsIsolateMs ?? null }));
    tools.push({ name, timeoutMs: entry.timeoutMs ?? null, inputs });
  }
  return { tools, skipped };
}

/**
 * Serves every shipped tool's declared worst inputs (ToolSpec.worstInputs) to the hostile suite,
 * inside workerd. Mounted only by the bench Worker (scripts/bench/worker.ts), which the hostile
 * test serves too, never by the shipped one: the inputs are built lazily, one at a time, so a
 * 10 MiB file is made only when the suite asks for it.
 */
/// <reference path="../../worker-configuration.d.ts" />
import { API_SOURCES } from "../../src/openapi-sources/apis.gen.ts";
import { buildTimeToolNames } from "../../src/openapi-sources/build-time-sources.ts";
import { registry } from "../../src/registry/registry.ts";
import { DISCOVERED_TOOLS } from "../../src/registry/tools.gen.ts";
import { type BuiltWorstInput, WORST_INPUTS_PATH, type WorstInputsListing } from "./worst-inputs-wire.ts";

/**
 * The shipped tools: the generator's list and the build-time OpenAPI sources' operations, so a
 * measuring Worker's own tools stay out.
 */
const SHIPPED: ReadonlySet<string> = new Set([...DISCOVERED_TOOLS.map((tool) => tool.name), ...buildTimeToolNames(API_SOURCES)]);

/**
 * `GET WORST_INPUTS_PATH` lists; `GET WORST_INPUTS_PATH?tool=patch&input=0` builds one input.
 * Returns undefined for any other path, so the caller's own routing goes on.
 */
export function serveWorstInputs(request: Request): Response | undefined {
  // A string test first: the bench Worker sends every measured request through here, and
  // parsing each one's URL would be charged to the routes it measures.
  if (!request.url.includes(WORST_INPUTS_PATH)) return undefined;
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
    if (entry === undefined || !SHIPPED.has(name)) continue;
    if (entry.fixture === true) {
      skipped.push({ name, reason: "a test fixture: only a key naming its toolset may call it" });
      continue;
    }
    const inputs = (entry.worstInputs ?? []).map((input) => ({ name: input.name, holdsIsolateMs: input.holdsIsolateMs ?? null }));
    tools.push({ name, timeoutMs: entry.timeoutMs ?? null, inputs });
  }
  return { tools, skipped };
}

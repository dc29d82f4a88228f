/**
 * The tools a request may see: the registered names (or those `toolset` resolves to) that the
 * calling key may use. Shared by the routes that list tools (`GET /v1/tools`, `/openapi.json`),
 * so they can never disagree about what a key sees.
 */
import type { Context } from "hono";
import { registry } from "../registry/registry.ts";
import { resolveToolset } from "../toolsets/resolve.ts";
import { accessOf, toolsetLookupOf } from "./access.ts";
import type { AppEnv } from "./types.ts";

/** The allowed names, in registry order, or the toolset that names nothing. */
export async function allowedToolNames(c: Context<AppEnv>, toolset: string | undefined): Promise<string[] | { unknownToolset: string }> {
  let names: readonly string[] = registry.names();
  if (toolset !== undefined) {
    const resolved = await resolveToolset(toolset, toolsetLookupOf(c));
    if (resolved === undefined) return { unknownToolset: toolset };
    names = resolved;
  }
  const access = await accessOf(c);
  return names.filter((name) => access.decide(name).allowed);
}

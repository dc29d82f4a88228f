/**
 * The calling key's tool access for this request, resolved once (toolset resolution may read
 * KV) and shared by every route step that needs it.
 */
import type { Context } from "hono";
import { createToolAccess, type ToolAccess } from "../policy/tool-access.ts";
import { kvToolsetLookup } from "../toolsets/custom-toolsets.ts";
import type { CustomToolsetLookup } from "../toolsets/resolve.ts";
import type { AppEnv } from "./types.ts";

const perRequest = new WeakMap<Request, { lookup: CustomToolsetLookup; access: Promise<ToolAccess> }>();

function state(c: Context<AppEnv>) {
  let found = perRequest.get(c.req.raw);
  if (found === undefined) {
    const lookup = kvToolsetLookup(c.env.KV);
    found = { lookup, access: createToolAccess(c.get("principal"), lookup) };
    perRequest.set(c.req.raw, found);
  }
  return found;
}

/** The request's custom-toolset lookup (each KV record read at most once per request). */
export function toolsetLookupOf(c: Context<AppEnv>): CustomToolsetLookup {
  return state(c).lookup;
}

/** What the calling key may use. */
export function accessOf(c: Context<AppEnv>): Promise<ToolAccess> {
  return state(c).access;
}

/**
 * Which tools an API key may call. Two layers, in order:
 *
 * 1. Toolsets: a key limited to toolsets (resolved with their includes, custom ones too) may
 *    only call tools they contain. A listed toolset that no longer resolves (a deleted custom
 *    one) contributes nothing: access fails closed.
 * 2. Policy: whitelist mode allows only tools matching a pattern; deny mode allows all but
 *    those. The first matching pattern, in the key's order, is the rule named.
 *
 * Every decision names its rule (`toolsets:[research]`, `whitelist:mcp__github__*`,
 * `deny:shell`, `default:allow`, `default:deny`) for the audit log and the caller.
 * Test fixtures (`fixture: true`, the MCP conformance tools) are outside every key whose
 * toolsets do not name them: an unrestricted key, or one with `all`, never reaches them.
 *
 * `createToolAccess` does the async work (toolset resolution) once per request; `decide` is then
 * synchronous and memoised, because it runs for every call of a batch and every listed tool.
 */
import type { Principal } from "../auth/principal.ts";
import { registry } from "../registry/registry.ts";
import { ALL_TOOLSETS, type CustomToolsetLookup, resolveToolset } from "../toolsets/resolve.ts";
import { compileGlob } from "./glob.ts";

export type ToolAccessDecision = { allowed: true; rule: string } | { allowed: false; rule: string; message: string };

/** A key's tool access, resolved for one request. */
export interface ToolAccess {
  decide(toolName: string): ToolAccessDecision;
}

const ALLOW_ALL: ToolAccessDecision = Object.freeze({ allowed: true, rule: "default:allow" });
const NEXT_STEP = "GET /v1/tools lists the tools this key may call; an admin can change the key (POST /v1/keys creates one).";

function fixtureDenied(name: string): ToolAccessDecision {
  return { allowed: false, rule: "fixture", message: `Tool '${name}' is a test fixture; only a key whose toolsets name its toolset may use it. ${NEXT_STEP}` };
}

/**
 * Resolves a principal's toolsets and compiles its patterns.
 *
 * @example
 * ```ts
 * const access = await createToolAccess(c.get("principal"), kvToolsetLookup(c.env.KV));
 * const visible = names.filter((name) => access.decide(name).allowed);
 * ```
 */
export async function createToolAccess(principal: Principal, lookup: CustomToolsetLookup): Promise<ToolAccess> {
  const inToolsets = await toolsetFilter(principal.toolsets, lookup);
  const { mode, patterns } = principal.policy;
  // A fixture is outside `all`; only a key that names the fixture's toolset itself reaches it.
  const named = new Set(principal.toolsets ?? []);
  const hiddenFixture = (name: string): boolean => {
    const entry = registry.get(name);
    return entry?.fixture === true && !named.has(entry.toolset);
  };
  if (inToolsets === undefined && mode === "deny" && patterns.length === 0)
    return { decide: (name) => (hiddenFixture(name) ? fixtureDenied(name) : ALLOW_ALL) };

  const matchers = patterns.map((pattern) => ({ pattern, matches: compileGlob(pattern) }));
  const toolsetsRule = `toolsets:[${(principal.toolsets ?? []).join(",")}]`;
  const decideOnce = (name: string): ToolAccessDecision => {
    if (inToolsets === undefined && hiddenFixture(name)) return fixtureDenied(name);
    if (inToolsets !== undefined && !inToolsets.has(name)) {
      const listed = principal.toolsets?.join(", ") ?? "";
      return {
        allowed: false,
        rule: toolsetsRule,
        message: `Tool '${name}' is not in the toolsets this API key may use (${listed === "" ? "none" : listed}). ${NEXT_STEP}`,
      };
    }
    const matched = matchers.find((matcher) => matcher.matches(name))?.pattern;
    if (mode === "deny") {
      if (matched === undefined) return ALLOW_ALL;
      return { allowed: false, rule: `deny:${matched}`, message: `Tool '${name}' is denied by this API key's policy (pattern '${matched}'). ${NEXT_STEP}` };
    }
    if (matched !== undefined) return { allowed: true, rule: `whitelist:${matched}` };
    return {
      allowed: false,
      rule: "default:deny",
      message: `Tool '${name}' is not on this API key's whitelist (${patterns.length === 0 ? "which is empty" : patterns.join(", ")}). ${NEXT_STEP}`,
    };
  };

  const decided = new Map<string, ToolAccessDecision>();
  return {
    decide(name) {
      let decision = decided.get(name);
      if (decision === undefined) {
        decision = decideOnce(name);
        decided.set(name, decision);
      }
      return decision;
    },
  };
}

/** One decision; prefer `createToolAccess` when deciding for more than one tool. */
export async function decideToolAccess(principal: Principal, toolName: string, lookup: CustomToolsetLookup): Promise<ToolAccessDecision> {
  return (await createToolAccess(principal, lookup)).decide(toolName);
}

/** The tools a key's toolsets allow, or undefined when they allow every tool. */
async function toolsetFilter(toolsets: readonly string[] | null, lookup: CustomToolsetLookup): Promise<ReadonlySet<string> | undefined> {
  // `all`/`*` mean every tool, including ones registered after this request began (MCP federation).
  if (toolsets === null || toolsets.some((name) => ALL_TOOLSETS.has(name))) return undefined;
  const resolved = await Promise.all(toolsets.map((name) => resolveToolset(name, lookup)));
  return new Set(resolved.flatMap((tools) => tools ?? []));
}

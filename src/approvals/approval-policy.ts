/**
 * Which tools need a person's approval: those named or matched by APPROVAL_REQUIRED_FOR
 * (`http_request`, `mcp__*__delete_*`), those that declare themselves `risky`, and calls whose
 * arguments a tool's `riskyWhen` picks out (http_request's non-GET methods).
 */
import type { GatewayConfig } from "../config/config.ts";
import { compileGlob } from "../policy/glob.ts";
import type { ToolEntry } from "../registry/types.ts";

// Compiled once per configuration object (loadConfig caches one per env), not per call.
const compiled = new WeakMap<readonly string[], (name: string) => boolean>();

function matcherOf(patterns: readonly string[]): (name: string) => boolean {
  let matches = compiled.get(patterns);
  if (matches === undefined) {
    const tests = patterns.map(compileGlob);
    matches = (name) => tests.some((test) => test(name));
    compiled.set(patterns, matches);
  }
  return matches;
}

/** Whether a call of `entry` with the final arguments `args` must wait for a person's approval. */
export function needsApproval(entry: Pick<ToolEntry, "name" | "risky" | "riskyWhen">, config: GatewayConfig, args?: unknown): boolean {
  if (entry.risky === true) return true;
  if (config.approval.requiredFor.length > 0 && matcherOf(config.approval.requiredFor)(entry.name)) return true;
  // Arguments reach this stage validated by the tool's own schema, so its predicate gets its own shape.
  return entry.riskyWhen !== undefined && args !== undefined && entry.riskyWhen(args);
}

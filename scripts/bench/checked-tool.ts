/**
 * `bench_checked`: a tool with an availability check, so the bench can report the check
 * cache's hit rate (src/registry/availability.ts). Only the bench Worker registers it. Every
 * listing of all tools and every call of it asks for its availability; the check always passes.
 */
import { z } from "zod";
import type { Registry } from "../../src/registry/registry.ts";

export const CHECKED_TOOL = "bench_checked";
export const CHECKED_TOOLSET = "bench-checked";

/** Registers `bench_checked`; throws if the registry refuses it, since the figures would be wrong. */
export function registerCheckedTool(registry: Registry): void {
  const outcome = registry.register({
    name: CHECKED_TOOL,
    toolset: CHECKED_TOOLSET,
    schema: z
      .object({ text: z.string().max(100).describe("Text to answer with.") })
      .describe("Answers its text; has an availability check, for the benchmark's check-cache figure."),
    handler: ({ text }) => ({ text }),
    check: () => true,
  });
  if (!outcome.ok) throw new Error(`bench: ${CHECKED_TOOL} was refused: ${outcome.reason}`);
}

/**
 * 500 synthetic tools for the discovery benchmarks. They live in their own toolset so that
 * `GET /v1/tools?toolset=bench` lists exactly them; the bench Worker and the in-process timing
 * register the same set, so both measure the same definitions.
 */
import { z } from "zod";
import type { Registry } from "../../src/registry/registry.ts";

export const BENCH_TOOLSET = "bench";
export const SYNTHETIC_TOOL_COUNT = 500;

/**
 * Field shapes a real tool tends to have. Each tool takes 3-6 of them, starting at a different
 * offset, so the JSON Schemas differ in size and structure the way a real catalogue's do.
 */
const FIELD_KINDS: ReadonlyArray<(i: number) => z.ZodType> = [
  (i) =>
    z
      .string()
      .min(1)
      .max(200 + i)
      .describe("Free text the tool works on."),
  (i) =>
    z
      .number()
      .int()
      .min(0)
      .max(1_000 + i)
      .default(10)
      .describe("How many items to return."),
  () => z.boolean().default(false).describe("Include archived items as well."),
  () => z.enum(["asc", "desc", "relevance"]).default("relevance").describe("Sort order of the results."),
  () => z.array(z.string().max(64)).max(20).optional().describe("Labels to filter by; all must match."),
  () =>
    z
      .object({ id: z.string(), weight: z.number().min(0).max(1) })
      .optional()
      .describe("An item to rank against."),
  () => z.url().optional().describe("A page the tool may read."),
  () => z.string().nullable().describe("A cursor from a previous page, or null for the first page."),
];

const FIELD_NAMES = ["query", "limit", "include_archived", "sort", "labels", "anchor", "source_url", "cursor"];

/** The name of synthetic tool `i` (zero-padded, so name order is index order). */
export function syntheticToolName(i: number): string {
  return `bench_tool_${String(i).padStart(3, "0")}`;
}

function syntheticSchema(i: number): z.ZodObject {
  const fieldCount = 3 + (i % 4);
  const shape: Record<string, z.ZodType> = {};
  for (let k = 0; k < fieldCount; k++) {
    const kind = (i + k) % FIELD_KINDS.length;
    const build = FIELD_KINDS[kind];
    if (build !== undefined) shape[`${FIELD_NAMES[kind] ?? "field"}_${k}`] = build(i);
  }
  return z.object(shape).describe(`Synthetic tool #${i} for the benchmark: looks things up in a made-up catalogue and returns a page of matches.`);
}

/** Registers the synthetic tools; throws if the registry refuses one, since the figures would be wrong. */
export function registerSyntheticTools(registry: Registry, count = SYNTHETIC_TOOL_COUNT): void {
  for (let i = 0; i < count; i++) {
    const outcome = registry.register({
      name: syntheticToolName(i),
      toolset: BENCH_TOOLSET,
      schema: syntheticSchema(i),
      handler: () => ({ ok: true }),
    });
    if (!outcome.ok) throw new Error(`bench: synthetic tool ${i} was refused: ${outcome.reason}`);
  }
}

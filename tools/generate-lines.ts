/**
 * A tool whose result can exceed its size limit: it writes numbered lines, so a model (or a
 * test) can see exactly what the head-and-tail preview kept and page through the rest.
 */
import { z } from "zod";
import { registry } from "../src/registry/registry.ts";

registry.register({
  name: "generate_lines",
  toolset: "core",
  emoji: "📜",
  readOnly: true,
  example: { count: 3, prefix: "row" },
  worstInputs: [{ name: "100,000 lines with a 40-character prefix, cut by the size limit", args: () => ({ count: 100_000, prefix: "p".repeat(40) }) }],
  maxResultSizeChars: 4_000,
  schema: () =>
    z.object({
      count: z.number().int().min(1).max(100_000).describe("How many lines, 1-100000."),
      prefix: z.string().max(40).default("line").describe("Text before each line number."),
    }),
  description: "Generates numbered text lines ('line 1', 'line 2', ...). Results over 4000 characters are previewed and stored for read_result.",
  handler: ({ count, prefix }) => Array.from({ length: count }, (_, i) => `${prefix} ${i + 1}`).join("\n"),
});

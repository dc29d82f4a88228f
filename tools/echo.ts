/** A synchronous tool: the smallest thing that proves the pipeline end to end. */
import { z } from "zod";
import { registry } from "../src/registry/registry.ts";

registry.register({
  name: "echo",
  toolset: "core",
  emoji: "🔁",
  readOnly: true,
  example: { text: "hello", times: 2 },
  worstInputs: [
    { name: "text at its 10,000-character cap, upper-cased and repeated ten times", args: () => ({ text: "ß".repeat(10_000), times: 10, uppercase: true }) },
    { name: "1 MiB of text the cap refuses", args: () => ({ text: "x".repeat(1024 * 1024), times: 10 }) },
  ],
  schema: () =>
    z
      .object({
        text: z.string().max(10_000).describe("The text to send back."),
        times: z.number().int().min(1).max(10).default(1).describe("How many times to repeat it, 1-10."),
        uppercase: z.boolean().default(false).describe("Upper-case the text first."),
      })
      .describe("Returns the text it is given, optionally repeated and upper-cased. Use it to test a connection."),
  handler: ({ text, times, uppercase }) => {
    const once = uppercase ? text.toUpperCase() : text;
    // fill, not Array.from({ length }): the array-like form costs five times as much per call.
    return { text: new Array<string>(times).fill(once).join(" ") };
  },
});

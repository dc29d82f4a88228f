/**
 * Arguments built to stall the isolate (nested far past any schema, very wide, malformed and
 * deep) go through POST /v1/tool-calls like any call and end with a structured answer. Nested
 * 10,000 deep they once overflowed the stack (a 500 for malformed JSON, an unrecorded audit
 * row otherwise); wide ones are sized to the test Worker's 1 MiB body cap.
 */
import { describe, expect, it } from "vitest";
import { MAX_ARGUMENT_DEPTH, MAX_ARGUMENT_VALUES } from "../../src/arguments/argument-shape.ts";
import { api } from "../support/api.ts";
import { json } from "../support/json.ts";
import { anthropicCall, openaiCall } from "../support/tool-calls.ts";

interface CallResults {
  results: { status: string; error_code: string | null; message: { content: string } }[];
}

async function callOnce(call: unknown): Promise<{ status: string; error_code: string | null; content: string }> {
  const response = await api("/v1/tool-calls", { body: { tool_calls: [call] } });
  expect(response.status).toBe(200);
  const [result] = (await json<CallResults>(response)).results;
  return { status: result?.status ?? "", error_code: result?.error_code ?? null, content: result?.message.content ?? "" };
}

const nestedArrays = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

describe("hostile arguments", () => {
  it("refuses arguments nested 10,000 deep as JSON text with INVALID_ARGUMENTS naming where", async () => {
    const result = await callOnce(openaiCall("deep1", "echo", `{"text":"x","extra":${nestedArrays(10_000)}}`));
    expect(result.error_code).toBe("INVALID_ARGUMENTS");
    expect(result.content).toContain(`nest deeper than ${MAX_ARGUMENT_DEPTH} levels of objects and arrays (at 'extra${".0".repeat(MAX_ARGUMENT_DEPTH - 1)}')`);
  });

  it("accepts arguments nested exactly as deep as the cap", async () => {
    const result = await callOnce(openaiCall("deep0", "echo", `{"text":"x","extra":${nestedArrays(MAX_ARGUMENT_DEPTH - 1)}}`));
    expect(result.status).toBe("ok");
  });

  it("refuses an object nested 10,000 deep in a typed field with INVALID_ARGUMENTS", async () => {
    const result = await callOnce(openaiCall("deep2", "echo", `{"text":${nestedObjects(10_000)}}`));
    expect(result.error_code).toBe("INVALID_ARGUMENTS");
  });

  it("refuses Anthropic input nested 10,000 deep with INVALID_ARGUMENTS", async () => {
    const input = JSON.parse(`{"text":"x","extra":${nestedArrays(10_000)}}`) as unknown;
    const result = await callOnce(anthropicCall("deep3", "echo", input));
    expect(result.error_code).toBe("INVALID_ARGUMENTS");
  });

  it("places the error in malformed JSON nested 1,000,000 deep", async () => {
    const result = await callOnce(openaiCall("deep4", "echo", `${"[".repeat(1_000_000)}x`));
    expect(result.error_code).toBe("INVALID_ARGUMENTS");
    expect(result.content).toContain("at position 1000000");
  });

  it("answers a call holding as many values as the cap allows", async () => {
    const wide = Object.fromEntries(Array.from({ length: MAX_ARGUMENT_VALUES / 2 - 1 }, (_, i) => [`k${i}`, { n: "7" }]));
    const result = await callOnce(anthropicCall("wide1", "echo", { text: "x", ...wide }));
    expect(result.status).toBe("ok");
  });

  it("refuses an object of 60,000 keys with INVALID_ARGUMENTS before any stage walks it", async () => {
    const wide = Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, 7]));
    const result = await callOnce(anthropicCall("wide3", "echo", { text: "x", ...wide }));
    expect(result.error_code).toBe("INVALID_ARGUMENTS");
    expect(result.content).toContain(`more than ${MAX_ARGUMENT_VALUES} values`);
  });

  it("refuses JSON text of 60,000 values with INVALID_ARGUMENTS", async () => {
    const result = await callOnce(openaiCall("wide4", "echo", `{"text":"x","extra":[${"1,".repeat(60_000)}1]}`));
    expect(result.error_code).toBe("INVALID_ARGUMENTS");
    expect(result.content).toContain(`more than ${MAX_ARGUMENT_VALUES} values`);
  });

  it("counts no commas inside strings, past escaped quotes", async () => {
    const result = await callOnce(openaiCall("wide5", "echo", JSON.stringify({ text: "x", note: `\\"${",".repeat(30_000)}` })));
    expect(result.status).toBe("ok");
  });

  it("refuses an array of 400,000 elements in a short message", async () => {
    const result = await callOnce(anthropicCall("wide2", "echo", { text: Array.from({ length: 400_000 }, () => 1) }));
    expect(result.error_code).toBe("INVALID_ARGUMENTS");
    expect(result.content.length).toBeLessThan(10_000);
  });
});

/**
 * The OpenAI Responses and Gemini shapes against those providers' own SDKs. The typed
 * assignments are checked by `npm run typecheck`; at run time Gemini's schemas are walked
 * against the SDK's `Type` enum and the keys its `Schema` type has (a list the compiler checks
 * is exactly `keyof Schema`), since Gemini refuses a schema with a field it does not know.
 */
import { type FunctionCall, type FunctionDeclaration, type FunctionResponse, type Part, type Schema, Type } from "@google/genai";
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import type { GeminiSchema, GeminiType } from "../../src/formats/gemini-schema.ts";
import type { CallResult, GeminiFunctionResponsePart, ResponsesFunctionCallOutput } from "../../src/formats/tool-calls.ts";
import type { GeminiFunctionDeclaration, ResponsesTool } from "../../src/formats/tool-definitions.ts";
import { api } from "../support/api.ts";
import { json } from "../support/json.ts";

type ResponsesFunctionTool = OpenAI.Responses.FunctionTool;
type ResponsesFunctionCall = OpenAI.Responses.ResponseFunctionToolCall;
type ResponsesOutputParam = OpenAI.Responses.ResponseInputItem.FunctionCallOutput;

/** Every key of the SDK's Schema: adding or dropping one there fails the typecheck here. */
const SCHEMA_KEYS = {
  anyOf: true,
  default: true,
  description: true,
  enum: true,
  example: true,
  format: true,
  items: true,
  maxItems: true,
  maxLength: true,
  maxProperties: true,
  maximum: true,
  minItems: true,
  minLength: true,
  minProperties: true,
  minimum: true,
  nullable: true,
  pattern: true,
  properties: true,
  propertyOrdering: true,
  required: true,
  title: true,
  type: true,
} as const satisfies Record<keyof Schema, true>;

/**
 * Our Schema type is the SDK's with `type` spelled as the enum's string values (TypeScript keeps
 * a string enum apart from its strings); every other field must fit the SDK's as it is.
 */
type AsSdk<S> = {
  [K in keyof S]: K extends "type"
    ? Type
    : K extends "items"
      ? AsSdk<GeminiSchema>
      : K extends "properties"
        ? Record<string, AsSdk<GeminiSchema>>
        : K extends "anyOf"
          ? AsSdk<GeminiSchema>[]
          : S[K];
};
const fitsSdkSchema = (schema: AsSdk<GeminiSchema>): Schema => schema;
const fitsSdkDeclaration = (declaration: Omit<GeminiFunctionDeclaration, "parameters"> & { parameters: AsSdk<GeminiSchema> }): FunctionDeclaration =>
  declaration;
const typeNamesFit: GeminiType extends `${Type}` ? true : false = true;

const COUNT_KEYS = ["minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"];

/** Problems of one Gemini schema node and its children, each naming its path. */
function schemaProblems(schema: Record<string, unknown>, path: string): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (!(key in SCHEMA_KEYS)) problems.push(`${path}: unknown field ${key}`);
    if (COUNT_KEYS.includes(key) && !(typeof value === "string" && /^\d+$/.test(value))) problems.push(`${path}.${key}: not an int64 string`);
  }
  if (schema.type !== undefined && !Object.values<unknown>(Type).includes(schema.type))
    problems.push(`${path}.type: ${String(schema.type)} is not a Gemini Type`);
  if (schema.enum !== undefined && !(Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === "string")))
    problems.push(`${path}.enum: not all strings`);
  const children: [string, unknown][] = [
    ...Object.entries((schema.properties as Record<string, unknown> | undefined) ?? {}).map(([k, v]): [string, unknown] => [`${path}.properties.${k}`, v]),
    ...(schema.items === undefined ? [] : [[`${path}.items`, schema.items] as [string, unknown]]),
    ...((schema.anyOf as unknown[] | undefined) ?? []).map((v, i): [string, unknown] => [`${path}.anyOf.${i}`, v]),
  ];
  for (const [childPath, child] of children) problems.push(...schemaProblems(child as Record<string, unknown>, childPath));
  return problems;
}

describe("OpenAI Responses shape", () => {
  it("lists flat function tools the Responses API types accept", async () => {
    const body = await json<{ format: string; tools: ResponsesTool[] }>(await api("/v1/tools?format=responses"));
    expect(body.format).toBe("responses");
    const asSdk: ResponsesFunctionTool[] = body.tools;
    expect(asSdk.length).toBeGreaterThan(0);
    for (const tool of body.tools) {
      expect(Object.keys(tool).sort()).toEqual(["description", "name", "parameters", "strict", "type"]);
      expect(tool).toMatchObject({ type: "function", strict: false });
      expect(tool.parameters.type).toBe("object");
    }
    const echo = body.tools.find((tool) => tool.name === "echo");
    const chat = await json<{ tools: { function: { parameters: unknown } }[] }>(await api("/v1/tools?format=openai&toolset=core"));
    // One schema feeds every shape: the same parameters as the Chat Completions definition.
    expect(chat.tools.map((t) => t.function.parameters)).toContainEqual(echo?.parameters);
  });

  it("runs function_call items and answers function_call_output items ready for `input`", async () => {
    const call: ResponsesFunctionCall = {
      type: "function_call",
      id: "fc_1",
      call_id: "call_resp_1",
      name: "echo",
      arguments: '{"text":"hi","times":"2"}',
      status: "completed",
    };
    const res = await api("/v1/tool-calls", { body: { tool_calls: [call] } });
    expect(res.status).toBe(200);
    const { results } = await json<{ results: CallResult[] }>(res);
    const output: ResponsesOutputParam = results[0]?.message as ResponsesFunctionCallOutput;
    expect(output).toEqual({ type: "function_call_output", call_id: "call_resp_1", output: '{"text":"hi hi"}' });
    expect(results[0]).toMatchObject({ id: "call_resp_1", tool: "echo", status: "ok" });
  });

  it("answers a failed function_call with the error envelope as its output", async () => {
    const { results } = await json<{ results: CallResult[] }>(
      await api("/v1/tool-calls", { body: { tool_calls: [{ type: "function_call", call_id: "call_bad", name: "echo", arguments: '{"text":5}' }] } }),
    );
    expect(results[0]).toMatchObject({ status: "error", error_code: "INVALID_ARGUMENTS" });
    const message = results[0]?.message as ResponsesFunctionCallOutput;
    expect(Object.keys(message).sort()).toEqual(["call_id", "output", "type"]);
    expect(JSON.parse(message.output)).toMatchObject({
      error_code: "INVALID_ARGUMENTS",
      stage: "validate",
      issues: [expect.objectContaining({ path: "text" })],
    });
  });
});

describe("Gemini shape", () => {
  it("lists functionDeclarations whose schemas use only what Gemini's Schema has", async () => {
    const body = await json<{ format: string; tools: GeminiFunctionDeclaration[] }>(await api("/v1/tools?format=gemini&toolset=all"));
    expect(body.format).toBe("gemini");
    expect([fitsSdkSchema, fitsSdkDeclaration, typeNamesFit]).toHaveLength(3);
    expect(body.tools.length).toBeGreaterThan(5);
    for (const tool of body.tools) {
      expect(Object.keys(tool).sort()).toEqual(["description", "name", "parameters"]);
      expect(tool.parameters.type).toBe(Type.OBJECT);
      expect(schemaProblems(tool.parameters as Record<string, unknown>, tool.name)).toEqual([]);
    }
  });

  it("keeps a tool's fields, requirements and constraints through the conversion", async () => {
    const { tools } = await json<{ tools: GeminiFunctionDeclaration[] }>(await api("/v1/tools?format=gemini&toolset=core"));
    const echo = tools.find((tool) => tool.name === "echo");
    expect(echo?.parameters).toMatchObject({ type: "OBJECT", required: ["text"], properties: { text: { type: "STRING" }, times: { type: "INTEGER" } } });
    expect(echo?.parameters.propertyOrdering?.[0]).toBe("text");
  });

  it("runs functionCall parts and answers functionResponse parts, echoing the id only when sent", async () => {
    const withId: Part = { functionCall: { id: "gem-1", name: "echo", args: { text: "a" } } satisfies FunctionCall };
    const withoutId: Part = { functionCall: { name: "echo", args: { text: "b", uppercase: true } } };
    const { results } = await json<{ results: CallResult[] }>(await api("/v1/tool-calls", { body: { tool_calls: [withId, withoutId] } }));
    const parts = results.map((r) => r.message as GeminiFunctionResponsePart);
    const asSdk: Part[] = parts;
    const response: FunctionResponse = parts[0]?.functionResponse as FunctionResponse;
    expect(asSdk).toHaveLength(2);
    expect(response).toEqual({ id: "gem-1", name: "echo", response: { output: { text: "a" } } });
    expect(parts[1]).toEqual({ functionResponse: { name: "echo", response: { output: { text: "B" } } } });
    expect(results[1]?.id).toMatch(/^gemini_/);
  });

  it("answers a failed call with the error envelope under response.error", async () => {
    const { results } = await json<{ results: CallResult[] }>(
      await api("/v1/tool-calls", { body: { tool_calls: [{ functionCall: { id: "g-bad", name: "no_such_tool", args: {} } }] } }),
    );
    const part = results[0]?.message as GeminiFunctionResponsePart;
    expect(results[0]).toMatchObject({ status: "error", error_code: "UNKNOWN_TOOL" });
    expect(part.functionResponse).toMatchObject({ id: "g-bad", name: "no_such_tool", response: { error: { error_code: "UNKNOWN_TOOL", stage: "lookup" } } });
  });

  it("names the bad field of a malformed functionCall part", async () => {
    const res = await api("/v1/tool-calls", { body: { tool_calls: [{ functionCall: { name: 7 } }] } });
    expect(res.status).toBe(400);
    const body = await json<{ error_code: string; issues: { path: string }[] }>(res);
    expect(body.error_code).toBe("INVALID_REQUEST");
    expect(body.issues.map((i) => i.path)).toEqual(["tool_calls.0.functionCall.name"]);
  });

  it("still names the bad field of an OpenAI call among the shapes", async () => {
    const res = await api("/v1/tool-calls", { body: { tool_calls: [{ type: "function_call", call_id: "c", name: "echo" }] } });
    expect(res.status).toBe(400);
    const body = await json<{ issues: { path: string }[] }>(res);
    expect(body.issues.map((i) => i.path)).toEqual(["tool_calls.0.arguments"]);
  });
});

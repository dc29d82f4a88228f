/**
 * clarify outside a run: over MCP it asks the client's person with elicitation (the official v2
 * client, modern era, answering through its handler), a choice or their own words coming back
 * as the result; a client that declines gets a result saying so; where nobody can be asked
 * (POST /v1/tool-calls) it says where it works instead. In a run: test/agent/run-questions.test.ts.
 */
import { exports } from "cloudflare:workers";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { callTools, only } from "../approvals/support.ts";
import { createKey } from "../support/create-key.ts";
import { TEST_ADMIN_TOKEN } from "../support/test-env.ts";
import { openaiCall } from "../support/tool-calls.ts";

const MCP_BASE = "http://localhost";

/** A modern-era client that answers elicitation with `answer(params)`. */
type Elicited = { action: "accept" | "decline" | "cancel"; content?: Record<string, string> };

async function clientAnswering(answer: (params: Record<string, unknown>) => Elicited): Promise<Client> {
  const client = new Client(
    { name: "clarify-test", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  client.setRequestHandler("elicitation/create", async (request) => answer(request.params as Record<string, unknown>));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${MCP_BASE}/mcp`), {
      fetch: (input, init) => exports.default.fetch(input, init),
      requestInit: { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } },
    }),
  );
  return client;
}

const textOf = (result: Awaited<ReturnType<Client["callTool"]>>): string =>
  (result.content as { type: string; text?: string }[]).map((part) => part.text ?? "").join("");

describe("clarify over MCP", () => {
  it("asks with elicitation, the choices as an enum beside a free-text field, and returns the picked choice", async () => {
    const asked: Record<string, unknown>[] = [];
    const client = await clientAnswering((params) => {
      asked.push(params);
      return { action: "accept", content: { choice: "staging" } };
    });
    const result = await client.callTool({ name: "clarify", arguments: { question: "Which database?", choices: ["staging", "production"] } });
    expect(result.isError).not.toBe(true);
    expect(JSON.parse(textOf(result))).toEqual({ question: "Which database?", choices_offered: ["staging", "production"], user_response: "staging" });
    expect(asked[0]).toMatchObject({
      message: "Which database?",
      requestedSchema: { type: "object", properties: { choice: { type: "string", enum: ["staging", "production"] }, answer: { type: "string" } } },
    });
    await client.close();
  });

  it("prefers the person's own words, and says so when they decline", async () => {
    let action: Elicited["action"] = "accept";
    const client = await clientAnswering(() => (action === "accept" ? { action, content: { choice: "a", answer: "neither, use c" } } : { action }));
    const own = await client.callTool({ name: "clarify", arguments: { question: "A or B?", choices: ["a", "b"] } });
    expect(JSON.parse(textOf(own))).toMatchObject({ user_response: "neither, use c" });
    action = "decline";
    const declined = await client.callTool({ name: "clarify", arguments: { question: "Really?" } });
    expect(JSON.parse(textOf(declined))).toMatchObject({ user_response: null, note: expect.stringContaining("declined") });
    await client.close();
  });
});

describe("clarify where nobody can be asked", () => {
  it("answers POST /v1/tool-calls with an error naming where it works, and refuses a fifth choice or an empty question", async () => {
    const key = await createKey({ name: `clarify-direct-${crypto.randomUUID()}`, role: "agent" });
    const direct = only(await callTools(key, "clarify-s", [openaiCall("c1", "clarify", { question: "Anyone?" })]));
    expect(direct.status).toBe("error");
    expect(JSON.parse(direct.message.content).error).toContain("inside an agent run");
    for (const args of [
      { question: "" },
      { question: "x", choices: ["1", "2", "3", "4", "5"] },
      { question: "x".repeat(2_001) },
      { question: "x", choices: [""] },
    ]) {
      const refused = only(await callTools(key, "clarify-s", [openaiCall("c2", "clarify", args)]));
      expect(JSON.parse(refused.message.content)).toMatchObject({ error_code: "INVALID_ARGUMENTS" });
    }
  });
});

/**
 * The official v2 client as the downstream of a federated call: on /mcp of the app in the test's
 * own realm, in the era a test pins, declaring the capabilities it says and answering
 * elicitation (and sampling) with the test's own handlers.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createApp } from "../../../src/http/app.ts";
import { testParts } from "../../support/dispatch.ts";
import { TEST_ADMIN_TOKEN } from "../../support/test-env.ts";
import { waitForAuditRows } from "../../support/wait-for-audit-rows.ts";
import { fedEnv } from "./helpers.ts";

/** The app the downstream reaches, on the host /mcp answers (its DNS-rebinding guard admits localhost). */
export const app = createApp(testParts);

/** The modern revision, as a v2 client pins it. */
export const MODERN = "2026-07-28";

/** `legacy`: the client negotiates a 2025 revision with initialize; a pin: that revision. */
export type Era = "legacy" | { pin: string };
export type ElicitAnswer = { action: "accept" | "decline" | "cancel"; content?: Record<string, string | number | boolean> };
export type SamplingAnswer = { role: "assistant"; content: { type: "text"; text: string }; model: string };

/** The handlers a downstream answers the upstream's questions with; a missing one is never registered. */
export interface Answers {
  elicit?: (params: Record<string, unknown>) => ElicitAnswer | Promise<ElicitAnswer>;
  sample?: (params: Record<string, unknown>) => SamplingAnswer;
}

/** The official v2 client on /mcp in `era`, declaring `capabilities`, answering with `answers`. */
export async function downstream(era: Era, capabilities: Record<string, unknown>, answers: Answers = {}, env: Env = fedEnv): Promise<Client> {
  const client = new Client({ name: "forwarded-questions-test", version: "1.0.0" }, { capabilities, versionNegotiation: { mode: era } });
  const { elicit, sample } = answers;
  if (elicit !== undefined) client.setRequestHandler("elicitation/create", async (request) => elicit(request.params as Record<string, unknown>));
  if (sample !== undefined) client.setRequestHandler("sampling/createMessage", async (request) => sample(request.params as Record<string, unknown>));
  const transport = new StreamableHTTPClientTransport(new URL("http://localhost/mcp"), {
    fetch: (input, init) => Promise.resolve(app.request(String(input), init, env)),
    requestInit: { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } },
  });
  await client.connect(transport);
  return client;
}

/** The text blocks of a tool result, joined. */
export const textOf = (result: { content?: unknown }): string => ((result.content ?? []) as { text?: string }[]).map((block) => block.text ?? "").join("\n");

/** One call by a fresh downstream that must fail: its text (the client closed). */
export async function failedCallText(
  era: Era,
  capabilities: Record<string, unknown>,
  answers: Answers,
  name: string,
  args: Record<string, unknown>,
): Promise<string> {
  const client = await downstream(era, capabilities, answers);
  try {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError !== true) throw new Error(`${name} succeeded where it should have failed: ${textOf(result)}`);
    return textOf(result);
  } finally {
    await client.close();
  }
}

/**
 * Calls `name` once through `client`, closes it, and returns the audit rows of the tool's
 * successful calls that ended from then on: earlier tests' calls of the same tool ended before,
 * so only this call's row can satisfy the wait.
 */
export async function okAuditRows(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>[]> {
  const from = Date.now();
  await client.callTool({ name, arguments: args });
  await client.close();
  return waitForAuditRows("tool = ? AND status = 'ok' AND at >= ?", [name, from]);
}

/** An answer handler that records each question it is given in `asked`. */
export function recorded<const A>(asked: Record<string, unknown>[], answer: A): (params: Record<string, unknown>) => A {
  return function answerAndRecord(params) {
    asked.push(params);
    return answer;
  };
}

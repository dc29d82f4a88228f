/**
 * The two example plugins that ship in plugins/, proved through every door a call can come in
 * by: POST /v1/tool-calls, /mcp tools/call and a webhook delivery. vitest.config.ts switches
 * them on with PLUGIN_BLOCK_ARGUMENT_PATTERN = `rm\s+-rf\s+/` and
 * PLUGIN_REDACT_RESULT_FIELDS = "api_token, session_cookie".
 */
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { registry } from "../../src/registry/registry.ts";
import { defineWebhook, webhookRegistry } from "../../src/webhooks/webhook-registry.ts";
import { rpc } from "../mcp/helpers.ts";
import { api } from "../support/api.ts";
import { json } from "../support/json.ts";
import { genericHeaders, post, waitForDelivery } from "../webhooks/support.ts";

/** Runs of `plugin_probe` by its `account` argument, to prove a blocked call never ran. */
const runs = new Map<string, number>();

const Call = z.object({ id: z.string(), name: z.string(), arguments: z.record(z.string(), z.unknown()) });

beforeAll(async () => {
  // Through the Worker once, so its entry (and with it plugins.gen.ts) is loaded before any call.
  expect((await api("/health")).status).toBe(200);
  if (!registry.has("plugin_probe")) {
    registry.register({
      name: "plugin_probe",
      toolset: "plugintest",
      schema: z.object({ account: z.string(), notes: z.array(z.string()).default([]) }).describe("Returns an account record with secrets in it."),
      handler: ({ account }) => {
        runs.set(account, (runs.get(account) ?? 0) + 1);
        return { account, api_token: `tok-${account}`, profile: { session_cookie: "sess-1", plan: "pro" }, history: [{ api_token: "old" }] };
      },
    });
  }
  if (webhookRegistry.get("plugintest") === undefined) {
    const outcome = webhookRegistry.register(
      defineWebhook({
        name: "plugintest",
        description: "Runs the calls in its body.",
        verify: "hmac",
        secretEnv: "HOOK_TEST_SECRET",
        toolsets: ["core", "plugintest"],
        payload: z.object({ calls: z.array(Call) }),
        map: ({ payload }) => payload.calls,
      }),
    );
    expect(outcome).toEqual({ ok: true });
  }
});

const REDACTED_RECORD = {
  account: "ada",
  api_token: "[redacted]",
  profile: { session_cookie: "[redacted]", plan: "pro" },
  history: [{ api_token: "[redacted]" }],
};

interface V1Result {
  status: string;
  error_code: string | null;
  message: { content: string };
}

async function callV1(name: string, args: Record<string, unknown>): Promise<V1Result> {
  const response = await api("/v1/tool-calls", {
    body: { tool_calls: [{ id: "call_1", type: "function", function: { name, arguments: JSON.stringify(args) } }] },
  });
  expect(response.status).toBe(200);
  const [result] = (await json<{ results: V1Result[] }>(response)).results;
  if (result === undefined) throw new Error("no result");
  return result;
}

async function deliver(calls: z.infer<typeof Call>[]) {
  const body = JSON.stringify({ calls });
  const response = await post("plugintest", body, await genericHeaders(body));
  expect(response.status).toBe(202);
  const { delivery_id } = await json<{ delivery_id: string }>(response);
  return waitForDelivery(delivery_id);
}

describe("block-argument-pattern", () => {
  it("refuses a /v1 call whose argument matches the pattern, naming the argument but not the pattern", async () => {
    const result = await callV1("echo", { text: "then rm  -rf /home" });
    expect(result).toMatchObject({ status: "error", error_code: "PERMISSION_DENIED" });
    const envelope = JSON.parse(result.message.content) as { error: string; stage: string };
    expect(envelope.stage).toBe("pre_hook");
    expect(envelope.error).toBe("Call to 'echo' refused: argument 'text' matches a pattern this deployment blocks (plugin block-argument-pattern).");
    expect(envelope.error).not.toContain("\\s");
  });

  it("finds the pattern in a nested argument, and the refused tool never runs", async () => {
    const result = await callV1("plugin_probe", { account: "blocked-nested", notes: ["fine", "rm -rf /var"] });
    expect(result.status).toBe("error");
    expect(JSON.parse(result.message.content)).toMatchObject({ error: expect.stringContaining("argument 'notes[1]'") });
    expect(runs.get("blocked-nested")).toBeUndefined();
  });

  it("lets a call without the pattern through unchanged", async () => {
    const result = await callV1("echo", { text: "rm is a command" });
    expect(result).toMatchObject({ status: "ok", message: { content: JSON.stringify({ text: "rm is a command" }) } });
  });

  it("refuses an /mcp tools/call as a tool error the model can read", async () => {
    const answer = await rpc("/mcp", "tools/call", { name: "echo", arguments: { text: "rm -rf /" } });
    expect(answer.error).toBeUndefined();
    expect(answer.result).toMatchObject({ isError: true });
    expect(JSON.stringify(answer.result)).toContain("argument 'text' matches a pattern this deployment blocks");
  });

  it("refuses a call of a webhook delivery and runs the delivery's other calls", async () => {
    const view = await deliver([
      { id: "bad", name: "plugin_probe", arguments: { account: "hook-blocked", notes: ["rm -rf /"] } },
      { id: "good", name: "echo", arguments: { text: "hello" } },
    ]);
    expect(view.status).toBe("done");
    expect(view.results).toMatchObject([
      { id: "bad", status: "error", error_code: "PERMISSION_DENIED", content: expect.stringContaining("argument 'notes[0]'") },
      { id: "good", status: "ok" },
    ]);
    expect(runs.get("hook-blocked")).toBeUndefined();
  });
});

describe("redact-result-fields", () => {
  it("replaces the named fields at any depth in a /v1 result and keeps the rest", async () => {
    const result = await callV1("plugin_probe", { account: "ada" });
    expect(result.status).toBe("ok");
    expect(JSON.parse(result.message.content)).toEqual(REDACTED_RECORD);
  });

  it("redacts the text of an /mcp tools/call result", async () => {
    const answer = await rpc("/mcp", "tools/call", { name: "plugin_probe", arguments: { account: "ada" } });
    const [block] = answer.result?.content as { type: string; text: string }[];
    expect(block?.type).toBe("text");
    expect(JSON.parse(block?.text ?? "")).toEqual(REDACTED_RECORD);
  });

  it("redacts the result a webhook delivery stores", async () => {
    const view = await deliver([{ id: "c1", name: "plugin_probe", arguments: { account: "ada" } }]);
    expect(view.results).toMatchObject([{ id: "c1", status: "ok" }]);
    expect(JSON.parse(view.results?.[0]?.content ?? "")).toEqual(REDACTED_RECORD);
  });

  it("leaves a result without the named fields as the tool wrote it", async () => {
    const result = await callV1("echo", { text: "api_token" });
    expect(result.message.content).toBe(JSON.stringify({ text: "api_token" }));
  });
});

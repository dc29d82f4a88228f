/**
 * x-request-id end to end through the Worker's fetch handler: on every response, in the audit
 * rows of the request's calls, on webhook deliveries and their calls' rows, and as the current
 * id while a handler runs (what the console tagging reads).
 */
import { env, exports } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { registry } from "../../src/registry/registry.ts";
import { currentRequestId, withRequestId } from "../../src/tracing/request-context.ts";
import { tagConsoleWithRequestId } from "../../src/tracing/tag-console.ts";
import { api } from "../support/api.ts";
import { json } from "../support/json.ts";
import { openaiCall } from "../support/tool-calls.ts";
import { waitForAuditRows } from "../support/wait-for-audit-rows.ts";
import { genericHeaders, post, registerProbeWebhook, waitForDelivery } from "../webhooks/support.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

beforeAll(() => {
  registry.register({
    name: "trace_probe",
    toolset: "trace-test",
    schema: z.object({ note: z.string() }),
    description: "Answers with the request id its handler runs under.",
    handler: () => ({ requestId: currentRequestId() ?? null }),
  });
});
afterAll(() => registry.deregister("trace_probe"));

describe("x-request-id on responses", () => {
  it("is a fresh UUID on every answer when none is sent: public, authenticated, refused and unknown routes", async () => {
    const answers = await Promise.all([
      exports.default.fetch("https://toolgate.test/health"),
      api("/v1/tools"),
      exports.default.fetch("https://toolgate.test/v1/tools"),
      api("/v1/no-such-route"),
      api("/v1/tool-calls", { body: "{not json" }),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 401, 404, 400]);
    const ids = answers.map((r) => r.headers.get("x-request-id") ?? "");
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("echoes a well-formed id the client sent and replaces a malformed one", async () => {
    const sent = "trace-7f3a.b:c/d+e=@1";
    expect((await api("/v1/tools", { headers: { "x-request-id": sent } })).headers.get("x-request-id")).toBe(sent);
    for (const bad of ["has space", "x".repeat(129), 'quote"d', ""]) {
      const res = await api("/v1/tools", { headers: { "x-request-id": bad } });
      expect(res.headers.get("x-request-id")).toMatch(UUID);
    }
  });
});

describe("x-request-id in what a request writes", () => {
  it("is the current id while the request's handlers run, so their log lines are tagged with it", async () => {
    const id = `run-${crypto.randomUUID()}`;
    const res = await api("/v1/tool-calls", { headers: { "x-request-id": id }, body: { tool_calls: [openaiCall("c1", "trace_probe", '{"note":"x"}')] } });
    const { results } = await json<{ results: { message: { content: string } }[] }>(res);
    expect(JSON.parse(results[0]?.message.content ?? "{}")).toEqual({ requestId: id });
  });

  it("is in every audit row of the request's calls, and in the audit API", async () => {
    const id = `audit-${crypto.randomUUID()}`;
    const session = `trace-${crypto.randomUUID()}`;
    await api("/v1/tool-calls", {
      headers: { "x-request-id": id },
      body: { session_id: session, tool_calls: [openaiCall("a1", "echo", '{"text":"x"}'), openaiCall("a2", "nope", "{}")] },
    });
    const rows = await waitForAuditRows("session_id = ?", [session], 2);
    expect(rows.map((r) => [r.tool_call_id, r.request_id])).toEqual(
      expect.arrayContaining([
        ["a1", id],
        ["a2", id],
      ]),
    );
    const listed = await json<{ records: { request_id: string | null }[] }>(await api(`/v1/audit?session_id=${session}`));
    expect(listed.records.map((r) => r.request_id)).toEqual([id, id]);
  });

  it("is on a webhook delivery's row, in GET /v1/hooks/deliveries/{id}, and on the audit rows of the calls it ran later", async () => {
    registerProbeWebhook("t-trace");
    const id = `hook-${crypto.randomUUID()}`;
    const body = JSON.stringify({ keys: ["trace-1"] });
    const res = await post("t-trace", body, { ...(await genericHeaders(body)), "x-request-id": id });
    expect(res.status).toBe(202);
    expect(res.headers.get("x-request-id")).toBe(id);
    const { delivery_id } = await json<{ delivery_id: string }>(res);
    await waitForDelivery(delivery_id);
    const row = await env.DB.prepare("SELECT request_id FROM hook_deliveries WHERE id = ?").bind(delivery_id).first<{ request_id: string }>();
    expect(row?.request_id).toBe(id);
    const shown = await json<{ request_id: string | null }>(await api(`/v1/hooks/deliveries/${delivery_id}`));
    expect(shown.request_id).toBe(id);
    const audit = await waitForAuditRows("session_id = ?", [delivery_id]);
    expect(audit[0]?.request_id).toBe(id);
  });
});

describe("x-request-id of an approval's decision", () => {
  it("is on the audit record of the approved call, which runs in the session's object", async () => {
    const session = `trace-appr-${crypto.randomUUID()}`;
    const asked = await json<{ results: { approval?: { id: string } }[] }>(
      await api("/v1/tool-calls", { body: { session_id: session, tool_calls: [openaiCall("d1", "delete_result", { handle: crypto.randomUUID() })] } }),
    );
    const approvalId = asked.results[0]?.approval?.id ?? "";
    expect(approvalId).not.toBe("");
    const decisionId = `decide-${crypto.randomUUID()}`;
    const decided = await api(`/v1/approvals/${approvalId}`, { headers: { "x-request-id": decisionId }, body: { decision: "approve", scope: "once" } });
    expect(decided.status).toBe(200);
    expect(decided.headers.get("x-request-id")).toBe(decisionId);
    const rows = await waitForAuditRows("session_id = ? AND request_id = ?", [session, decisionId]);
    expect(rows[0]).toMatchObject({ approval_id: approvalId, tool: "delete_result" });
  });
});

describe("console tagging", () => {
  it("prefixes lines written inside a request with its id and leaves others alone", () => {
    const lines: unknown[][] = [];
    const sink = {
      log: (...a: unknown[]) => lines.push(a),
      info: (...a: unknown[]) => lines.push(a),
      warn: (...a: unknown[]) => lines.push(a),
      error: (...a: unknown[]) => lines.push(a),
      debug: (...a: unknown[]) => lines.push(a),
    };
    tagConsoleWithRequestId(sink);
    tagConsoleWithRequestId(sink);
    sink.error("outside");
    withRequestId("req-42", () => {
      sink.error("failed: %s", "why");
      sink.warn({ detail: 1 });
    });
    expect(lines).toEqual([["outside"], ["[request_id=req-42] failed: %s", "why"], ["[request_id=req-42]", { detail: 1 }]]);
  });
});

/**
 * toolgate's own spans and log lines (src/tracing/): each call's `execute_tool` span, with the
 * GenAI attributes and ours, sent after the response over OTLP/HTTP JSON to a loopback collector
 * that decodes it (test/support/otlp-receiver.ts); a collector that fails or hangs costs the call
 * nothing and is counted on GET /metrics; and one JSON log line per request and per call.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createParts } from "../../src/compose.ts";
import { createApp } from "../../src/http/app.ts";
import type { ReceivedSpan } from "../support/otlp-receiver.ts";
import { TEST_ADMIN_TOKEN } from "../support/test-env.ts";
import { openaiCall } from "../support/tool-calls.ts";
import { waitForAuditRows } from "../support/wait-for-audit-rows.ts";

const app = createApp(createParts());
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

/** POSTs a batch of calls with OTLP export to `endpoint`; resolves at the response, with the context whose waitUntil holds the export. */
async function callWithExport(endpoint: string, calls: unknown[], headers: Record<string, string> = {}) {
  const ctx = createExecutionContext();
  const bindings = { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Bearer%20collector-key" };
  const response = await app.request(
    "/v1/tool-calls",
    { method: "POST", headers: { ...admin, "content-type": "application/json", ...headers }, body: JSON.stringify({ tool_calls: calls }) },
    bindings,
    ctx,
  );
  return { response, ctx };
}

const spansIn = async (inbox: string) => (await (await fetch(`http://otlp.test/spans/${inbox}`)).json()) as ReceivedSpan[];

async function failureCounters(): Promise<{ failures: number; dropped: number }> {
  const text = await (await app.request("/metrics", { headers: admin }, env)).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, "m").exec(text)?.[1] ?? Number.NaN);
  return { failures: value("toolgate_otlp_export_failures_total"), dropped: value("toolgate_otlp_spans_dropped_total") };
}

afterEach(() => vi.restoreAllMocks());

describe("toolgate's spans", () => {
  it("sends one execute_tool span per call after the response, with the GenAI and toolgate attributes", async () => {
    const inbox = `spans-${crypto.randomUUID()}`;
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const { response, ctx } = await callWithExport(
      `http://otlp.test/${inbox}/`,
      [openaiCall("call-ok", "echo", { text: "hi" }), openaiCall("call-bad", "echo", { text: 42 })],
      { traceparent: `00-${traceId}-00f067aa0ba902b7-01`, "x-request-id": `req-${inbox}` },
    );
    expect(response.status).toBe(200);
    await waitOnExecutionContext(ctx);

    const spans = await spansIn(inbox);
    expect(spans.map((s) => s.name)).toEqual(["execute_tool echo", "execute_tool echo"]);
    const [ok, bad] = spans;
    expect(ok).toMatchObject({
      traceId,
      parentSpanId: "00f067aa0ba902b7",
      kind: 1,
      status: { code: 0 },
      resource: { "service.name": "toolgate" },
      authorization: "Bearer collector-key",
      attributes: {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "echo",
        "gen_ai.tool.call.id": "call-ok",
        "toolgate.request_id": `req-${inbox}`,
        "toolgate.principal": "admin-token",
        "toolgate.status": "ok",
      },
    });
    expect(typeof ok?.attributes["toolgate.duration_ms"]).toBe("number");
    expect(BigInt(ok?.endTimeUnixNano ?? "0") - BigInt(ok?.startTimeUnixNano ?? "0")).toBe(BigInt(Number(ok?.attributes["toolgate.duration_ms"]) * 1_000_000));
    expect(ok?.attributes).not.toHaveProperty("error.type");
    expect(bad).toMatchObject({
      status: { code: 2, message: "INVALID_ARGUMENTS" },
      attributes: {
        "gen_ai.tool.call.id": "call-bad",
        "toolgate.status": "error",
        "toolgate.error_code": "INVALID_ARGUMENTS",
        "error.type": "INVALID_ARGUMENTS",
      },
    });
    expect(ok?.spanId).not.toBe(bad?.spanId);
  });

  it("starts a trace of its own for a request without a traceparent", async () => {
    const inbox = `fresh-${crypto.randomUUID()}`;
    const { ctx } = await callWithExport(`http://otlp.test/${inbox}`, [openaiCall("c1", "echo", { text: "a" })], {
      traceparent: "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
    });
    await waitOnExecutionContext(ctx);
    const [span] = await spansIn(inbox);
    expect(span?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span?.traceId).not.toBe("00000000000000000000000000000000");
    expect(span).not.toHaveProperty("parentSpanId");
  });
});

describe("a collector in trouble", () => {
  it("costs a call nothing when it answers 500, and the failure is counted on /metrics", async () => {
    const before = await failureCounters();
    const session = `otlp-fail-${crypto.randomUUID()}`;
    const ctx = createExecutionContext();
    const response = await app.request(
      "/v1/tool-calls",
      {
        method: "POST",
        headers: { ...admin, "content-type": "application/json" },
        body: JSON.stringify({ session_id: session, tool_calls: [openaiCall("f1", "echo", { text: "a" }), openaiCall("f2", "echo", { text: "b" })] }),
      },
      { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: "http://otlp.test/fail" },
      ctx,
    );
    expect(response.status).toBe(200);
    expect((await response.json()) as { results: { status: string }[] }).toMatchObject({ results: [{ status: "ok" }, { status: "ok" }] });
    await waitOnExecutionContext(ctx);
    // The audit records are not lost.
    await waitForAuditRows("session_id = ?", [session], 2);
    expect(await failureCounters()).toEqual({ failures: before.failures + 1, dropped: before.dropped + 2 });
  });

  it("does not hold the response while the collector hangs", async () => {
    const inbox = `slow-${crypto.randomUUID()}`;
    const { response, ctx } = await callWithExport(`http://otlp.test/slow/${inbox}`, [openaiCall("s1", "echo", { text: "a" })]);
    // The response is here while the export is still held by the collector.
    expect(response.status).toBe(200);
    await vi.waitFor(async () => expect(await (await fetch(`http://otlp.test/held/${inbox}`)).json()).toEqual({ held: 1 }));
    await fetch(`http://otlp.test/release/${inbox}`);
    await waitOnExecutionContext(ctx);
    expect((await spansIn(inbox)).map((s) => s.name)).toEqual(["execute_tool echo"]);
  });

  it("counts an endpoint that is not a URL as a failed export, without failing the call", async () => {
    const before = await failureCounters();
    const { response, ctx } = await callWithExport("not a url", [openaiCall("u1", "echo", { text: "a" })]);
    expect(response.status).toBe(200);
    await waitOnExecutionContext(ctx);
    expect(await failureCounters()).toEqual({ failures: before.failures + 1, dropped: before.dropped + 1 });
  });
});

describe("structured log lines", () => {
  it("writes one JSON line per request and one per call, with the same fields", async () => {
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: unknown) => void lines.push(String(line)));
    const requestId = `log-${crypto.randomUUID()}`;
    const ctx = createExecutionContext();
    await app.request(
      "/v1/tool-calls",
      {
        method: "POST",
        headers: { ...admin, "content-type": "application/json", "x-request-id": requestId },
        body: JSON.stringify({ tool_calls: [openaiCall("l1", "echo", { text: "a" }), openaiCall("l2", "no_such_tool", {})] }),
      },
      env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    vi.restoreAllMocks();
    const parsed = lines.filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as Record<string, unknown>);
    const mine = parsed.filter((line) => line.request_id === requestId);
    const calls = mine.filter((line) => line.event === "tool_call");
    const requests = mine.filter((line) => line.event === "request");
    expect(calls.map((line) => [line.tool_call_id, line.status, line.error_code])).toEqual([
      ["l1", "ok", null],
      ["l2", "error", "UNKNOWN_TOOL"],
    ]);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ principal: "admin-token", status: 200, error_code: null, method: "POST", path: "/v1/tool-calls" });
    const shared = ["event", "request_id", "trace_id", "principal", "status", "error_code", "duration_ms"];
    for (const line of [...calls, ...requests]) expect(Object.keys(line)).toEqual(expect.arrayContaining(shared));
    expect(new Set(mine.map((line) => line.trace_id)).size).toBe(1);
  });

  it("names a failed request's error code on its line", async () => {
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: unknown) => void lines.push(String(line)));
    const requestId = `log-fail-${crypto.randomUUID()}`;
    await app.request("/v1/tools", { headers: { authorization: "Bearer tg_nope", "x-request-id": requestId } }, env);
    vi.restoreAllMocks();
    const line = lines.map((l) => (l.startsWith("{") ? (JSON.parse(l) as Record<string, unknown>) : {})).find((l) => l.request_id === requestId);
    expect(line).toMatchObject({ event: "request", status: 401, error_code: "UNAUTHENTICATED", principal: null });
  });
});

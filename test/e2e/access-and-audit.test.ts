/**
 * The production layer end to end, through the Worker's own fetch handler with real D1, KV,
 * queues and Durable Objects: keys and their access policy on every route, one audit record per
 * call delivered through the queue, and per-key rate limits.
 */
import { describe, expect, it } from "vitest";
import { api } from "../support/api.ts";
import { createKey } from "../support/create-key.ts";
import { json } from "../support/json.ts";
import { openaiCall } from "../support/tool-calls.ts";
import { waitForAuditRows } from "../support/wait-for-audit-rows.ts";

const as = (key: string) => ({ authorization: `Bearer ${key}` });

describe("authentication", () => {
  it("answers 401 JSON without a key or with a bad one, and keeps public routes public", async () => {
    for (const headers of [{ authorization: "" }, { authorization: "Bearer tg_not_a_real_key" }, { authorization: "Basic abc" }]) {
      const res = await api("/v1/tools", { headers });
      expect(res.status).toBe(401);
      expect(await json(res)).toMatchObject({ error_code: "UNAUTHENTICATED" });
    }
    for (const path of ["/", "/health", "/openapi.json", "/docs"]) expect((await api(path, { headers: { authorization: "" } })).status).toBe(200);
  });

  it("answers 403 JSON when the role is wrong", async () => {
    const agent = await createKey({ name: "e2e-agent-role", role: "agent" });
    for (const [path, body] of [
      ["/v1/keys", { name: "x", role: "agent" }],
      ["/v1/toolsets", { name: "e2e-x" }],
      ["/v1/health/tools/recheck", {}],
    ] as const) {
      const res = await api(path, { body, headers: as(agent.key) });
      expect(res.status).toBe(403);
      expect(await json(res)).toMatchObject({ error_code: "FORBIDDEN" });
    }
  });

  it("stops a revoked key", async () => {
    const key = await createKey({ name: "e2e-revoked", role: "agent" });
    expect((await api("/v1/tools", { headers: as(key.key) })).status).toBe(200);
    expect((await api(`/v1/keys/${key.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await api("/v1/tools", { headers: as(key.key) })).status).toBe(401);
  });
});

describe("a key limited to one toolset", () => {
  it("cannot reach another toolset's tool through any route", async () => {
    const key = await createKey({ name: "e2e-core-only", role: "agent", toolsets: ["core"] });
    const headers = as(key.key);

    const listed = await json<{ tools: { name: string }[] }>(await api("/v1/tools?format=mcp", { headers }));
    expect(listed.tools.map((t) => t.name)).toEqual(["current_time", "echo", "generate_lines"]);
    const viaToolset = await json<{ tools: { name: string }[] }>(await api("/v1/tools?format=mcp&toolset=research", { headers }));
    expect(viaToolset.tools.map((t) => t.name)).not.toContain("read_result");

    const detail = await api("/v1/tools/read_result", { headers });
    expect(detail.status).toBe(404);
    expect(JSON.stringify(await json(detail))).not.toContain("read_result'?");

    const health = await json<{ tools: { name: string }[] }>(await api("/v1/health/tools", { headers }));
    expect(health.tools.map((t) => t.name)).toEqual(["current_time", "echo", "generate_lines"]);

    const calls = await json<{ results: { error_code: string | null; message: { content: string } }[] }>(
      await api("/v1/tool-calls", {
        headers,
        body: {
          tool_calls: [
            openaiCall("c1", "read_result", { handle: crypto.randomUUID() }),
            openaiCall("c2", "echo", { text: "ok" }),
            openaiCall("c3", "read_resul", {}),
          ],
        },
      }),
    );
    expect(calls.results.map((r) => r.error_code)).toEqual(["PERMISSION_DENIED", null, "UNKNOWN_TOOL"]);
    expect(JSON.parse(calls.results[0]?.message.content ?? "{}")).toMatchObject({ stage: "policy" });
    // The near-miss suggestion must not name a tool the key may not use.
    expect(calls.results[2]?.message.content).not.toContain("read_result");

    const toolset = await json<{ tools: string[]; resolved_tools: string[] }>(await api("/v1/toolsets/research", { headers }));
    expect(toolset.resolved_tools).toEqual(["current_time", "echo", "generate_lines"]);
    const all = await json<{ toolsets: { resolved_tools: string[] }[] }>(await api("/v1/toolsets", { headers }));
    expect(all.toolsets.flatMap((t) => t.resolved_tools)).not.toContain("read_result");

    const keys = await api("/v1/keys", { headers });
    expect(keys.status).toBe(403);
  });

  it("applies whitelist patterns and names the rule in the audit log", async () => {
    const key = await createKey({ name: "e2e-whitelist", role: "agent", policy: { mode: "whitelist", patterns: ["echo", "current_*"] } });
    const session = `e2e-wl-${crypto.randomUUID()}`;
    const res = await json<{ results: { error_code: string | null }[] }>(
      await api("/v1/tool-calls", {
        headers: as(key.key),
        body: {
          session_id: session,
          tool_calls: [openaiCall("a", "echo", { text: "x" }), openaiCall("b", "current_time", {}), openaiCall("c", "generate_lines", { count: 1 })],
        },
      }),
    );
    expect(res.results.map((r) => r.error_code)).toEqual([null, null, "PERMISSION_DENIED"]);
    const rows = await waitForAuditRows("session_id = ?", [session], 3);
    const byCall = Object.fromEntries(rows.map((r) => [r.tool_call_id, [r.status, r.policy_decision, r.policy_rule]]));
    expect(byCall).toEqual({
      a: ["ok", "allow", "whitelist:echo"],
      b: ["ok", "allow", "whitelist:current_*"],
      c: ["blocked", "deny", "default:deny"],
    });
  });
});

describe("audit log", () => {
  it("records every call exactly once, whatever its outcome, with redacted arguments", async () => {
    const session = `e2e-audit-${crypto.randomUUID()}`;
    await api("/v1/tool-calls", {
      body: {
        session_id: session,
        tool_calls: [
          openaiCall("ok", "echo", { text: "hello" }),
          openaiCall("unknown", "nope", {}),
          openaiCall("invalid", "echo", { text: 5 }),
          { id: "malformed", type: "function", function: { name: "echo", arguments: '{"text": ' } },
          openaiCall("secret", "echo", { text: "x", api_key: "sk-should-not-be-stored" }),
        ],
      },
    });
    const rows = await waitForAuditRows("session_id = ?", [session], 5);
    expect(rows).toHaveLength(5);
    const byCall = Object.fromEntries(rows.map((r) => [r.tool_call_id, r]));
    expect(byCall.ok).toMatchObject({ status: "ok", tool: "echo", toolset: "core", key_id: "admin-token", attempts: 1, error_code: null });
    expect(byCall.unknown).toMatchObject({ status: "error", error_code: "UNKNOWN_TOOL", attempts: 0 });
    expect(byCall.invalid).toMatchObject({ status: "error", error_code: "INVALID_ARGUMENTS" });
    expect(byCall.malformed).toMatchObject({ error_code: "INVALID_ARGUMENTS" });
    expect(String(byCall.secret?.arguments)).not.toContain("sk-should-not-be-stored");
    const listed = await json<{ records: { tool_call_id: string; arguments_sha256: string }[] }>(await api(`/v1/audit?session_id=${session}`));
    expect(listed.records.find((r) => r.tool_call_id === "secret")?.arguments_sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("keeps why a failed call failed, with its first field issue, in the log, the API and the stats", async () => {
    const session = `e2e-why-${crypto.randomUUID()}`;
    const since = Date.now() - 1000;
    await api("/v1/tool-calls", {
      body: {
        session_id: session,
        tool_calls: [
          openaiCall("w1", "echo", { text: 5 }),
          openaiCall("w2", "echo", { text: 5 }),
          openaiCall("w3", "nope", {}),
          openaiCall("w4", "echo", { text: "fine" }),
        ],
      },
    });
    const rows = await waitForAuditRows("session_id = ?", [session], 4);
    const byCall = Object.fromEntries(rows.map((r) => [r.tool_call_id, r]));
    expect(byCall.w1?.error_message).toMatch(/'text': expected string/);
    expect(byCall.w3?.error_message).toContain("nope");
    expect(byCall.w4?.error_message).toBeNull();
    const listed = await json<{ records: { tool_call_id: string; error_message: string | null }[] }>(await api(`/v1/audit?session_id=${session}&status=error`));
    expect(listed.records.map((r) => [r.tool_call_id, r.error_message === null]).sort()).toEqual([
      ["w1", false],
      ["w2", false],
      ["w3", false],
    ]);
    const stats = await json<{ tools: { tool: string; top_messages: { message: string; calls: number }[] }[] }>(
      await api(`/v1/audit/stats?since=${since}&tool=echo`),
    );
    expect(stats.tools.find((t) => t.tool === "echo")?.top_messages[0]).toEqual({ message: byCall.w1?.error_message, calls: 2 });
  });

  it("leaves exactly one record per call under concurrent load", async () => {
    const session = `e2e-load-${crypto.randomUUID()}`;
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        api("/v1/tool-calls", {
          body: { session_id: session, tool_calls: [openaiCall(`r${i}-a`, "echo", { text: "a" }), openaiCall(`r${i}-b`, "current_time", {})] },
        }),
      ),
    );
    const rows = await waitForAuditRows("session_id = ?", [session], 80);
    expect(rows).toHaveLength(80);
    expect(new Set(rows.map((r) => r.tool_call_id)).size).toBe(80);
  });

  it("shows an agent only its own records", async () => {
    const mine = await createKey({ name: "e2e-audit-mine", role: "agent" });
    const session = `e2e-scope-${crypto.randomUUID()}`;
    await api("/v1/tool-calls", { headers: as(mine.key), body: { session_id: session, tool_calls: [openaiCall("m", "echo", { text: "m" })] } });
    await api("/v1/tool-calls", { body: { session_id: session, tool_calls: [openaiCall("a", "echo", { text: "a" })] } });
    await waitForAuditRows("session_id = ?", [session], 2);
    const seen = await json<{ records: { tool_call_id?: string; key_id?: string }[] }>(await api(`/v1/audit?session_id=${session}`, { headers: as(mine.key) }));
    expect(seen.records.map((r) => r.key_id)).toEqual([mine.id]);
    const all = await json<{ records: unknown[] }>(await api(`/v1/audit?session_id=${session}`));
    expect(all.records).toHaveLength(2);
  });
});

describe("rate limits", () => {
  it("refuses calls past the key's own per-minute limit with RATE_LIMITED and retry_after_ms", async () => {
    const key = await createKey({ name: "e2e-limited", role: "agent", rate_limit_per_minute: 2 });
    const res = await json<{ results: { error_code: string | null; message: { content: string } }[] }>(
      await api("/v1/tool-calls", {
        headers: as(key.key),
        body: { tool_calls: [openaiCall("1", "echo", { text: "1" }), openaiCall("2", "echo", { text: "2" }), openaiCall("3", "echo", { text: "3" })] },
      }),
    );
    expect(res.results.map((r) => r.error_code)).toEqual([null, null, "RATE_LIMITED"]);
    const envelope = JSON.parse(res.results[2]?.message.content ?? "{}") as { retry_after_ms: number; stage: string };
    expect(envelope.stage).toBe("policy");
    expect(envelope.retry_after_ms).toBeGreaterThan(0);
    const next = await json<{ results: { error_code: string | null }[] }>(
      await api("/v1/tool-calls", { headers: as(key.key), body: { tool_calls: [openaiCall("4", "echo", { text: "4" })] } }),
    );
    expect(next.results[0]?.error_code).toBe("RATE_LIMITED");
  });
});

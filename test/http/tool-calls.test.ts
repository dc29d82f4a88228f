import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api } from "../support/api.ts";
import { json } from "../support/json.ts";
import { TEST_ADMIN_TOKEN } from "../support/test-env.ts";
import { anthropicCall, openaiCall } from "../support/tool-calls.ts";

interface Batch {
  session_id: string;
  results: { id: string; tool: string; status: string; error_code: string | null; duration_ms: number; truncated: boolean; message: Record<string, unknown> }[];
}

describe("POST /v1/tool-calls", () => {
  it("answers OpenAI calls with tool messages ready to append, in order", async () => {
    const res = await api("/v1/tool-calls", {
      body: { tool_calls: [openaiCall("c1", "echo", '{"text":"a"}'), openaiCall("c2", "echo", '{"text":"b","times":"2"}')] },
    });
    expect(res.status).toBe(200);
    const body = await json<Batch>(res);
    expect(body.results.map((r) => r.message)).toEqual([
      { role: "tool", tool_call_id: "c1", content: '{"text":"a"}' },
      { role: "tool", tool_call_id: "c2", content: '{"text":"b b"}' },
    ]);
    expect(body.results[0]).toMatchObject({ id: "c1", tool: "echo", status: "ok", error_code: null, truncated: false });
    expect(body.results[0]?.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it("answers Anthropic tool_use blocks with tool_result blocks", async () => {
    const body = await json<Batch>(await api("/v1/tool-calls", { body: { tool_calls: [anthropicCall("toolu_1", "echo", { text: "hi", uppercase: true })] } }));
    expect(body.results[0]?.message).toEqual({ type: "tool_result", tool_use_id: "toolu_1", content: '{"text":"HI"}', is_error: false });
  });

  it("keeps one failing call from failing the batch", async () => {
    const body = await json<Batch>(
      await api("/v1/tool-calls", {
        body: { tool_calls: [openaiCall("c1", "nope", "{}"), anthropicCall("t2", "echo", { text: 1 }), openaiCall("c3", "echo", '{"text":"ok"}')] },
      }),
    );
    expect(body.results.map((r) => [r.status, r.error_code])).toEqual([
      ["error", "UNKNOWN_TOOL"],
      ["error", "INVALID_ARGUMENTS"],
      ["ok", null],
    ]);
    expect(body.results[1]?.message).toMatchObject({ type: "tool_result", is_error: true });
    const envelope = JSON.parse(String(body.results[1]?.message.content)) as Record<string, unknown>;
    expect(envelope).toMatchObject({ error_code: "INVALID_ARGUMENTS", stage: "validate", retryable: false, suggestion: expect.any(String) });
  });

  it("refuses a tool outside the requested toolset for that call only", async () => {
    const body = await json<Batch>(
      await api("/v1/tool-calls", {
        body: {
          toolset: "results",
          tool_calls: [openaiCall("c1", "echo", '{"text":"x"}'), openaiCall("c2", "read_result", `{"handle":"${crypto.randomUUID()}"}`)],
        },
      }),
    );
    expect(body.results.map((r) => r.error_code)).toEqual(["PERMISSION_DENIED", "EXECUTION_FAILED"]);
  });

  it("generates a session id when none is sent and echoes one that is", async () => {
    const generated = await json<Batch>(await api("/v1/tool-calls", { body: { tool_calls: [openaiCall("c1", "echo", '{"text":"x"}')] } }));
    expect(generated.session_id).toMatch(/^[0-9a-f-]{36}$/);
    const given = await json<Batch>(await api("/v1/tool-calls", { body: { session_id: "conv-42", tool_calls: [openaiCall("c1", "echo", '{"text":"x"}')] } }));
    expect(given.session_id).toBe("conv-42");
  });

  it("truncates an oversized result and marks it", async () => {
    const body = await json<Batch>(await api("/v1/tool-calls", { body: { tool_calls: [openaiCall("c1", "generate_lines", '{"count": 5000}')] } }));
    expect(body.results[0]).toMatchObject({ status: "ok", truncated: true });
    expect(String(body.results[0]?.message.content)).toMatch(/characters omitted.*read_result/s);
  });
});

describe("request-level errors", () => {
  it("answers a body that is not JSON with 400 and a JSON error", async () => {
    const res = await api("/v1/tool-calls", { body: "{not json" });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ error_code: "MALFORMED_BODY" });
  });

  it("names the field of a body of the wrong shape", async () => {
    const res = await api("/v1/tool-calls", { body: { tool_calls: [{ id: "c1", type: "function", function: { name: 3 } }] } });
    expect(res.status).toBe(400);
    const body = await json<{ error_code: string; issues: { path: string }[] }>(res);
    expect(body.error_code).toBe("INVALID_REQUEST");
    expect(body.issues.map((i) => i.path)).toEqual(expect.arrayContaining(["tool_calls.0.function.name"]));
  });

  it("refuses an empty batch and an unknown call type", async () => {
    expect((await api("/v1/tool-calls", { body: { tool_calls: [] } })).status).toBe(400);
    const res = await api("/v1/tool-calls", { body: { tool_calls: [{ type: "custom", id: "x" }] } });
    expect(await json(res)).toMatchObject({ issues: [{ path: "tool_calls.0.type" }] });
  });

  it("answers a missing body with 400 naming tool_calls", async () => {
    const res = await api("/v1/tool-calls", { method: "POST" });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ error_code: "INVALID_REQUEST", issues: [{ path: "tool_calls" }] });
  });

  it("answers a body sent as another content type with 415", async () => {
    const res = await exports.default.fetch("https://toolgate.test/v1/tool-calls", {
      method: "POST",
      headers: { "content-type": "text/plain", authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      body: "{}",
    });
    expect(res.status).toBe(415);
    expect(await json(res)).toMatchObject({ error_code: "UNSUPPORTED_MEDIA_TYPE", error: expect.stringContaining("text/plain") });
  });

  it("takes JSON under any of its media types, and refuses a body sent without a content type", async () => {
    const post = (headers: Record<string, string>, body: string) =>
      exports.default.fetch("https://toolgate.test/v1/tool-calls", {
        method: "POST",
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, ...headers },
        body,
      });
    const echo = JSON.stringify({ tool_calls: [openaiCall("c1", "echo", '{"text":"hi"}')] });
    for (const type of ["application/json; charset=utf-8", "application/vnd.toolgate+json", "APPLICATION/JSON"]) {
      const res = await post({ "content-type": type }, echo);
      expect(res.status, type).toBe(200);
    }
    const untyped = await post({}, echo);
    expect(untyped.status).toBe(415);
    expect(await json(untyped)).toMatchObject({ error_code: "UNSUPPORTED_MEDIA_TYPE" });
    const malformed = await post({ "content-type": "application/json" }, "{not json");
    expect(await json(malformed)).toMatchObject({ error_code: "MALFORMED_BODY", error: expect.stringContaining("Malformed JSON in request body") });
  });

  it("answers a body over the limit with 413", async () => {
    const res = await api("/v1/tool-calls", { body: { tool_calls: [openaiCall("c1", "echo", JSON.stringify({ text: "x".repeat(1_100_000) }))] } });
    expect(res.status).toBe(413);
    expect(await json(res)).toMatchObject({ error_code: "PAYLOAD_TOO_LARGE" });
  });

  it("answers 413 to a body over the limit sent without a Content-Length (chunked), and runs one within it", async () => {
    const chunked = (text: string) => {
      const request = new Request("http://gateway.test/v1/tool-calls", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        body: new Blob([text]).stream(),
      });
      // What makes it the counted path: no length for the limit to judge by.
      expect(request.headers.get("content-length")).toBeNull();
      return exports.default.fetch(request);
    };
    const over = await chunked(JSON.stringify({ tool_calls: [openaiCall("c1", "echo", JSON.stringify({ text: "x".repeat(1_100_000) }))] }));
    expect(over.status).toBe(413);
    expect(await json(over)).toMatchObject({ error_code: "PAYLOAD_TOO_LARGE" });
    const within = await chunked(JSON.stringify({ tool_calls: [openaiCall("c1", "echo", '{"text":"a"}')] }));
    expect(within.status).toBe(200);
    expect((await json<Batch>(within)).results[0]?.message).toEqual({ role: "tool", tool_call_id: "c1", content: '{"text":"a"}' });
  });

  it("answers a batch over the call limit with 413 naming the limit", async () => {
    const calls = Array.from({ length: 65 }, (_, i) => openaiCall(`c${i}`, "echo", '{"text":"x"}'));
    const res = await api("/v1/tool-calls", { body: { tool_calls: calls } });
    expect(res.status).toBe(413);
    expect(await json(res)).toMatchObject({ error_code: "TOO_MANY_CALLS", error: expect.stringContaining("at most 64") });
  });

  it("answers an unknown toolset with 404", async () => {
    const res = await api("/v1/tool-calls", { body: { toolset: "nope", tool_calls: [openaiCall("c1", "echo", "{}")] } });
    expect(res.status).toBe(404);
  });

  it("answers unknown routes and methods with JSON 404s", async () => {
    for (const [path, method] of [
      ["/nope", "GET"],
      ["/v1/tool-calls", "GET"],
      ["/v1/tools", "DELETE"],
    ] as const) {
      const res = await api(path, { method });
      expect(res.status).toBe(404);
      expect(await json(res)).toMatchObject({ error_code: "NOT_FOUND" });
    }
  });
});

describe("documentation routes", () => {
  it("serves an OpenAPI 3.1 document describing every route", async () => {
    // Without a key: the routes alone (a key's document adds one operation per tool).
    const doc = await json<{ openapi: string; paths: Record<string, Record<string, unknown>> }>(await api("/openapi.json", { headers: { authorization: "" } }));
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths).sort()).toEqual([
      "/v1/approvals",
      "/v1/approvals/{id}",
      "/v1/audit",
      "/v1/audit/export",
      "/v1/audit/stats",
      "/v1/chat/completions",
      "/v1/health/tools",
      "/v1/health/tools/recheck",
      "/v1/hooks",
      "/v1/hooks/deliveries/{id}",
      "/v1/hooks/deliveries/{id}/rerun",
      "/v1/hooks/events",
      "/v1/hooks/{name}",
      "/v1/keys",
      "/v1/keys/{id}",
      "/v1/mcp-servers",
      "/v1/mcp-servers/{name}",
      "/v1/mcp-servers/{name}/refresh",
      "/v1/mcp-servers/{name}/sign-in",
      "/v1/mcp-servers/{name}/tools/{tool}/accept",
      "/v1/memory",
      "/v1/openapi-sources",
      "/v1/openapi-sources/{name}",
      "/v1/openapi-sources/{name}/accept",
      "/v1/openapi-sources/{name}/disable",
      "/v1/openapi-sources/{name}/enable",
      "/v1/openapi-sources/{name}/refresh",
      "/v1/runs",
      "/v1/runs/{id}",
      "/v1/runs/{id}/answer",
      "/v1/runs/{id}/cancel",
      "/v1/runs/{id}/events",
      "/v1/schedules",
      "/v1/schedules/{id}",
      "/v1/schedules/{id}/pause",
      "/v1/schedules/{id}/resume",
      "/v1/tool-calls",
      "/v1/tools",
      "/v1/tools/{name}",
      "/v1/tools/{name}/call",
      "/v1/toolsets",
      "/v1/toolsets/{name}",
    ]);
    expect(Object.keys(doc.paths["/v1/toolsets"] ?? {}).sort()).toEqual(["get", "post"]);
    // Every /v1 operation needs a key, so every one documents the 401 it can give.
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        expect(Object.keys((operation as { responses: Record<string, unknown> }).responses), `${method} ${path}`).toContain("401");
      }
    }
  });

  it("serves the interactive reference page", async () => {
    const res = await api("/docs");
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    expect(await res.text()).toContain('data-url="/openapi.json"');
  });
});

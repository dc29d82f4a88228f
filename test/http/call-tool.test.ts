/**
 * POST /v1/tools/{name}/call: one tool as one HTTP operation, through the Worker's fetch
 * handler with real D1, the RateLimiter and Session objects and the audit queue.
 */
import { describe, expect, it } from "vitest";
import { api } from "../support/api.ts";
import { createKey } from "../support/create-key.ts";
import { json } from "../support/json.ts";
import { waitForAuditRows } from "../support/wait-for-audit-rows.ts";

const call = (name: string, body: unknown, headers: Record<string, string> = {}) => api(`/v1/tools/${name}/call`, { body, headers });

describe("POST /v1/tools/{name}/call", () => {
  it("answers the tool's result as the body, with the session and call id it ran under", async () => {
    const res = await call("echo", { text: "hi", times: "2" }, { "x-toolgate-session": "ct-ok", "x-toolgate-call-id": "ct-call-1" });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-toolgate-session")).toBe("ct-ok");
    expect(res.headers.get("x-toolgate-call-id")).toBe("ct-call-1");
    // The string "2" was coerced to the integer the schema wants, as in a batch.
    expect(await json(res)).toEqual({ text: "hi hi" });
  });

  it("takes an empty body as a call without arguments and generates the ids", async () => {
    const res = await api("/v1/tools/current_time/call", { method: "POST" });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-toolgate-session")).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get("x-toolgate-call-id")).toMatch(/^call_[0-9a-f-]{36}$/);
    expect(await json(res)).toMatchObject({ timezone: "UTC" });
  });

  it("answers bad arguments with 400 and the envelope naming the field", async () => {
    const res = await call("echo", { text: 5 });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ error_code: "INVALID_ARGUMENTS", stage: "validate", issues: [{ path: "text", expected: "string" }] });
  });

  it("answers a body that is not JSON with the parse stage's position", async () => {
    const res = await call("echo", '{"text": "hi",}');
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ error_code: "INVALID_ARGUMENTS", stage: "parse", error: expect.stringContaining("position") });
  });

  it("refuses a body sent as another media type with 415, before anything runs", async () => {
    const res = await call("echo", '{"text":"hi"}', { "content-type": "text/plain" });
    expect(res.status).toBe(415);
    expect(await json(res)).toMatchObject({ error_code: "UNSUPPORTED_MEDIA_TYPE" });
  });

  it("answers an unknown tool with 404 and close matches", async () => {
    const res = await call("ecko", { text: "hi" });
    expect(res.status).toBe(404);
    expect(await json(res)).toMatchObject({ error_code: "UNKNOWN_TOOL", suggestion: expect.stringContaining("echo") });
  });

  it("answers 403 PERMISSION_DENIED naming the rule for a tool the key's policy denies", async () => {
    const key = await createKey({ name: "ct-denied", role: "agent", policy: { mode: "deny", patterns: ["echo"] } });
    const res = await call("echo", { text: "hi" }, { authorization: `Bearer ${key.key}` });
    expect(res.status).toBe(403);
    expect(await json(res)).toMatchObject({ error_code: "PERMISSION_DENIED", stage: "policy" });
  });

  it("charges the key's rate limit: past it, 429 with Retry-After", async () => {
    const key = await createKey({ name: "ct-limited", role: "agent", rate_limit_per_minute: 1 });
    const auth = { authorization: `Bearer ${key.key}` };
    expect((await call("echo", { text: "one" }, auth)).status).toBe(200);
    const res = await call("echo", { text: "two" }, auth);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await json(res)).toMatchObject({ error_code: "RATE_LIMITED", retry_after_ms: expect.any(Number) });
  });

  it("holds a risky tool for approval: 202 with the approval, and the call has not run", async () => {
    const key = await createKey({ name: "ct-risky", role: "agent" });
    const res = await call("delete_result", { handle: crypto.randomUUID() }, { authorization: `Bearer ${key.key}`, "x-toolgate-session": "ct-risky" });
    expect(res.status).toBe(202);
    const body = await json<{ error_code: string; approval: { id: string; url: string } }>(res);
    expect(body).toMatchObject({ error_code: "APPROVAL_REQUIRED", approval: { url: expect.stringContaining("/approvals/") } });
    const listed = await json<{ approvals: { id: string; status: string }[] }>(await api(`/v1/approvals?status=pending`));
    expect(listed.approvals.map((a) => a.id)).toContain(body.approval.id);
  });

  it("leaves one audit record per call, with its key, session and call id", async () => {
    const key = await createKey({ name: "ct-audited", role: "agent" });
    await call("echo", { text: "audited" }, { authorization: `Bearer ${key.key}`, "x-toolgate-session": "ct-audited", "x-toolgate-call-id": "ct-a1" });
    await call("echo", { text: 1 }, { authorization: `Bearer ${key.key}`, "x-toolgate-session": "ct-audited", "x-toolgate-call-id": "ct-a2" });
    const rows = await waitForAuditRows("session_id = ?", ["ct-audited"], 2);
    expect(rows.map((r) => [r.key_id, r.tool_call_id, r.tool, r.status, r.error_code])).toEqual([
      [key.id, "ct-a1", "echo", "ok", null],
      [key.id, "ct-a2", "echo", "error", "INVALID_ARGUMENTS"],
    ]);
  });

  it("refuses a malformed session id with 400 naming the header", async () => {
    const res = await call("echo", { text: "hi" }, { "x-toolgate-session": "has spaces" });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ error_code: "INVALID_REQUEST", issues: [{ path: "x-toolgate-session" }] });
  });

  it("needs a key, like every /v1 route", async () => {
    const res = await call("echo", { text: "hi" }, { authorization: "" });
    expect(res.status).toBe(401);
  });
});

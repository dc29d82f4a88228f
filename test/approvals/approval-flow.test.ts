/**
 * The approval flow end to end, through the Worker's fetch handler with the real Session
 * Durable Objects, D1 and the audit queue: a risky call is held, a person decides, the call runs
 * once, and the agent reads the outcome.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../support/api.ts";
import { createKey } from "../support/create-key.ts";
import { json } from "../support/json.ts";
import { openaiCall } from "../support/tool-calls.ts";
import { as, auditRowsOf, callTools, decide, type Key, only, registerApprovalTools, runs } from "./support.ts";

const TOOL = "apf_write";
let unregister: () => void;
let agent: Key;
let approver: Key;

beforeAll(async () => {
  unregister = registerApprovalTools("apf");
  agent = await createKey({ name: "apf-agent", role: "agent" });
  approver = await createKey({ name: "apf-approver", role: "approver" });
});
afterAll(() => unregister());

interface Approval {
  id: string;
  session_id: string;
  status: string;
  scope?: string;
  decided_by?: string;
  reason?: string;
  requested_by: string;
  arguments: Record<string, unknown>;
  result?: { status: string; error_code: string | null; content: string };
  message?: { role: string; tool_call_id: string; content: string };
}

async function pending(session: string, callId: string, note: string, extra: Record<string, unknown> = {}) {
  const result = only(await callTools(agent, session, [openaiCall(callId, TOOL, { note, ...extra })]));
  expect(result.status).toBe("pending_approval");
  return result.approval?.id ?? "";
}

describe("a call of a risky tool", () => {
  it("does not run, and answers pending_approval with the approval, its expiry, its page and what to do", async () => {
    const before = Date.now();
    const batch = await callTools(agent, "apf-s1", [openaiCall("c1", TOOL, { note: "apf-shape" })]);
    const result = only(batch);
    expect(result).toMatchObject({ id: "c1", tool: TOOL, status: "pending_approval", error_code: "APPROVAL_REQUIRED" });
    expect(result.approval?.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.approval?.url).toBe(`https://toolgate.test/approvals/${result.approval?.id}`);
    expect(result.approval?.expires_at).toBeGreaterThanOrEqual(before + 900_000);
    expect(runs.get("apf-shape")).toBeUndefined();
    const envelope = JSON.parse(result.message.content) as Record<string, unknown>;
    expect(envelope).toMatchObject({
      error_code: "APPROVAL_REQUIRED",
      stage: "approval",
      retryable: false,
      approval: { id: result.approval?.id, url: result.approval?.url },
    });
    expect(String(envelope.suggestion)).toContain(`GET /v1/approvals/${result.approval?.id}?session_id=apf-s1&wait=30`);
    expect(String(envelope.suggestion)).toContain("Tell the user");
  });

  it("lets the batch's other calls run, and does not run calls that depend on it", async () => {
    const batch = await callTools(agent, "apf-s2", [
      openaiCall("c1", TOOL, { note: "apf-dep" }),
      openaiCall("c2", "apf_after", { note: "apf-dep" }),
      openaiCall("c3", "apf_plain", { note: "x" }),
    ]);
    expect(batch.results.map((r) => [r.status, r.error_code])).toEqual([
      ["pending_approval", "APPROVAL_REQUIRED"],
      ["error", "DEPENDENCY_FAILED"],
      ["ok", null],
    ]);
    expect(batch.results[1]?.message.content).toContain("waiting for a person's approval");
    expect(runs.get("after:apf-dep")).toBeUndefined();
  });

  it("generates a session id when the request has none, and the approval belongs to it", async () => {
    const res = await api("/v1/tool-calls", { body: { tool_calls: [openaiCall("c1", TOOL, { note: "apf-gen" })] }, headers: as(agent) });
    const batch = await json<{ session_id: string; results: { approval: { id: string } }[] }>(res);
    const approval = await json<Approval>(await api(`/v1/approvals/${batch.results[0]?.approval.id}`, { headers: as(agent) }));
    expect(approval.session_id).toBe(batch.session_id);
  });
});

describe("approving", () => {
  it("runs the call exactly once; the long poll and the same call id both return its tool message", async () => {
    const id = await pending("apf-s3", "c1", "apf-once");
    const poll = api(`/v1/approvals/${id}?session_id=apf-s3&wait=10`, { headers: as(agent) });
    const decided = await decide(approver, id, { decision: "approve", scope: "once", reason: "looks fine" });
    expect(decided.status).toBe(200);
    expect(await json(decided)).toMatchObject({ status: "approved", scope: "once", decided_by: approver.id, result: { status: "ok", error_code: null } });

    const polled = await json<Approval>(await poll);
    expect(polled.message).toEqual({ role: "tool", tool_call_id: "c1", content: '{"written":"apf-once"}' });
    const again = only(await callTools(agent, "apf-s3", [openaiCall("c1", TOOL, { note: "apf-once" })]));
    expect(again).toMatchObject({ status: "ok", error_code: null, message: { content: '{"written":"apf-once"}' } });
    expect(runs.get("apf-once")).toBe(1);
  });

  it("with scope once, asks again for a second identical call with a new id", async () => {
    const first = await pending("apf-s4", "c1", "apf-twice");
    expect((await decide(approver, first, { decision: "approve", scope: "once" })).status).toBe(200);
    const second = await pending("apf-s4", "c2", "apf-twice");
    expect(second).not.toBe(first);
    expect(runs.get("apf-twice")).toBe(1);
  });

  it("with scope session, lets later calls of the tool in that session run, and only there", async () => {
    const id = await pending("apf-s5", "c1", "apf-session-1");
    expect((await decide(approver, id, { decision: "approve", scope: "session" })).status).toBe(200);
    const later = only(await callTools(agent, "apf-s5", [openaiCall("c2", TOOL, { note: "apf-session-2" })]));
    expect(later).toMatchObject({ status: "ok", message: { content: '{"written":"apf-session-2"}' } });
    const elsewhere = only(await callTools(agent, "apf-s5-other", [openaiCall("c3", TOOL, { note: "apf-session-3" })]));
    expect(elsewhere.status).toBe("pending_approval");
    expect(runs.get("apf-session-3")).toBeUndefined();
  });
});

describe("sending a tool call id again", () => {
  it("refuses a pending approval's id with other arguments or another tool; the approval stays pending and runs as asked", async () => {
    const id = await pending("apf-reuse", "c1", "apf-reuse-1");
    const other = only(await callTools(agent, "apf-reuse", [openaiCall("c1", TOOL, { note: "apf-reuse-2" })]));
    expect(other).toMatchObject({ id: "c1", status: "error", error_code: "CALL_ID_REUSED" });
    expect(JSON.parse(other.message.content)).toMatchObject({
      error: expect.stringContaining("Tool call id 'c1' was already used in this session for a call of 'apf_write' with other arguments"),
    });
    const otherTool = only(await callTools(agent, "apf-reuse", [openaiCall("c1", "delete_result", { handle: crypto.randomUUID() })]));
    expect(otherTool).toMatchObject({ status: "error", error_code: "CALL_ID_REUSED" });
    expect(JSON.parse(otherTool.message.content)).toMatchObject({
      error: "Tool call id 'c1' was already used in this session for a call of 'apf_write', so this call of 'delete_result' did not run.",
    });

    const same = only(await callTools(agent, "apf-reuse", [openaiCall("c1", TOOL, { note: "apf-reuse-1" })]));
    expect(same).toMatchObject({ status: "pending_approval", approval: { id } });
    expect((await decide(approver, id, { decision: "approve", scope: "once" })).status).toBe(200);
    expect(runs.get("apf-reuse-1")).toBe(1);
    expect(runs.get("apf-reuse-2")).toBeUndefined();
  });
});

describe("sharing a session id", () => {
  it("gives another key neither the first key's stored outcome nor its session grant", async () => {
    const other = await createKey({ name: "apf-agent-2", role: "agent" });
    const id = await pending("apf-shared", "c1", "apf-shared-1");
    expect((await decide(approver, id, { decision: "approve", scope: "session" })).status).toBe(200);
    // The same call id from another key is that key's own call: it asks for its own approval.
    const sameId = only(await callTools(other, "apf-shared", [openaiCall("c1", TOOL, { note: "apf-shared-2" })]));
    expect(sameId.status).toBe("pending_approval");
    expect(sameId.approval?.id).not.toBe(id);
    expect(sameId.message.content).not.toContain("apf-shared-1");
    // The grant covers the key it was asked for, not every caller of the session.
    const later = only(await callTools(other, "apf-shared", [openaiCall("c2", TOOL, { note: "apf-shared-3" })]));
    expect(later.status).toBe("pending_approval");
    expect(runs.get("apf-shared-2")).toBeUndefined();
    expect(runs.get("apf-shared-3")).toBeUndefined();
    const mine = only(await callTools(agent, "apf-shared", [openaiCall("c3", TOOL, { note: "apf-shared-4" })]));
    expect(mine.status).toBe("ok");
  });
});

describe("denying", () => {
  it("gives the model APPROVAL_DENIED with the approver's reason, also for the same call id again", async () => {
    const id = await pending("apf-s6", "c1", "apf-deny");
    const decided = await decide(approver, id, { decision: "deny", reason: "not on production data" });
    expect(await json(decided)).toMatchObject({ status: "denied", decided_by: approver.id, reason: "not on production data" });
    const polled = await json<Approval>(await api(`/v1/approvals/${id}?session_id=apf-s6&wait=1`, { headers: as(agent) }));
    const envelope = JSON.parse(polled.message?.content ?? "{}") as Record<string, unknown>;
    expect(envelope).toMatchObject({ error_code: "APPROVAL_DENIED", retryable: false });
    expect(String(envelope.error)).toContain("not on production data");
    const again = only(await callTools(agent, "apf-s6", [openaiCall("c1", TOOL, { note: "apf-deny" })]));
    expect(again).toMatchObject({ status: "error", error_code: "APPROVAL_DENIED" });
    expect(again.message.content).toContain("not on production data");
    expect(runs.get("apf-deny")).toBeUndefined();
  });
});

describe("who may decide and read", () => {
  it("refuses an agent key, for its own call and for another's", async () => {
    const own = await pending("apf-s7", "c1", "apf-agent");
    const otherAgent = await createKey({ name: "apf-agent-2", role: "agent" });
    for (const key of [agent, otherAgent]) {
      const res = await decide(key, own, { decision: "approve", scope: "once" });
      expect(res.status).toBe(403);
      expect(await json(res)).toMatchObject({ error_code: "FORBIDDEN" });
    }
    expect(runs.get("apf-agent")).toBeUndefined();
  });

  it("lets the asking key and approvers read an approval, and hides it from other agent keys", async () => {
    const id = await pending("apf-s8", "c1", "apf-read");
    expect((await api(`/v1/approvals/${id}`, { headers: as(agent) })).status).toBe(200);
    expect((await api(`/v1/approvals/${id}`, { headers: as(approver) })).status).toBe(200);
    const stranger = await createKey({ name: "apf-stranger", role: "agent" });
    const hidden = await api(`/v1/approvals/${id}`, { headers: as(stranger) });
    expect(hidden.status).toBe(404);
    expect(await json(hidden)).toMatchObject({ error_code: "UNKNOWN_APPROVAL" });
  });

  it("does not let one session's approval be read or decided through another session's id", async () => {
    const id = await pending("apf-s9", "c1", "apf-cross");
    await pending("apf-s9-other", "c1", "apf-cross-other");
    expect((await api(`/v1/approvals/${id}?session_id=apf-s9-other`, { headers: as(approver) })).status).toBe(404);
    const res = await decide(approver, id, { decision: "approve", scope: "once" }, "apf-s9-other");
    expect(res.status).toBe(404);
    expect(await json(await api(`/v1/approvals/${id}?session_id=apf-s9`, { headers: as(approver) }))).toMatchObject({ status: "pending" });
    expect(runs.get("apf-cross")).toBeUndefined();
  });

  it("answers 404 for an unknown approval and 400 for a bad decision", async () => {
    expect((await decide(approver, crypto.randomUUID(), { decision: "approve" })).status).toBe(404);
    const id = await pending("apf-s10", "c1", "apf-bad");
    const bad = await decide(approver, id, { decision: "maybe" });
    expect(bad.status).toBe(400);
    expect(await json(bad)).toMatchObject({ error_code: "INVALID_REQUEST" });
    expect((await api(`/v1/approvals/${id}?wait=31`, { headers: as(approver) })).status).toBe(400);
  });
});

describe("racing decisions", () => {
  it("lets the first of two decisions win and answers the second 409 with the current state", async () => {
    const id = await pending("apf-s11", "c1", "apf-race", { delayMs: 200 });
    const [a, b] = await Promise.all([decide(approver, id, { decision: "approve", scope: "once" }), decide(approver, id, { decision: "deny", reason: "no" })]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([200, 409]);
    const loser = await json<{ error_code: string; approval: Approval }>(a.status === 409 ? a : b);
    expect(loser.error_code).toBe("APPROVAL_ALREADY_DECIDED");
    expect(["approved", "denied"]).toContain(loser.approval.status);
    expect(runs.get("apf-race") ?? 0).toBe(loser.approval.status === "approved" ? 1 : 0);
  });

  it("runs the call exactly once when many approvals arrive at once", async () => {
    const id = await pending("apf-s12", "c1", "apf-many", { delayMs: 100 });
    const answers = await Promise.all(Array.from({ length: 6 }, () => decide(approver, id, { decision: "approve", scope: "once" })));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    expect(runs.get("apf-many")).toBe(1);
  });
});

describe("listing and the audit log", () => {
  it("lists approvals for approvers only, filtered by status and session", async () => {
    const id = await pending("apf-s13", "c1", "apf-list", { apiToken: "sk-secret-value" });
    const listed = await json<{ approvals: Approval[] }>(await api("/v1/approvals?status=pending&session_id=apf-s13", { headers: as(approver) }));
    expect(listed.approvals.map((a) => a.id)).toEqual([id]);
    expect(listed.approvals[0]?.arguments).toMatchObject({ note: "apf-list", apiToken: "[REDACTED]" });
    expect((await api("/v1/approvals", { headers: as(agent) })).status).toBe(403);
  });

  it("records every decision with who, when, scope and reason", async () => {
    const approved = await pending("apf-s14", "c1", "apf-audit-1");
    const denied = await pending("apf-s14", "c2", "apf-audit-2");
    const started = Date.now();
    await decide(approver, approved, { decision: "approve", scope: "session", reason: "ok for this chat" });
    await decide(approver, denied, { decision: "deny", reason: "wrong target" });

    const [pendingRow, run] = await auditRowsOf(approved, 2);
    expect(pendingRow).toMatchObject({ status: "pending_approval", error_code: "APPROVAL_REQUIRED", key_id: agent.id, decided_by: null });
    expect(run).toMatchObject({
      status: "approved",
      key_id: agent.id,
      tool_call_id: "c1",
      decided_by: approver.id,
      decision_scope: "session",
      decision_reason: "ok for this chat",
    });
    expect(Number(run?.decided_at)).toBeGreaterThanOrEqual(started);
    const denial = (await auditRowsOf(denied, 2))[1];
    expect(denial).toMatchObject({
      status: "denied",
      error_code: "APPROVAL_DENIED",
      decided_by: approver.id,
      decision_scope: null,
      decision_reason: "wrong target",
    });

    const wire = await json<{ records: { approval_id: string; decision?: Record<string, unknown> }[] }>(await api("/v1/audit?session_id=apf-s14"));
    expect(wire.records.find((r) => r.approval_id === denied && r.decision !== undefined)?.decision).toMatchObject({
      by: approver.id,
      scope: null,
      reason: "wrong target",
    });
  });
});

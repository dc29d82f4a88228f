/**
 * The Session Durable Object under faults: expiry by its alarm, a decision racing expiry, a
 * restart with approvals pending, an eviction in the middle of an approved run, and the gate's
 * binding to the exact approved arguments. Calls go through the real pipeline (dispatchCall).
 */
import { abortAllDurableObjects, evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { notificationSignature, SIGNATURE_HEADER } from "../../src/approvals/approval-notify.ts";
import { decideApprovalInSession, getApprovalInSession } from "../../src/approvals/approvals.ts";
import { canonicalJson } from "../../src/audit/canonical-json.ts";
import type { Principal } from "../../src/auth/principal.ts";
import { type GatewayConfig, loadConfig } from "../../src/config/config.ts";
import { sha256Hex } from "../../src/crypto/sha256.ts";
import { defineTool, registry } from "../../src/registry/registry.ts";
import { createKey } from "../support/create-key.ts";
import { type CallContext, dispatchCall } from "../support/dispatch.ts";
import { type InboxMessage, readInbox } from "../support/inbox.ts";
import { auditRowsOf, type Key, registerApprovalTools, runs } from "./support.ts";

const TOOL = "aps_write";
const approver: Principal = {
  keyId: "aps-approver",
  name: "approver",
  role: "approver",
  toolsets: null,
  policy: { mode: "deny", patterns: [] },
  rateLimitPerMinute: null,
  scopes: [],
};
let unregister: () => void;
// A real key: the object checks the requester again before it runs an approved call.
let agent: Key;

beforeAll(async () => {
  unregister = registerApprovalTools("aps");
  agent = await createKey({ name: "aps-agent", role: "agent" });
  registry.register(
    defineTool({ name: "mcp__demo__delete_file", toolset: "mcp-demo", schema: z.object({ path: z.string() }), handler: ({ path }) => ({ deleted: path }) }),
  );
});
afterAll(() => {
  unregister();
  registry.deregister("mcp__demo__delete_file");
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const stubOf = (session: string) => env.SESSIONS.get(env.SESSIONS.idFromName(session));

function context(session: string, callId: string, approval: Partial<GatewayConfig["approval"]> = {}): CallContext {
  const base = loadConfig(env);
  return { callId, sessionId: session, env, keyId: agent.id, config: { ...base, approval: { ...base.approval, ...approval } } };
}

/** Asks for approval of a call of the risky test tool; returns the approval id. */
async function ask(session: string, callId: string, note: string, ttlSeconds = 900, extra: Record<string, unknown> = {}): Promise<string> {
  const outcome = await dispatchCall(TOOL, { note, ...extra }, context(session, callId, { ttlSeconds }));
  expect(outcome.status).toBe("pending_approval");
  return outcome.approval?.id ?? "";
}

/** The approval's row as stored, read without going through get() (which expires on read). */
function storedStatus(session: string, id: string): Promise<string | undefined> {
  return runInDurableObject(
    stubOf(session),
    (_instance, state) => state.storage.sql.exec<{ status: string }>("SELECT status FROM approvals WHERE id = ?", id).toArray()[0]?.status,
  );
}

describe("the approval gate", () => {
  it("holds tools matched by an APPROVAL_REQUIRED_FOR pattern and lets others run", async () => {
    const held = await dispatchCall(
      "mcp__demo__delete_file",
      { path: "/tmp/x" },
      context("aps-g1", "c1", { requiredFor: ["http_request", "mcp__*__delete_*"] }),
    );
    expect(held).toMatchObject({
      status: "pending_approval",
      errorCode: "APPROVAL_REQUIRED",
      approval: { id: expect.any(String), url: expect.stringContaining("/approvals/") },
    });
    const free = await dispatchCall("mcp__demo__delete_file", { path: "/tmp/x" }, context("aps-g1", "c2", { requiredFor: ["http_request"] }));
    expect(free).toMatchObject({ status: "ok", content: '{"deleted":"/tmp/x"}' });
  });

  it("holds a tool that declares itself risky whatever the configuration says", async () => {
    expect((await dispatchCall(TOOL, { note: "aps-risky" }, context("aps-g2", "c1", { requiredFor: [] }))).status).toBe("pending_approval");
    expect(runs.get("aps-risky")).toBeUndefined();
  });

  it("lets an approved call through only with exactly the approved arguments", async () => {
    const bindingSha256 = sha256Hex(canonicalJson({ note: "aps-bound", delayMs: 0 }));
    const other = await dispatchCall(TOOL, { note: "aps-other" }, { ...context("aps-g3", "c1"), approved: { approvalId: "a1", bindingSha256 } });
    expect(other).toMatchObject({ status: "error", errorCode: "APPROVAL_DENIED" });
    expect(runs.get("aps-other")).toBeUndefined();
    const bound = await dispatchCall(TOOL, { note: "aps-bound" }, { ...context("aps-g3", "c2"), approved: { approvalId: "a1", bindingSha256 } });
    expect(bound).toMatchObject({ status: "ok", content: '{"written":"aps-bound"}' });
  });
});

describe("expiry", () => {
  it("is set by the object's alarm, wakes a waiting reader, and answers APPROVAL_EXPIRED to the same call id", async () => {
    const id = await ask("aps-e1", "c1", "aps-expire", 0.3);
    const waiting = getApprovalInSession(env, "aps-e1", id, 10_000);
    await sleep(350);
    await runDurableObjectAlarm(stubOf("aps-e1"));
    // Only the alarm touched the object since the request, so the alarm expired it.
    expect(await storedStatus("aps-e1", id)).toBe("expired");
    const seen = await waiting;
    expect(seen).toMatchObject({ status: "expired", result: { status: "error", errorCode: "APPROVAL_EXPIRED" } });

    const again = await dispatchCall(TOOL, { note: "aps-expire" }, context("aps-e1", "c1"));
    expect(again).toMatchObject({ status: "error", errorCode: "APPROVAL_EXPIRED" });
    expect(JSON.parse(again.content)).toMatchObject({ error_code: "APPROVAL_EXPIRED", stage: "approval" });
    // dispatchCall alone writes no record of the pending call (the doors do); the object writes the expiry's.
    const [expired] = await auditRowsOf(id, 1);
    expect(expired).toMatchObject({ status: "expired", decided_by: null, decision_scope: null });
    expect(runs.get("aps-expire")).toBeUndefined();
  });

  it("wins over an approval that arrives after expires_at, before the alarm ran: one outcome", async () => {
    const id = await ask("aps-e2", "c1", "aps-late", 0.3);
    await sleep(350);
    const [decided] = await Promise.all([
      decideApprovalInSession(env, "aps-e2", { id, decision: "approve", scope: "once", decidedBy: approver }),
      runDurableObjectAlarm(stubOf("aps-e2")),
    ]);
    expect(decided).toMatchObject({ ok: false, kind: "conflict", approval: { status: "expired" } });
    expect(runs.get("aps-late")).toBeUndefined();
    await auditRowsOf(id, 1);
    await sleep(200);
    expect((await auditRowsOf(id, 1)).map((r) => r.status)).toEqual(["expired"]);
  });

  it("ends with exactly one outcome when approvals land around expires_at", async () => {
    for (let round = 0; round < 4; round++) {
      const session = `aps-e4-${round}`;
      const note = `aps-edge-${round}`;
      const id = await ask(session, "c1", note, 0.1);
      await sleep(80 + round * 10);
      const [decided] = await Promise.all([
        decideApprovalInSession(env, session, { id, decision: "approve", scope: "once", decidedBy: approver }),
        runDurableObjectAlarm(stubOf(session)),
      ]);
      const status = await storedStatus(session, id);
      expect(decided.ok ? "approved" : decided.kind === "conflict" ? decided.approval.status : decided.kind).toBe(status);
      expect(runs.get(note) ?? 0).toBe(status === "approved" ? 1 : 0);
      const decisions = (await auditRowsOf(id, 1)).filter((row) => row.decided_at !== null);
      expect(decisions.map((row) => row.status)).toEqual([status]);
    }
  }, 20_000);

  it("leaves an approval made in time alone when the alarm fires afterwards", async () => {
    // Two seconds: room for the decision and the run on a loaded machine, short enough to wait out.
    const id = await ask("aps-e3", "c1", "aps-in-time", 2);
    const decided = await decideApprovalInSession(env, "aps-e3", { id, decision: "approve", scope: "once", decidedBy: approver });
    expect(decided).toMatchObject({ ok: true, approval: { status: "approved", result: { status: "ok" } } });
    await sleep(2_050);
    await runDurableObjectAlarm(stubOf("aps-e3"));
    expect(await storedStatus("aps-e3", id)).toBe("approved");
    expect(runs.get("aps-in-time")).toBe(1);
  });
});

describe("restarts", () => {
  it("keeps pending approvals across an eviction and a reset of every object, and then runs the call once", async () => {
    const id = await ask("aps-r1", "c1", "aps-restart");
    await evictDurableObject(stubOf("aps-r1"));
    expect(await getApprovalInSession(env, "aps-r1", id)).toMatchObject({ status: "pending", tool: TOOL, requestedBy: agent.id });
    await abortAllDurableObjects();
    expect(await getApprovalInSession(env, "aps-r1", id)).toMatchObject({ status: "pending" });
    expect(await decideApprovalInSession(env, "aps-r1", { id, decision: "approve", scope: "once", decidedBy: approver })).toMatchObject({ ok: true });
    expect(runs.get("aps-restart")).toBe(1);
  });

  it("never runs a call twice: a run cut short by a restart is recorded as interrupted", async () => {
    const id = await ask("aps-r2", "c1", "aps-cut", 900, { delayMs: 1_000 });
    const deciding = decideApprovalInSession(env, "aps-r2", { id, decision: "approve", scope: "once", decidedBy: approver });
    while (runs.get("aps-cut") === undefined) await sleep(10);
    await abortAllDurableObjects();
    // The approver is answered with what the restarted object recorded, not a bare error.
    expect(await deciding).toMatchObject({ ok: true, approval: { status: "approved", result: { errorCode: "EXECUTION_FAILED" } } });

    const after = await getApprovalInSession(env, "aps-r2", id);
    expect(after).toMatchObject({ status: "approved", result: { status: "error", errorCode: "EXECUTION_FAILED" } });
    expect(after?.result?.content).toContain("interrupted");
    await sleep(1_100);
    const again = await dispatchCall(TOOL, { note: "aps-cut", delayMs: 1_000 }, context("aps-r2", "c1"));
    expect(again).toMatchObject({ status: "error", errorCode: "EXECUTION_FAILED" });
    expect(await getApprovalInSession(env, "aps-r2", id)).toMatchObject({ result: { errorCode: "EXECUTION_FAILED" } });
    expect(runs.get("aps-cut")).toBe(1);
  });
});

describe("the notification", () => {
  const secret = "aps-notify-secret-0123456789";
  /** A call context whose approvals notify `url`, from a page served at https://gate.example. */
  const notifying = (session: string, url: string, callId = "c1"): CallContext => ({
    ...context(session, callId, { requiredFor: [], ttlSeconds: 900, notify: { url, secret } }),
    connection: { signal: undefined, origin: "https://gate.example" },
  });
  /** What the upstream's inbox `name` holds once its first message arrived (and a little after, so a second would show). */
  async function inboxOnceArrived(name: string, polls: number): Promise<InboxMessage[]> {
    for (let i = 0; i < polls && (await readInbox(name)).length === 0; i++) await sleep(20);
    await sleep(200);
    return readInbox(name);
  }

  it("POSTs a signed approval.requested to the configured URL when an approval is asked for, once", async () => {
    const held = await dispatchCall(TOOL, { note: "aps-notify", apiToken: "sk-live-1" }, notifying("aps-n1", "http://upstream.test/inbox/aps-n1"));
    await dispatchCall(TOOL, { note: "aps-notify", apiToken: "sk-live-1" }, notifying("aps-n1", "http://upstream.test/inbox/aps-n1"));

    const received = await inboxOnceArrived("aps-n1", 100);
    expect(received).toHaveLength(1);
    const [message] = received;
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(message?.headers[SIGNATURE_HEADER] ?? "") ?? [];
    expect(v1).toBe(await notificationSignature(secret, Number(t), message?.body ?? ""));
    expect(JSON.parse(message?.body ?? "{}")).toMatchObject({
      type: "approval.requested",
      page_url: `https://gate.example/approvals/${held.approval?.id}`,
      approval: { id: held.approval?.id, tool: TOOL, status: "pending", arguments: { note: "aps-notify", apiToken: "[REDACTED]" } },
    });
  });

  it("tries again after a failed attempt while the approval is pending, and stops once", async () => {
    const held = await dispatchCall(TOOL, { note: "aps-notify-retry" }, notifying("aps-n2", "http://upstream.test/flaky-inbox/aps-n2"));
    // The first attempt gets a 503; the second, a second later, is kept.
    const received = await inboxOnceArrived("aps-n2", 150);
    expect(received).toHaveLength(1);
    expect(JSON.parse(received[0]?.body ?? "{}")).toMatchObject({ type: "approval.requested", approval: { id: held.approval?.id } });
  });

  it("does not try again once the approval has settled", async () => {
    const held = await dispatchCall(TOOL, { note: "aps-notify-settled" }, notifying("aps-n3", "http://upstream.test/flaky-inbox/aps-n3"));
    const id = held.approval?.id ?? "";
    expect(await decideApprovalInSession(env, "aps-n3", { id, decision: "deny", scope: "once", reason: "not now", decidedBy: approver })).toMatchObject({
      ok: true,
    });
    // Past the retry's delay: the first attempt failed, and the retry found nothing pending.
    await sleep(1_500);
    expect(await readInbox("aps-n3")).toEqual([]);
  });
});

/**
 * An approval does not outlive the access it was asked under: the Session object checks the
 * requesting key again when a person approves, through the Worker with real keys, toolsets, D1
 * and the audit queue. A key revoked, or whose toolset went away, between the request and the
 * approval gets PERMISSION_DENIED, and the tool never runs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../support/api.ts";
import { createKey } from "../support/create-key.ts";
import { json } from "../support/json.ts";
import { openaiCall } from "../support/tool-calls.ts";
import { as, auditRowsOf, callTools, decide, type Key, only, registerApprovalTools, runs } from "./support.ts";

const TOOL = "apr_write";
let unregister: () => void;
let approver: Key;

beforeAll(async () => {
  unregister = registerApprovalTools("apr");
  approver = await createKey({ name: "apr-approver", role: "approver" });
});
afterAll(() => unregister());

interface Approval {
  status: string;
  result?: { status: string; error_code: string | null; content: string };
  message?: { content: string };
}

async function pendingOf(key: Key, session: string, note: string): Promise<string> {
  const result = only(await callTools(key, session, [openaiCall("c1", TOOL, { note })]));
  expect(result.status).toBe("pending_approval");
  return result.approval?.id ?? "";
}

async function approve(id: string): Promise<Approval> {
  const res = await decide(approver, id, { decision: "approve", scope: "once" });
  expect(res.status).toBe(200);
  return json<Approval>(res);
}

describe("approving a call whose key changed since it asked", () => {
  it("does not run it when the key was revoked, and says so to the model and in the audit log", async () => {
    const agent = await createKey({ name: "apr-revoked", role: "agent" });
    const id = await pendingOf(agent, "apr-s1", "apr-revoked");
    expect((await api(`/v1/keys/${agent.id}`, { method: "DELETE" })).status).toBe(204);

    const approved = await approve(id);
    expect(approved).toMatchObject({ status: "approved", result: { status: "error", error_code: "PERMISSION_DENIED" } });
    const envelope = JSON.parse(approved.result?.content ?? "{}") as { error: string };
    expect(envelope.error).toContain(`The API key that asked (${agent.id}, 'apr-revoked') was revoked`);
    expect(envelope.error).toContain("the approved call did not run");
    expect(runs.get("apr-revoked")).toBeUndefined();

    const [, run] = await auditRowsOf(id, 2);
    expect(run).toMatchObject({
      error_code: "PERMISSION_DENIED",
      policy_decision: "deny",
      policy_rule: "requester:revoked",
      key_id: agent.id,
      decided_by: approver.id,
    });
  });

  it("does not run it when the key's toolset no longer holds the tool", async () => {
    const created = await api("/v1/toolsets", { body: { name: "apr-narrow", tools: [TOOL] } });
    expect(created.status).toBe(201);
    const res = await api("/v1/keys", { body: { name: "apr-narrowed", role: "agent", toolsets: ["apr-narrow"] } });
    expect(res.status).toBe(201);
    const agent = await json<Key>(res);
    const id = await pendingOf(agent, "apr-s2", "apr-narrowed");
    expect((await api("/v1/toolsets/apr-narrow", { method: "DELETE" })).status).toBe(204);

    const approved = await approve(id);
    expect(approved.result).toMatchObject({ status: "error", error_code: "PERMISSION_DENIED" });
    expect(approved.result?.content).toContain("not in the toolsets this API key may use");
    expect(runs.get("apr-narrowed")).toBeUndefined();
    // The agent's long poll reads the same outcome.
    const polled = await json<Approval>(await api(`/v1/approvals/${id}?session_id=apr-s2&wait=1`, { headers: as(agent) }));
    expect(polled.message?.content).toContain("PERMISSION_DENIED");
  });

  it("runs it once when the key is unchanged", async () => {
    const agent = await createKey({ name: "apr-kept", role: "agent" });
    const id = await pendingOf(agent, "apr-s3", "apr-kept");
    expect((await approve(id)).result).toMatchObject({ status: "ok", content: '{"written":"apr-kept"}' });
    expect(runs.get("apr-kept")).toBe(1);
  });
});

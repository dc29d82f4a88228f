/**
 * delete_result, the shipped risky tool: it never deletes without an approval, and deletes once
 * approved. Through the Worker with the real KV and Session objects.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { storedResultKey } from "../../src/storage/keys.ts";
import { callTools, decide, only } from "../approvals/support.ts";
import { createKey } from "../support/create-key.ts";
import { openaiCall } from "../support/tool-calls.ts";

describe("delete_result", () => {
  it("waits for approval, then deletes the stored result exactly as approved", async () => {
    const handle = crypto.randomUUID();
    await env.KV.put(storedResultKey(handle), JSON.stringify({ tool: "echo", callId: "c0", sessionId: "dr", createdAt: Date.now(), content: "old" }));
    const agent = await createKey({ name: "dr-agent", role: "agent" });
    const approver = await createKey({ name: "dr-approver", role: "approver" });

    const held = only(await callTools(agent, "dr-s1", [openaiCall("c1", "delete_result", { handle })]));
    expect(held).toMatchObject({ status: "pending_approval", error_code: "APPROVAL_REQUIRED" });
    expect(await env.KV.get(storedResultKey(handle))).not.toBeNull();

    const decided = await decide(approver, held.approval?.id ?? "", { decision: "approve", scope: "once" });
    expect(await decided.json()).toMatchObject({ status: "approved", result: { status: "ok" } });
    expect(await env.KV.get(storedResultKey(handle))).toBeNull();
    const again = only(await callTools(agent, "dr-s1", [openaiCall("c1", "delete_result", { handle })]));
    expect(JSON.parse(again.message.content)).toMatchObject({ handle, deleted: true });
  });

  it("refuses the approved call's id sent again to delete another result, naming the id; that result stays", async () => {
    const [a, b] = [crypto.randomUUID(), crypto.randomUUID()];
    for (const handle of [a, b])
      await env.KV.put(storedResultKey(handle), JSON.stringify({ tool: "echo", callId: "c0", sessionId: "dr", createdAt: Date.now(), content: handle }));
    const agent = await createKey({ name: "dr-reuse-agent", role: "agent" });
    const approver = await createKey({ name: "dr-reuse-approver", role: "approver" });
    const held = only(await callTools(agent, "dr-s2", [openaiCall("d1", "delete_result", { handle: a })]));
    expect((await decide(approver, held.approval?.id ?? "", { decision: "approve", scope: "once" })).status).toBe(200);
    expect(await env.KV.get(storedResultKey(a))).toBeNull();

    const reused = only(await callTools(agent, "dr-s2", [openaiCall("d1", "delete_result", { handle: b })]));
    expect(reused).toMatchObject({ id: "d1", status: "error", error_code: "CALL_ID_REUSED" });
    expect(JSON.parse(reused.message.content)).toMatchObject({
      error:
        "Tool call id 'd1' was already used in this session for a call of 'delete_result' with other arguments, so this call of 'delete_result' did not run.",
      error_code: "CALL_ID_REUSED",
      stage: "approval",
      retryable: false,
      suggestion: expect.stringContaining("new tool call id"),
    });
    expect(await env.KV.get(storedResultKey(b))).not.toBeNull();
    // The id still answers its own request with the first outcome.
    const first = only(await callTools(agent, "dr-s2", [openaiCall("d1", "delete_result", { handle: a })]));
    expect(first.status).toBe("ok");
    expect(JSON.parse(first.message.content)).toMatchObject({ handle: a, deleted: true });
  });
});

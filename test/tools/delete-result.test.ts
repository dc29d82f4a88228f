/**
 * delete_result, the shipped risky tool: it never deletes without an approval, and deletes once
 * approved. Through the Worker with the real KV and Session objects.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { storedResultKey } from "../../src/storage/keys.ts";
import { createKey } from "../support/create-key.ts";
import { openaiCall } from "../support/tool-calls.ts";
import { callTools, decide, only } from "../approvals/support.ts";

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
});

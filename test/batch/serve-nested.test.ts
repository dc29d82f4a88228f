/**
 * Nested calls in a scope without a key: an approved call run by its session's object has no
 * key to charge, yet the calls its script makes still run through the pipeline and are audited
 * under the requester's id and the session.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { dispatchCall } from "../support/dispatch.ts";
import { waitForAuditRows } from "../support/wait-for-audit-rows.ts";

describe("serveNested without a key", () => {
  it("runs a script's call through the pipeline and audits it under the requester and session", async () => {
    const keyId = `requester-${crypto.randomUUID()}`;
    const outcome = await dispatchCall(
      "execute_code",
      { code: "return (await tools.echo({ text: 'inside' })).text;" },
      { env, sessionId: "nested-internal", keyId, callId: "int-1" },
    );
    expect(outcome.status).toBe("ok");
    expect(JSON.parse(outcome.content)).toMatchObject({ result: "inside", tool_calls: 1 });
    const [row] = await waitForAuditRows("key_id = ?", [keyId], 1);
    expect(row).toMatchObject({ tool: "echo", tool_call_id: "int-1.1", session_id: "nested-internal", status: "ok" });
  });
});

/**
 * Audit records on their way to the queue are background work each file's drain waits out
 * (test/support/background-ledger.ts), whatever context sent them. A call through `app.request()`
 * without an execution context, as many tool tests make, has no tracked `waitUntil`: its record
 * waited in the audit group's 200 ms timer and then in the queue's 1 s batch, unseen, and was
 * written after the drain returned, into the next file's D1. test/audit/retention.test.ts, whose
 * clock is in 2031, then counted that real-time record as expired (4 deleted where it wrote 3).
 */
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { AUDIT_TABLE } from "../../src/audit/audit-table.ts";
import { createApp } from "../../src/http/app.ts";
import { pendingInLedger } from "../support/background-ledger.ts";
import { testParts } from "../support/dispatch.ts";
import { drainBackgroundWork } from "../support/drain-background-work.ts";
import { TEST_ADMIN_TOKEN } from "../support/test-env.ts";
import { openaiCall } from "../support/tool-calls.ts";

const app = createApp(testParts);

it("counts a call's audit record as pending until it is written, also without an execution context", async () => {
  const background = env.TEST_BACKGROUND;
  if (background === undefined) throw new Error("TEST_BACKGROUND is not bound (vitest.config.ts)");
  const callId = `in-flight-${crypto.randomUUID()}`;
  const res = await app.request(
    "https://toolgate.test/v1/tool-calls",
    {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ tool_calls: [openaiCall(callId, "echo", { text: "in flight" })] }),
    },
    env,
  );
  expect(res.status).toBe(200);
  // In its group (200 ms) or, past that under load, sent and not yet consumed, or in the
  // consumer's hands before its D1 write: pending in every case.
  expect(pendingInLedger().join("\n")).toMatch(
    /audit record\(s\) wait|sent to a queue have not reached its consumer|the queue consumer is still handling a batch of \d+ message\(s\) from toolgate-audit/,
  );

  await drainBackgroundWork(background);
  const written = await env.DB.prepare(`SELECT COUNT(*) AS n FROM ${AUDIT_TABLE} WHERE tool_call_id = ?`).bind(callId).first<{ n: number }>();
  expect(written?.n).toBe(1);
});

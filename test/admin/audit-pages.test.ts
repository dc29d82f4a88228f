/**
 * The audit pages: the listing with the API's filters and paging, a call's detail, a session's
 * timeline; the API's checks and scope, and hostile stored text, as a reader sees them.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { auditRecordId } from "../../src/audit/audit-record.ts";
import { writeAuditRecords } from "../../src/audit/write-audit-records.ts";
import { auditRecord } from "../audit/support.ts";
import { signedInAs } from "./admin-client.ts";

describe("the audit pages", () => {
  it("list the calls matching the filters, newest first, with a link to the next page", async () => {
    const sessionId = `audit-page-${crypto.randomUUID()}`;
    const now = Date.now();
    const records = Array.from({ length: 60 }, (_, i) => auditRecord({ at: now - 60_000 + i, sessionId, tool: i % 2 === 0 ? "echo" : "fetch_url" }));
    await writeAuditRecords(env.DB, records);
    const { client } = await signedInAs("admin");
    expect((await client.get(`/admin/audit?session_id=${sessionId}`)).status).toBe(200);
    expect(client.lastPage.match(/data-record-id=/g)?.length).toBe(50);
    const next = /href="(\/admin\/audit\?[^"]*cursor=[^"]+)"/.exec(client.lastPage)?.[1]?.replaceAll("&amp;", "&");
    expect(next).toBeDefined();
    await client.get(next ?? "");
    expect(client.lastPage.match(/data-record-id=/g)?.length).toBe(10);

    await client.get(`/admin/audit?session_id=${sessionId}&tool=echo&status=ok`);
    expect(client.lastPage.match(/data-record-id=/g)?.length).toBe(30);
    expect(client.lastPage).toContain(`value="${sessionId}"`);
  });

  it("answer filters the API refuses with its message, not a trace", async () => {
    const { client } = await signedInAs("admin");
    expect((await client.get("/admin/audit?status=bogus")).status).toBe(400);
    expect(client.lastPage).toContain("status:");
    expect((await client.get("/admin/audit?since=yesterday")).status).toBe(400);
    expect(client.lastPage).toContain("ISO 8601");
    expect((await client.get(`/admin/audit?tool=${"t".repeat(300)}`)).status).toBe(400);
    expect((await client.get("/admin/audit?cursor=not-a-cursor")).status).toBe(400);
    expect((await client.get("/admin/audit?error_code=%3Cscript%3E")).status).toBe(400);
    expect(client.lastPage).not.toContain("<script>");
  });

  it("show one call's detail: arguments as stored, policy, approval, attempts, duration, message; markup inert", async () => {
    const record = auditRecord({
      at: Date.now() - 5_000,
      sessionId: `detail-${crypto.randomUUID()}`,
      arguments: JSON.stringify({ text: "<script>alert(1)</script>", api_key: "[REDACTED]" }),
      coercions: [{ path: "count", from: "string", to: "number" }],
      coercionCount: 1,
      policyDecision: "allow",
      policyRule: "echo*",
      status: "error",
      errorCode: "TOOL_ERROR",
      errorMessage: "<b>boom</b>",
      attempts: 3,
      durationMs: 1234,
      resultChars: 77,
    });
    await writeAuditRecords(env.DB, [record]);
    const { client } = await signedInAs("admin");
    expect((await client.get(`/admin/audit/${auditRecordId(record)}`)).status).toBe(200);
    const page = client.lastPage;
    for (const text of ["allow (rule echo*)", "1234 ms", "77 characters", "TOOL_ERROR", "&lt;b&gt;boom&lt;/b&gt;", "[REDACTED]", "&lt;script&gt;"])
      expect(page).toContain(text);
    expect(page).toContain("<code>count</code>: string → number");
    expect(page).not.toContain("<script>alert");
    expect(page).toContain(`href="/admin/sessions/${record.sessionId}"`);
  });

  it("answer an unknown or malformed call id with a 404 page", async () => {
    const { client } = await signedInAs("admin");
    expect((await client.get("/admin/audit/1700000000000-1")).status).toBe(404);
    // A time the API's `until` (one millisecond later) could not name is no call either.
    expect((await client.get("/admin/audit/999999999999999-1")).status).toBe(404);
    expect(client.lastPage).toContain("No such call");
    expect((await client.get("/admin/audit/%3Cscript%3E")).status).toBe(404);
    expect(client.lastPage).not.toContain("<script>");
  });

  it("show a session's calls oldest first", async () => {
    const sessionId = `timeline-${crypto.randomUUID()}`;
    const now = Date.now();
    const first = auditRecord({ at: now - 3_000, sessionId, tool: "first_tool" });
    const second = auditRecord({ at: now - 2_000, sessionId, tool: "second_tool" });
    await writeAuditRecords(env.DB, [second, first]);
    const { client } = await signedInAs("admin");
    expect((await client.get(`/admin/sessions/${sessionId}`)).status).toBe(200);
    expect(client.lastPage.indexOf("first_tool")).toBeLessThan(client.lastPage.indexOf("second_tool"));
    expect(client.lastPage).toContain(`href="/approvals/sessions/${sessionId}"`);
  });

  it("are refused to an approver, whose sessions' trails are on the approvals page instead", async () => {
    const sessionId = `scoped-${crypto.randomUUID()}`;
    await writeAuditRecords(env.DB, [auditRecord({ at: Date.now() - 1_000, sessionId, keyId: "someone-else" })]);
    const { client } = await signedInAs("approver");
    expect((await client.get(`/admin/audit?session_id=${sessionId}`)).status).toBe(403);
    expect(client.lastPage).not.toContain("data-record-id=");
    expect((await client.get(`/approvals/sessions/${sessionId}`)).status).toBe(200);
  });
});

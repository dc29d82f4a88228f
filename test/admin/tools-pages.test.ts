/** The tools pages: grouped by toolset with availability and the day's calls, a tool's three shapes, re-check for admins only. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { writeAuditRecords } from "../../src/audit/write-audit-records.ts";
import { auditRecord } from "../audit/support.ts";
import { consoleCsrf, signedInAs } from "./admin-client.ts";

describe("the tools pages", () => {
  it("list every tool grouped by toolset, available or why not, with the day's calls and error rate", async () => {
    await writeAuditRecords(env.DB, [
      auditRecord({ at: Date.now() - 1_000, tool: "echo" }),
      auditRecord({ at: Date.now() - 900, tool: "echo", status: "error", errorCode: "TOOL_ERROR" }),
    ]);
    const { client } = await signedInAs("admin");
    expect((await client.get("/admin/tools")).status).toBe(200);
    const row = /<tr data-tool="echo">[\s\S]*?<\/tr>/.exec(client.lastPage)?.[0] ?? "";
    expect(row).toContain("available");
    expect(row).toContain("<td>2</td>");
    expect(row).toContain("50.0%");
    expect(client.lastPage).toContain('aria-label="Toolset core"');
    expect(client.lastPage).toContain("Re-check every tool");
  });

  it("show a tool's definition in the OpenAI, Anthropic and MCP shapes", async () => {
    const { client } = await signedInAs("admin");
    expect((await client.get("/admin/tools/echo")).status).toBe(200);
    for (const text of ["OpenAI", "Anthropic", "MCP", "&quot;input_schema&quot;", "&quot;inputSchema&quot;", "not a remote tool"])
      expect(client.lastPage).toContain(text);
    expect((await client.get("/admin/tools/%3Cscript%3Enope")).status).toBe(404);
    expect(client.lastPage).not.toContain("<script>nope");
  });

  it("re-check tools through POST /v1/health/tools/recheck, for admins only", async () => {
    const admin = await signedInAs("admin");
    const csrf = await consoleCsrf(admin.client);
    expect((await admin.client.post("/admin/tools/recheck", { csrf })).status).toBe(200);
    expect(admin.client.lastPage).toContain("Re-checked every tool");
    expect((await admin.client.post("/admin/tools/recheck", { csrf, tool: "<b>nope</b>" })).status).toBe(400);
    expect(admin.client.lastPage).toContain("unknown tools: &lt;b&gt;nope&lt;/b&gt;");

    const approver = await signedInAs("approver");
    expect((await approver.client.post("/admin/tools/recheck", { csrf: await consoleCsrf(approver.client) })).status).toBe(403);
    expect(approver.client.lastPage).toContain("the admin console needs an admin key");
  });
});

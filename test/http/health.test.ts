import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { archiveChunkKey } from "../../src/audit/audit-archive-keys.ts";
import { AUDIT_TABLE } from "../../src/audit/audit-table.ts";
import worker from "../../src/index.ts";
import { api } from "../support/api.ts";
import { json } from "../support/json.ts";

interface Health {
  tools: { name: string; available: boolean; reason: string | null; checked_at: string | null; has_check: boolean; requires_env: string[] }[];
  checked: number;
}

describe("health routes", () => {
  it("shows every tool's availability with the reason and the check time", async () => {
    const body = await json<Health>(await api("/v1/health/tools"));
    const github = body.tools.find((t) => t.name === "github_repo");
    expect(github).toEqual({
      name: "github_repo",
      toolset: "web",
      available: false,
      reason: "missing required environment variable: GITHUB_TOKEN",
      checked_at: null,
      has_check: true,
      requires_env: ["GITHUB_TOKEN"],
    });
    expect(body.tools.find((t) => t.name === "echo")).toMatchObject({ available: true, reason: null });
  });

  it("lets an admin force a re-check, and refuses unknown tools by name", async () => {
    const res = await api("/v1/health/tools/recheck", { body: { tools: ["echo", "github_repo"] } });
    expect(res.status).toBe(200);
    const rechecked = await json<Health>(res);
    expect(rechecked.tools.map((t) => t.name)).toEqual(["echo", "github_repo"]);
    expect(rechecked.checked).toBe(1);
    const bad = await api("/v1/health/tools/recheck", { body: { tools: ["nope"] } });
    expect(bad.status).toBe(400);
    expect(await json(bad)).toMatchObject({ issues: [{ path: "tools", message: "unknown tools: nope" }] });
  });

  it("keeps a plain liveness route public", async () => {
    const res = await api("/health", { headers: { authorization: "" } });
    expect(await json(res)).toEqual({ status: "ok" });
  });
});

describe("scheduled retention", () => {
  it("archives audit records older than AUDIT_ARCHIVE_AFTER_DAYS to the bound R2 bucket, deleting them from D1 only then, and keeps the rest", async () => {
    const day = 86_400_000;
    const now = Date.now();
    const insert = env.DB.prepare(
      `INSERT INTO ${AUDIT_TABLE} (rid, at, key_id, session_id, tool_call_id, tool, toolset, arguments, arguments_truncated, arguments_sha256, coercions, coercion_count, status, attempts, duration_ms, result_chars, truncated) VALUES (?, ?, 'k', 'retention', 'c', 'echo', 'core', '{}', 0, ?, '[]', 0, 'ok', 1, 1, 1, 0)`,
    );
    await env.DB.batch([
      insert.bind(1, now - 31 * day, "0".repeat(64)),
      insert.bind(2, now - 29 * day, "0".repeat(64)),
      insert.bind(3, now - 3_600_000, "0".repeat(64)),
    ]);
    const ctx = createExecutionContext();
    worker.scheduled(createScheduledController({ scheduledTime: now, cron: "17 3 * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
    const { results } = await env.DB.prepare(`SELECT rid FROM ${AUDIT_TABLE} WHERE session_id = 'retention'`).all<{ rid: number }>();
    expect(results.map((r) => r.rid)).toEqual([3]);
    for (const rid of [1, 2]) {
      const at = now - (rid === 1 ? 31 : 29) * day;
      expect(await env.AUDIT_ARCHIVE.head(archiveChunkKey({ at, tie: rid }))).not.toBeNull();
    }
  });

  it("drops settled approvals older than APPROVAL_RETENTION_DAYS from the index", async () => {
    const day = 86_400_000;
    const now = Date.now();
    const insert = env.DB.prepare(
      "INSERT INTO approvals (id, session_id, tool_call_id, tool, arguments, arguments_sha256, requested_by, requested_at, expires_at, status, version) VALUES (?, 'cron-approvals', 'c', 'delete_result', '{}', ?, 'k', ?, ?, ?, 1)",
    );
    await env.DB.batch([
      insert.bind("cron-old-denied", "0".repeat(64), now - 31 * day, now - 31 * day + 900_000, "denied"),
      insert.bind("cron-recent-denied", "0".repeat(64), now - 29 * day, now - 29 * day + 900_000, "denied"),
    ]);
    const ctx = createExecutionContext();
    worker.scheduled(createScheduledController({ scheduledTime: now, cron: "17 3 * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
    const { results } = await env.DB.prepare("SELECT id FROM approvals WHERE session_id = 'cron-approvals'").all<{ id: string }>();
    expect(results.map((r) => r.id)).toEqual(["cron-recent-denied"]);
  });
});

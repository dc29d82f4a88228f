import { env } from "cloudflare:workers";
import { OpenAPIHono } from "@hono/zod-openapi";
import { Hono } from "hono";
import { beforeAll, describe, expect, it } from "vitest";
import { type AuditRecord, auditRecordId } from "../../src/audit/audit-record.ts";
import { MAX_STATS_DAYS } from "../../src/audit/audit-route-specs.ts";
import { type AuditEnv, auditRoutes } from "../../src/audit/audit-routes.ts";
import type { AuditRecordWire } from "../../src/audit/audit-wire.ts";
import { RESIDUAL_SCAN_ROWS } from "../../src/audit/list-audit.ts";
import { writeAuditRecords } from "../../src/audit/write-audit-records.ts";
import type { Principal } from "../../src/auth/principal.ts";
import { adminPrincipal, auditRecord } from "./support.ts";

const admin: Principal = adminPrincipal;
const keyOf = (keyId: string, role: Principal["role"] = "agent"): Principal => ({ ...admin, keyId, name: keyId, role });

/** The routes behind a stand-in for the auth middleware that sets `principal` (or, with none, does not). */
function as(principal: Principal | undefined, bindings: Env = env) {
  const app = new Hono<AuditEnv>();
  app.use(async function setPrincipal(c, next) {
    if (principal !== undefined) c.set("principal", principal);
    await next();
  });
  app.route("/", auditRoutes);
  return async (path: string) => {
    const response = await app.request(path, {}, bindings);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
}

type Page = {
  records: AuditRecordWire[];
  next_cursor: string | null;
};
const ids = (page: unknown) => (page as Page).records.map((r) => r.id);
const sortedIds = (records: AuditRecord[]) => records.map(auditRecordId).sort();

describe("GET /v1/audit filters", () => {
  const T0 = Date.parse("2031-01-01T00:00:00Z");
  const window = `since=${T0}&until=${T0 + 10_000}`;
  const f1 = auditRecord({ keyId: "key-fa", sessionId: "fs-a", tool: "f_echo", at: T0 + 1000, arguments: '{"text":"hi"}' });
  const f2 = auditRecord({ keyId: "key-fa", sessionId: "fs-b", tool: "f_clock", at: T0 + 2000, status: "error", errorCode: "INVALID_ARGUMENTS" });
  const f3 = auditRecord({ keyId: "key-fb", sessionId: "fs-a", tool: "f_echo", at: T0 + 3000, status: "timed_out", errorCode: "TOOL_TIMEOUT" });
  const f4 = auditRecord({ keyId: "key-fb", sessionId: "fs-c", tool: "f_fetch", at: T0 + 4000, status: "blocked", errorCode: "PERMISSION_DENIED" });
  const get = as(admin);
  const names = new Map([f1, f2, f3, f4].map((r, i) => [auditRecordId(r), `f${i + 1}`]));
  const named = (page: unknown) => ids(page).map((id) => names.get(id) ?? id);

  beforeAll(async () => {
    await writeAuditRecords(env.DB, [f1, f2, f3, f4]);
  });

  it("lists the window newest first, each record in its wire shape", async () => {
    const { status, body } = await get(`/v1/audit?${window}`);
    expect(status).toBe(200);
    expect(named(body)).toEqual(["f4", "f3", "f2", "f1"]);
    expect((body as Page).records[3]).toMatchObject({
      id: auditRecordId(f1),
      time: "2031-01-01T00:00:01.000Z",
      key_id: "key-fa",
      session_id: "fs-a",
      tool: "f_echo",
      arguments: { text: "hi" },
      status: "ok",
      error_code: null,
    });
    expect(body.next_cursor).toBeNull();
  });

  it("filters by key, session, tool, status and error code, alone and together", async () => {
    const cases: [string, string[]][] = [
      ["key_id=key-fa", ["f2", "f1"]],
      ["session_id=fs-a", ["f3", "f1"]],
      ["tool=f_echo", ["f3", "f1"]],
      ["status=timed_out", ["f3"]],
      ["error_code=PERMISSION_DENIED", ["f4"]],
      ["key_id=key-fb&status=blocked", ["f4"]],
      ["key_id=key-fa&tool=f_fetch", []],
    ];
    for (const [query, expected] of cases) expect([query, named((await get(`/v1/audit?${window}&${query}`)).body)]).toEqual([query, expected]);
  });

  it("takes since (inclusive) and until (exclusive) as ISO 8601 or epoch milliseconds", async () => {
    expect(named((await get(`/v1/audit?since=2031-01-01T00:00:02Z&until=${T0 + 4000}`)).body)).toEqual(["f3", "f2"]);
    expect(named((await get(`/v1/audit?since=${T0 + 3000}&until=2031-01-01T01:00:04%2B01:00`)).body)).toEqual(["f3"]);
  });
});

describe("GET /v1/audit pagination", () => {
  const T1 = Date.parse("2031-02-01T00:00:00Z");
  // Groups of three calls in the same millisecond, so pages must split ties correctly.
  const records = Array.from({ length: 23 }, (_, i) => auditRecord({ keyId: "key-page", at: T1 + Math.floor(i / 3) }));
  const get = as(keyOf("key-page"));

  beforeAll(async () => {
    await writeAuditRecords(env.DB, records);
  });

  it("walks every record exactly once, newest first, and ends with a null cursor", async () => {
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10; page++) {
      const { body } = await get(`/v1/audit?limit=5${cursor === null ? "" : `&cursor=${cursor}`}`);
      seen.push(...ids(body));
      sizes.push(ids(body).length);
      cursor = (body as Page).next_cursor;
      // A call recorded while the client pages is newer than every page: it never shifts one.
      if (page === 0) await writeAuditRecords(env.DB, [auditRecord({ keyId: "key-page", at: T1 + 1_000_000 })]);
      if (cursor === null) break;
    }
    expect(sizes).toEqual([5, 5, 5, 5, 3]);
    expect(new Set(seen).size).toBe(23);
    const expectedOrder = [...records].sort((a, b) => b.at - a.at || b.rid - a.rid).map(auditRecordId);
    expect(seen).toEqual(expectedOrder);
  });

  it("uses 50 records a page by default", async () => {
    await writeAuditRecords(
      env.DB,
      Array.from({ length: 60 }, () => auditRecord({ keyId: "key-default-page" })),
    );
    const { body } = await as(keyOf("key-default-page"))("/v1/audit");
    expect(ids(body).length).toBe(50);
    expect(typeof body.next_cursor).toBe("string");
  });
});

describe("GET /v1/audit/stats", () => {
  const T2 = Date.parse("2031-03-01T00:00:00Z");
  const statusOf = (i: number) => (i <= 16 ? "ok" : i <= 18 ? "error" : i === 19 ? "timed_out" : "blocked");
  const a = Array.from({ length: 20 }, (_, k) => auditRecord({ keyId: "key-stats", tool: "st_a", at: T2 + k, durationMs: k + 1, status: statusOf(k + 1) }));
  const b = auditRecord({ keyId: "key-stats", tool: "st_b", at: T2 + 100, durationMs: 100 });
  const outside = auditRecord({ keyId: "key-stats", tool: "st_a", at: T2 - 1, durationMs: 5000, status: "error" });
  const get = as(keyOf("key-stats"));
  const window = `since=${T2}&until=${T2 + 3_600_000}`;

  beforeAll(async () => {
    await writeAuditRecords(env.DB, [...a, b, outside]);
  });

  it("gives per-tool counts, errors, error rate and nearest-rank p50/p95 over the window", async () => {
    const { status, body } = await get(`/v1/audit/stats?${window}`);
    expect(status).toBe(200);
    expect(body).toEqual({
      since: "2031-03-01T00:00:00.000Z",
      until: "2031-03-01T01:00:00.000Z",
      tool: null,
      incomplete_before: null,
      total: { calls: 21, errors: 3, error_rate: 3 / 21, p50_ms: 11, p95_ms: 20, statuses: { ok: 17, error: 2, timed_out: 1, blocked: 1 }, top_messages: [] },
      tools: [
        {
          tool: "st_a",
          calls: 20,
          errors: 3,
          error_rate: 0.15,
          p50_ms: 10,
          p95_ms: 19,
          statuses: { ok: 16, error: 2, timed_out: 1, blocked: 1 },
          top_messages: [],
        },
        { tool: "st_b", calls: 1, errors: 0, error_rate: 0, p50_ms: 100, p95_ms: 100, statuses: { ok: 1 }, top_messages: [] },
      ],
    });
  });

  it("narrows to one tool, and answers zeros for an empty window", async () => {
    const one = (await get(`/v1/audit/stats?${window}&tool=st_b`)).body;
    expect(one).toMatchObject({ tool: "st_b", total: { calls: 1, p50_ms: 100 }, tools: [{ tool: "st_b" }] });
    const empty = (await get(`/v1/audit/stats?since=${T2 + 7_200_000}&until=${T2 + 7_300_000}`)).body;
    expect(empty).toMatchObject({ total: { calls: 0, errors: 0, error_rate: 0, p50_ms: null, p95_ms: null, statuses: {} }, tools: [] });
  });

  it("covers the last 24 hours by default", async () => {
    const now = Date.now();
    await writeAuditRecords(env.DB, [
      auditRecord({ keyId: "key-stats-now", at: now - 3_600_000 }),
      auditRecord({ keyId: "key-stats-now", at: now - 25 * 3_600_000 }),
    ]);
    const { body } = await as(keyOf("key-stats-now"))("/v1/audit/stats");
    expect(body).toMatchObject({ total: { calls: 1 } });
    expect(Date.parse(String(body.until)) - Date.parse(String(body.since))).toBe(24 * 3_600_000);
  });
});

describe("GET /v1/audit/stats window", () => {
  const get = as(keyOf("key-stats-window"));
  const DAY = 86_400_000;

  it("says from when D1 holds every record when the window starts before it (archive bound: AUDIT_ARCHIVE_AFTER_DAYS)", async () => {
    const now = Date.now();
    const { body } = await get(`/v1/audit/stats?since=${now - 10 * DAY}&until=${now}`);
    const horizon = Date.parse(String(body.incomplete_before));
    const expected = now - Number(env.AUDIT_ARCHIVE_AFTER_DAYS) * DAY;
    expect(Math.abs(horizon - expected)).toBeLessThan(60_000);
    expect((await get(`/v1/audit/stats?since=${now - DAY}&until=${now}`)).body.incomplete_before).toBeNull();
  });

  it("counts D1 back to AUDIT_RETENTION_DAYS when no archive is bound", async () => {
    const now = Date.now();
    const { AUDIT_ARCHIVE: _, ...unarchived } = env;
    const { body } = await as(keyOf("key-stats-window"), unarchived as Env)(`/v1/audit/stats?since=${now - 31 * DAY}&until=${now}`);
    const expected = now - Number(env.AUDIT_RETENTION_DAYS) * DAY;
    expect(Math.abs(Date.parse(String(body.incomplete_before)) - expected)).toBeLessThan(60_000);
  });

  it("refuses a window longer than MAX_STATS_DAYS with the 400 envelope naming until", async () => {
    const { status, body } = await get(`/v1/audit/stats?since=0&until=${(MAX_STATS_DAYS + 1) * DAY}`);
    expect(status).toBe(400);
    expect(body).toMatchObject({ error_code: "INVALID_REQUEST", issues: [{ path: "until" }] });
  });
});

describe("audit scoping", () => {
  const T3 = Date.parse("2031-04-01T00:00:00Z");
  const window = `since=${T3}&until=${T3 + 10_000}`;
  const mine = [1, 2].map((s) => auditRecord({ keyId: "key-mine", sessionId: "scope-mine", tool: "sc_tool", at: T3 + s }));
  const theirs = auditRecord({ keyId: "key-theirs", sessionId: "scope-theirs", tool: "sc_tool", at: T3 + 3, status: "error", errorCode: "EXECUTION_FAILED" });

  beforeAll(async () => {
    await writeAuditRecords(env.DB, [...mine, theirs]);
  });

  it("shows an agent only its own key's records, whatever it filters on", async () => {
    const get = as(keyOf("key-mine"));
    expect(ids((await get(`/v1/audit?${window}`)).body).sort()).toEqual(sortedIds(mine));
    expect(ids((await get(`/v1/audit?${window}&key_id=key-theirs`)).body)).toEqual([]);
    expect(ids((await get(`/v1/audit?session_id=scope-theirs`)).body)).toEqual([]);
    expect(ids((await get(`/v1/audit?${window}&status=error`)).body)).toEqual([]);
  });

  it("scopes every non-admin role, in stats too, and shows an admin every key", async () => {
    expect(ids((await as(keyOf("key-theirs", "approver"))(`/v1/audit?${window}`)).body)).toEqual([auditRecordId(theirs)]);
    expect((await as(keyOf("key-mine"))(`/v1/audit/stats?${window}`)).body).toMatchObject({ total: { calls: 2, errors: 0 } });
    expect(ids((await as(admin)(`/v1/audit?${window}`)).body).sort()).toEqual(sortedIds([...mine, theirs]));
    expect((await as(admin)(`/v1/audit/stats?${window}`)).body).toMatchObject({ total: { calls: 3, errors: 1 } });
  });

  it("reveals nothing when mounted without the auth middleware", async () => {
    const list = await as(undefined)(`/v1/audit?${window}`);
    expect(list.status).toBe(500);
    expect(list.body).not.toHaveProperty("records");
    expect((await as(undefined)("/v1/audit/stats")).status).toBe(500);
  });
});

describe("bad audit query values", () => {
  it("answer 400 JSON naming the field, never 500", async () => {
    const get = as(admin);
    const cases: [string, string][] = [
      ["/v1/audit?limit=0", "limit"],
      ["/v1/audit?limit=201", "limit"],
      ["/v1/audit?limit=ten", "limit"],
      ["/v1/audit?status=done", "status"],
      ["/v1/audit?error_code=timeout", "error_code"],
      ["/v1/audit?since=yesterday", "since"],
      ["/v1/audit?until=2031-13-45", "until"],
      ["/v1/audit?cursor=not-a-cursor", "cursor"],
      ["/v1/audit?since=2031-01-02&until=2031-01-01", "since"],
      ["/v1/audit/stats?since=soon", "since"],
      ["/v1/audit/stats?since=2031-01-02&until=2031-01-01", "since"],
    ];
    for (const [path, field] of cases) {
      const { status, body } = await get(path);
      expect([path, status, body.error_code]).toEqual([path, 400, "INVALID_REQUEST"]);
      expect((body.issues as { path: string }[]).map((i) => i.path)).toEqual([field]);
    }
  });
});

describe("the audit routes' OpenAPI entries", () => {
  it("document every route when mounted on an OpenAPI app", () => {
    const app = new OpenAPIHono<AuditEnv>();
    app.route("/", auditRoutes);
    const doc = app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "t", version: "1" } });
    expect(Object.keys(doc.paths ?? {}).sort()).toEqual(["/v1/audit", "/v1/audit/export", "/v1/audit/stats"]);
  });
});

describe("GET /v1/audit with filters no index serves", () => {
  const T5 = Date.parse("2031-05-01T00:00:00Z");
  const window = `since=${T5}&until=${T5 + 100_000}`;
  // 12 000 calls of one tool, two of another among them: a page may read RESIDUAL_SCAN_ROWS.
  const common = Array.from({ length: 12_000 }, (_, i) => auditRecord({ keyId: "key-scan", tool: "scan_common", at: T5 + i }));
  const rare = [11_990, 4_000].map((i) => auditRecord({ keyId: "key-scan", tool: "scan_rare", at: T5 + i, status: "error", errorCode: "EXECUTION_FAILED" }));

  beforeAll(async () => {
    await writeAuditRecords(env.DB, [...common, ...rare]);
  });

  it("reads a bounded number of rows a page and pages on, finding every match exactly once", async () => {
    expect(RESIDUAL_SCAN_ROWS).toBeLessThan(common.length);
    const get = as(admin);
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10; page++) {
      const { status, body } = await get(`/v1/audit?${window}&tool=scan_rare&limit=50${cursor === null ? "" : `&cursor=${cursor}`}`);
      expect(status).toBe(200);
      seen.push(...ids(body));
      sizes.push(ids(body).length);
      cursor = (body as Page).next_cursor;
      if (cursor === null) break;
    }
    expect(seen).toEqual(rare.map(auditRecordId));
    // Each page read at most its allowance: 12 002 rows take three pages.
    expect(sizes.length).toBe(Math.ceil((common.length + rare.length) / RESIDUAL_SCAN_ROWS));
  });

  it("fills a page without a continuation when the matches are near", async () => {
    const { body } = await as(admin)(`/v1/audit?${window}&tool=scan_common&limit=5`);
    expect(ids(body)).toEqual(common.slice(-5).reverse().map(auditRecordId));
    expect(typeof body.next_cursor).toBe("string");
  });
});

/**
 * Shared by the audit tests: a valid record without going through a call, and a D1 that fails
 * on a schedule, for fault injection against the real database.
 */
import { env } from "cloudflare:workers";
import { Hono } from "hono";
import { type AuditRecord, newRid } from "../../src/audit/audit-record.ts";
import { type AuditEnv, auditRoutes } from "../../src/audit/audit-routes.ts";
import { AUDIT_TABLE } from "../../src/audit/audit-table.ts";
import type { AuditDatabase } from "../../src/audit/write-audit-records.ts";
import type { Principal } from "../../src/auth/principal.ts";

/** A valid audit record; every field can be overridden. */
export function auditRecord(overrides: Partial<AuditRecord> = {}): AuditRecord {
  return {
    at: Date.now(),
    rid: newRid(),
    keyId: "key-test",
    sessionId: "session-test",
    toolCallId: "call_1",
    tool: "echo",
    toolset: "core",
    arguments: '{"text":"hi"}',
    argumentsTruncated: false,
    argumentsSha256: "0".repeat(64),
    coercions: [],
    coercionCount: 0,
    policyDecision: null,
    policyRule: null,
    approvalId: null,
    status: "ok",
    errorCode: null,
    errorMessage: null,
    attempts: 1,
    durationMs: 5,
    resultChars: 20,
    truncated: false,
    requestId: null,
    ...overrides,
  };
}

/** Rows of the real audit table with these ids. */
export async function countRows(where: string, ...params: (string | number)[]): Promise<number> {
  const row = await env.DB.prepare(`SELECT COUNT(*) AS n FROM ${AUDIT_TABLE} WHERE ${where}`)
    .bind(...params)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/**
 * How one database call behaves: `ok`; `before` throws without touching D1 (D1 unreachable);
 * `after` lets the write commit and then throws (the reply was lost), the case that would
 * duplicate rows if writes were not idempotent.
 */
export type Fault = "ok" | "before" | "after";

export interface FlakyDatabase extends AuditDatabase {
  readonly faults: Record<Fault, number>;
}

/**
 * The real D1 behind a D1Database-shaped wrapper whose `batch()` and `prepare().run()` fail as
 * `schedule(n)` says for the n-th such call (1-based).
 */
export function flakyDatabase(real: D1Database, schedule: (call: number) => Fault): FlakyDatabase {
  const faults: Record<Fault, number> = { ok: 0, before: 0, after: 0 };
  const unwrap = new WeakMap<object, D1PreparedStatement>();
  let calls = 0;

  async function guarded<T>(work: () => Promise<T>): Promise<T> {
    calls += 1;
    const fault = schedule(calls);
    faults[fault] += 1;
    if (fault === "before") throw new Error(`D1_ERROR: injected failure before call ${calls}`);
    const result = await work();
    if (fault === "after") throw new Error(`D1_ERROR: injected failure after call ${calls} committed`);
    return result;
  }

  // A statement whose run() is guarded; batch() gets the real statement back from `unwrap`.
  function wrap(statement: D1PreparedStatement): D1PreparedStatement {
    const proxy = new Proxy(statement, {
      get(target, property) {
        if (property === "run") return () => guarded(() => target.run());
        if (property === "bind") return (...values: unknown[]) => wrap(target.bind(...values));
        const value: unknown = Reflect.get(target, property);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    unwrap.set(proxy, statement);
    return proxy;
  }

  return {
    faults,
    prepare: (query: string) => wrap(real.prepare(query)),
    batch: <T = unknown>(statements: D1PreparedStatement[]) => guarded(() => real.batch<T>(statements.map((s) => unwrap.get(s) ?? s))),
  };
}

/** An admin principal, as the auth middleware would set it. */
export const adminPrincipal: Principal = {
  keyId: "admin-token",
  name: "admin",
  role: "admin",
  toolsets: null,
  policy: { mode: "deny", patterns: [] },
  rateLimitPerMinute: null,
  scopes: [],
};

/** The audit routes behind a stand-in for the auth middleware that sets `principal`; requests run against `bindings`. */
export function auditRoutesAs(principal: Principal, bindings: Env = env): (path: string) => Promise<Response> {
  const app = new Hono<AuditEnv>();
  app.use(async function setPrincipal(c, next) {
    c.set("principal", principal);
    await next();
  });
  app.route("/", auditRoutes);
  return async (path) => app.request(path, {}, bindings);
}

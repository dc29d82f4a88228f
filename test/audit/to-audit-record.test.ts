import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { argumentsSha256Of } from "../../src/audit/arguments-hash.ts";
import { AuditRecordSchema, MAX_ARGUMENT_BYTES } from "../../src/audit/audit-record.ts";
import { toWireRecord } from "../../src/audit/audit-wire.ts";
import { canonicalJson } from "../../src/audit/canonical-json.ts";
import { failureMessageOf, sanitizeMessage } from "../../src/audit/failure-message.ts";
import { REDACTED, redactSecrets, redactSecretsInText } from "../../src/audit/redact-secrets.ts";
import { type AuditableOutcome, toAuditRecord } from "../../src/audit/to-audit-record.ts";
import { sha256Hex } from "../../src/crypto/sha256.ts";
import { toEnvelope } from "../../src/errors/envelope.ts";
import type { ErrorCode, ToolFailure } from "../../src/errors/tool-failure.ts";
import { auditStatusOf } from "../../src/formats/outcome-wire.ts";
import { type CallContext, dispatchCall, settleUnrun } from "../support/dispatch.ts";

const meta = { keyId: "key-rec", sessionId: "session-rec" };
const context = (callId: string): CallContext => ({ callId, sessionId: meta.sessionId, env });

function outcome(errorCode?: ErrorCode, failure?: ToolFailure): AuditableOutcome {
  return {
    callId: "call_x",
    tool: "echo",
    toolset: "core",
    durationMs: 3,
    attempts: errorCode === undefined ? 1 : 0,
    coercions: [],
    truncated: false,
    resultChars: 0,
    ...(errorCode === undefined ? {} : { errorCode }),
    ...(failure === undefined ? {} : { envelope: toEnvelope(failure) }),
  };
}

describe("redacting secrets", () => {
  it("replaces the value of every secret-named key at any depth, whatever its case or separators", () => {
    const redacted = redactSecrets({
      query: "weather",
      accessToken: "t1",
      nested: { "X-Api-Key": "k1", list: [{ client_secret: "s1", keep: 1 }, { PASSWORD: { deep: "p1" } }] },
      headers: { Authorization: "Bearer abc", accept: "json" },
      api_key: ["a", "b"],
    });
    expect(redacted).toEqual({
      query: "weather",
      accessToken: REDACTED,
      nested: { "X-Api-Key": REDACTED, list: [{ client_secret: REDACTED, keep: 1 }, { PASSWORD: REDACTED }] },
      headers: { Authorization: REDACTED, accept: "json" },
      api_key: REDACTED,
    });
  });

  it("redacts the JSON text OpenAI sends, and best-effort inside text that is not valid JSON", async () => {
    const record = toAuditRecord(outcome(), '{"q":"x","password":"hunter2"}', meta);
    expect(JSON.parse(record.arguments)).toEqual({ password: REDACTED, q: "x" });
    expect(redactSecretsInText('{"q": "x", "api_key": "sk-123", "token": 42, oops')).toBe(`{"q": "x", "api_key": "${REDACTED}", "token": "${REDACTED}", oops`);
    const malformed = toAuditRecord(outcome("INVALID_ARGUMENTS"), '{"secret": "s3cr3t", ', meta);
    expect(malformed.arguments).not.toContain("s3cr3t");
  });
});

describe("hashing and capping the arguments", () => {
  it("hashes canonical JSON (keys sorted at every depth) so key order never changes the hash", async () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null }, "10": 1, "2": 2 })).toBe('{"10":1,"2":2,"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
    const one = toAuditRecord(outcome(), { b: 1, a: 2 }, meta);
    const two = toAuditRecord(outcome(), '{"a":2,"b":1}', meta);
    expect(argumentsSha256Of(one)).toBe(argumentsSha256Of(two));
    expect(argumentsSha256Of(one)).toBe(sha256Hex('{"a":2,"b":1}'));
    expect(argumentsSha256Of(toAuditRecord(outcome(), { a: 3, b: 1 }, meta))).not.toBe(argumentsSha256Of(one));
  });

  it("stores short arguments whole and leaves their hash to readers, who compute it from the stored text", async () => {
    const record = toAuditRecord(outcome(), { text: "hello", times: 2 }, meta);
    expect(record.argumentsTruncated).toBe(false);
    expect(record.argumentsSha256).toBe("");
    expect(argumentsSha256Of(record)).toBe(sha256Hex('{"text":"hello","times":2}'));
    expect(toWireRecord(record).arguments_sha256).toBe(argumentsSha256Of(record));
  });

  it("hashes the redacted arguments, so the hash is no oracle for the secret", async () => {
    const a = toAuditRecord(outcome(), { user: "bob", password: "hunter2" }, meta);
    const b = toAuditRecord(outcome(), { user: "bob", password: "letmein" }, meta);
    expect(argumentsSha256Of(a)).toBe(argumentsSha256Of(b));
  });

  it("cuts arguments over 4 KiB to a marked, valid-JSON preview and hashes the whole text", async () => {
    const big = { text: "é".repeat(5000), n: 1 };
    const full = canonicalJson(big);
    const record = toAuditRecord(outcome(), big, meta);
    expect(record.argumentsTruncated).toBe(true);
    expect(new TextEncoder().encode(record.arguments).length).toBeLessThanOrEqual(MAX_ARGUMENT_BYTES);
    const marker = JSON.parse(record.arguments) as { $truncated: boolean; bytes: number; preview: string };
    expect(marker.$truncated).toBe(true);
    expect(marker.bytes).toBe(new TextEncoder().encode(full).length);
    expect(full.startsWith(marker.preview)).toBe(true);
    expect(marker.preview.length).toBeGreaterThan(1500);
    expect(record.argumentsSha256).toBe(sha256Hex(full));
    expect(argumentsSha256Of(record)).toBe(sha256Hex(full));
  });
});

describe("the record of a call", () => {
  it("records a successful call through the real pipeline with every field the schema asks for", async () => {
    const ran = await dispatchCall("echo", '{"text":"hi","times":"2"}', context("call_ok"));
    const record = toAuditRecord(ran, '{"text":"hi","times":"2"}', { ...meta, at: 1_700_000_000_000 });
    expect(AuditRecordSchema.safeParse(record).success).toBe(true);
    expect(record).toMatchObject({
      at: 1_700_000_000_000,
      keyId: "key-rec",
      sessionId: "session-rec",
      toolCallId: "call_ok",
      tool: "echo",
      toolset: "core",
      status: "ok",
      errorCode: null,
      attempts: 1,
      coercionCount: 1,
      coercions: [{ path: "times", from: "string", to: "integer" }],
      resultChars: ran.resultChars,
      truncated: false,
    });
  });

  it("names each way a call ends with one status", async () => {
    const unrun = (failure: ToolFailure) => settleUnrun("echo", "{}", context("call_f"), failure);
    const cases: [AuditableOutcome, string, string | null][] = [
      [await unrun({ kind: "timeout", name: "echo", elapsedMs: 10, timeoutMs: 10, limit: "call" }), "timed_out", "TOOL_TIMEOUT"],
      [await unrun({ kind: "outside_toolset", name: "echo", toolset: "web" }), "blocked", "PERMISSION_DENIED"],
      [await unrun({ kind: "blocked_by_hook", name: "echo", message: "no" }), "blocked", "PERMISSION_DENIED"],
      [await unrun({ kind: "invalid_arguments", name: "echo", issues: [] }), "error", "INVALID_ARGUMENTS"],
      [await dispatchCall("no_such_tool", "{}", context("call_u")), "error", "UNKNOWN_TOOL"],
      [outcome("RATE_LIMITED"), "error", "RATE_LIMITED"],
      [outcome("APPROVAL_REQUIRED"), "pending_approval", "APPROVAL_REQUIRED"],
      [outcome("APPROVAL_DENIED"), "denied", "APPROVAL_DENIED"],
      [outcome("APPROVAL_EXPIRED"), "expired", "APPROVAL_EXPIRED"],
    ];
    for (const [ended, status, code] of cases) {
      const record = toAuditRecord(ended, {}, meta);
      expect([record.status, record.errorCode]).toEqual([status, code]);
    }
  });

  it("says which rule blocked a call, and takes the policy and approval layers' word when given", async () => {
    const toolset = toAuditRecord(await settleUnrun("echo", "{}", context("c1"), { kind: "outside_toolset", name: "echo", toolset: "web" }), {}, meta);
    expect([toolset.policyDecision, toolset.policyRule]).toEqual(["deny", "request_toolset"]);
    const hook = toAuditRecord(await settleUnrun("echo", "{}", context("c2"), { kind: "blocked_by_hook", name: "echo", message: "no" }), {}, meta);
    expect([hook.policyDecision, hook.policyRule]).toEqual(["deny", "pre_call_hook"]);
    const fromOutcome = toAuditRecord({ ...outcome(), policy: { decision: "allow", rule: "whitelist:echo" } }, {}, meta);
    expect([fromOutcome.policyDecision, fromOutcome.policyRule]).toEqual(["allow", "whitelist:echo"]);

    const approved = toAuditRecord(outcome(), {}, { ...meta, approvalId: "appr_1", policy: { decision: "require_approval", rule: "deny:shell_*" } });
    expect(approved).toMatchObject({ status: "approved", approvalId: "appr_1", policyDecision: "require_approval", policyRule: "deny:shell_*" });
    expect(toAuditRecord(outcome("APPROVAL_REQUIRED"), {}, { ...meta, status: "expired" }).status).toBe("expired");
    expect(auditStatusOf(outcome("PERMISSION_DENIED"))).toBe("error");
  });

  it("clips identifiers the model controls and keeps a bounded list of coercions", async () => {
    const coercions = Array.from({ length: 30 }, (_, i) => ({ path: `items.${i}`, from: "string", to: "number" }));
    const record = toAuditRecord({ ...outcome("UNKNOWN_TOOL"), tool: "t".repeat(1000), callId: "c".repeat(1000), coercions }, {}, meta);
    expect(record.tool.length).toBe(256);
    expect(record.toolCallId.length).toBe(256);
    expect(record.coercions).toHaveLength(20);
    expect(record.coercionCount).toBe(30);
    expect(AuditRecordSchema.safeParse(record).success).toBe(true);
  });
});

describe("the failure message kept in the log", () => {
  it("is the envelope's message with its first field issue, and null for a call that did not fail", () => {
    const failed = toAuditRecord(
      outcome("INVALID_ARGUMENTS", {
        kind: "invalid_arguments",
        name: "echo",
        issues: [
          { path: "text", message: "expected string, received number" },
          { path: "n", message: "too big" },
        ],
      }),
      "{}",
      meta,
    );
    expect(failed.errorMessage).toContain("'text': expected string, received number");
    const unlisted = toAuditRecord(outcome("UPSTREAM_ERROR", { kind: "upstream", name: "echo", status: 502, detail: "bad gateway" }), "{}", meta);
    expect(unlisted.errorMessage).toContain("502");
    const withIssue = failureMessageOf({
      error: "Refused.",
      error_code: "INVALID_ARGUMENTS",
      stage: "validate",
      suggestion: "",
      retryable: false,
      issues: [
        { path: "url", message: "must be https" },
        { path: "n", message: "too big" },
      ],
    });
    expect(withIssue).toBe("Refused. [url: must be https]");
    expect(toAuditRecord(outcome(), "{}", meta).errorMessage).toBeNull();
    expect(failureMessageOf(undefined)).toBeNull();
  });

  it("takes out what looks like a credential, squeezes control characters and caps the length", () => {
    const text = sanitizeMessage(
      'upstream said 401 for https://api.example.com/v1?api_key=sk-live-1234&q=1 with Authorization: Bearer abcdefgh12345678 {"token": "t0ps3cret"}\u0000\n and key ghp_0123456789abcdefghijklmnopqrstuvwxyz01',
    );
    for (const secret of ["sk-live-1234", "abcdefgh12345678", "t0ps3cret", "ghp_0123456789abcdefghijklmnopqrstuvwxyz01"]) expect(text).not.toContain(secret);
    expect(text).toContain("api_key=[REDACTED]");
    expect(text).toContain("q=1");
    expect(text).not.toMatch(/[\u0000\n]/);
    const long = sanitizeMessage("word ".repeat(400));
    expect(long.length).toBe(500);
    expect(long.endsWith("…")).toBe(true);
    expect(AuditRecordSchema.safeParse({ ...toAuditRecord(outcome(), "{}", meta), errorMessage: long }).success).toBe(true);
  });
});

/**
 * The zod schemas of the audit routes' JSON shapes, apart from audit-wire.ts: only the routes
 * (loaded at their first request) need them, while the wire form is built by the archive and
 * export jobs the Worker entry imports, which must not build schemas at start-up (issue 33).
 */
import { z } from "@hono/zod-openapi";
import { CREDENTIAL_KINDS } from "../registry/credential-kind.ts";
import { AUDIT_STATUSES } from "./audit-record.ts";

export const AuditRecordWireSchema = z
  .object({
    id: z.string().openapi({ description: "The record's id: `<epoch ms>-<random>`.", example: "1777636800000-4503599627370495" }),
    time: z.string().openapi({ description: "When the call ended (ISO 8601).", example: "2026-05-01T12:00:00.000Z" }),
    key_id: z.string(),
    session_id: z.string(),
    run_id: z.string().optional().openapi({
      description: "The agent run the call was part of (POST /v1/runs, /v1/chat/completions, a delegate_task child); absent for calls a client sent itself.",
    }),
    tool_call_id: z.string(),
    tool: z.string(),
    called_as: z.string().optional().openapi({
      description:
        "The alias the call was made by at a curated endpoint (`/mcp/{toolset}` of a toolset with aliases); `tool` is the real tool, which policy decided on.",
      example: "create_issue",
    }),
    toolset: z.string().nullable(),
    arguments: z.unknown().openapi({ description: 'The arguments with secrets redacted; over 4 KiB, `{"$truncated": true, "bytes", "preview"}`.' }),
    arguments_truncated: z.boolean(),
    arguments_sha256: z.string().openapi({ description: "SHA-256 of the canonical JSON (sorted keys) of the whole redacted arguments." }),
    coercions: z.array(z.object({ path: z.string(), from: z.string(), to: z.string() })),
    coercion_count: z.number().int(),
    policy_decision: z.string().nullable(),
    policy_rule: z.string().nullable(),
    approval_id: z.string().nullable(),
    status: z.enum(AUDIT_STATUSES),
    error_code: z.string().nullable(),
    error_message: z.string().nullable().openapi({
      description:
        "Why a failed call failed: its message with anything that looks like a credential redacted, then its first field issue in brackets; at most 500 characters. Null for calls that did not fail, and for records written before the log kept messages.",
      example: "Invalid arguments for 'echo' [text: expected string, received number]",
    }),
    attempts: z.number().int(),
    duration_ms: z.number().int(),
    result_chars: z.number().int(),
    truncated: z.boolean(),
    request_id: z.string().nullable().openapi({
      description:
        "The x-request-id of the request that made the call (a webhook's calls: the delivery's request). Null on records written before it was kept.",
    }),
    credential: z.enum(CREDENTIAL_KINDS).nullable().openapi({
      description:
        "Which credential the call carried upstream: `shared` (the deployment's), `own` (the caller's per-user connection), `exchanged` (RFC 8693) or `identity` (a signed identity JWT alone). Its kind only, never a token; null when it carried none, and on records written before it was kept.",
      example: "own",
    }),
    decision: z
      .object({ by: z.string().nullable(), time: z.string(), scope: z.enum(["once", "session"]).nullable(), reason: z.string().nullable() })
      .optional()
      .openapi({ description: "A person's decision about the call (approvals): who (key id; null when it expired unanswered), when, scope and reason." }),
  })
  .openapi("AuditRecord");

export const CallStatsWireSchema = z
  .object({
    calls: z.number().int(),
    errors: z.number().int().openapi({ description: "Calls with status `error` or `timed_out`." }),
    error_rate: z.number().openapi({ description: "errors / calls; 0 with no calls." }),
    p50_ms: z.number().nullable(),
    p95_ms: z.number().nullable(),
    statuses: z.record(z.string(), z.number().int()).openapi({ description: "Calls per audit status." }),
    top_messages: z
      .array(z.object({ message: z.string(), calls: z.number().int() }))
      .openapi({ description: "The most frequent failure messages, at most 5, most frequent first: which field models get wrong, what an upstream answers." }),
  })
  .openapi("AuditCallStats");

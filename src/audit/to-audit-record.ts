/**
 * Builds the audit record of one finished call from its outcome, the arguments the model sent
 * and who sent them. Secrets are redacted first, so neither the stored preview nor the hash is
 * derived from a secret (a plain hash of a short password is a dictionary-attack oracle).
 */

import { shapeProblem, textHasTooManyValues } from "../arguments/argument-shape.ts";
import { sha256Hex } from "../crypto/sha256.ts";
import { auditStatusOf } from "../formats/outcome-wire.ts";
import type { CallOutcome } from "../pipeline/types.ts";
import { currentRequestId } from "../tracing/request-context.ts";
import {
  type AuditRecord,
  type AuditStatus,
  MAX_ARGUMENT_BYTES,
  MAX_ID_CHARS,
  MAX_REASON_CHARS,
  MAX_RECORDED_COERCIONS,
  MAX_REQUEST_ID_CHARS,
  newRid,
} from "./audit-record.ts";
import { canonicalJson } from "./canonical-json.ts";
import { capJson } from "./cap-json.ts";
import { failureMessageOf } from "./failure-message.ts";

import { redactSecrets, redactSecretsInText } from "./redact-secrets.ts";

/** Recorded instead of arguments refused for their shape. */
const UNWALKED_ARGUMENTS = "[arguments not recorded: past the depth or value cap of the parse stage]";

/**
 * The parts of a CallOutcome the record uses. `policy` is optional so this accepts outcomes from
 * before and after the access-policy layer reports its decision on the outcome.
 */
export type AuditableOutcome = Pick<
  CallOutcome,
  "callId" | "tool" | "toolset" | "errorCode" | "envelope" | "durationMs" | "attempts" | "coercions" | "truncated" | "resultChars" | "credential"
> & { policy?: { decision: string; rule: string } };

/** What the request knows about a call that the outcome does not. */
export interface AuditMeta {
  keyId: string;
  sessionId: string;
  /** When the call ended, epoch ms; now when absent. */
  at?: number;
  /** The policy verdict and its rule (`allow`, `deny`, `require_approval`); overrides the outcome's. */
  policy?: { decision: string; rule: string | null };
  approvalId?: string;
  /** Set by the approvals layer for its own statuses; derived from the outcome when absent. */
  status?: AuditStatus;
  /** A person's decision about this call (approvals layer). */
  decision?: NonNullable<AuditRecord["decision"]>;
  /** The agent run the call belongs to (src/agent/). */
  runId?: string;
  /**
   * The request's x-request-id; when absent, the request this code runs for (pin events, an
   * approval's outcome), or none (a cron run, a Durable Object's alarm).
   */
  requestId?: string;
  /** The alias a curated endpoint was called by (the record's `tool` is the real name). */
  calledAs?: string;
}

/**
 * The audit record of one call.
 *
 * @param rawArguments what the model sent: an object, or the JSON text OpenAI sends (pass the
 *   text rather than a parsed copy, so malformed arguments are logged as they came).
 * @example buffer.add(toAuditRecord(outcome, call.arguments, { keyId: principal.keyId, sessionId }));
 */
export function toAuditRecord(outcome: AuditableOutcome, rawArguments: unknown, meta: AuditMeta): AuditRecord {
  const canonical = canonicalJson(redactedArguments(rawArguments));
  const capped = capJson(canonical, MAX_ARGUMENT_BYTES);
  const status = meta.status ?? auditStatusOf(outcome, meta.approvalId !== undefined);
  const policy = meta.policy ?? outcome.policy ?? derivedPolicy(outcome);
  // One literal of fixed shape, the optional fields added after it only when present: a
  // conditional spread in the literal made every property after it a slow runtime define, which
  // showed as several us of this function's self time per call in the full app's profile.
  const record: AuditRecord = {
    at: meta.at ?? Date.now(),
    rid: newRid(),
    keyId: clip(meta.keyId),
    sessionId: clip(meta.sessionId),
    toolCallId: clip(outcome.callId),
    tool: clip(outcome.tool),
    toolset: outcome.toolset === undefined ? null : clip(outcome.toolset),
    arguments: capped.text,
    argumentsTruncated: capped.truncated,
    argumentsSha256: capped.truncated ? sha256Hex(canonical) : "",
    coercions:
      outcome.coercions.length === 0
        ? []
        : outcome.coercions.slice(0, MAX_RECORDED_COERCIONS).map((c) => ({ path: clip(c.path), from: clip(c.from), to: clip(c.to) })),
    coercionCount: outcome.coercions.length,
    policyDecision: policy === null ? null : policy.decision.slice(0, 64),
    policyRule: policy?.rule == null ? null : clip(policy.rule),
    approvalId: meta.approvalId === undefined ? null : clip(meta.approvalId),
    status,
    errorCode: outcome.errorCode ?? null,
    errorMessage: outcome.errorCode === undefined ? null : failureMessageOf(outcome.envelope),
    attempts: outcome.attempts,
    durationMs: Math.max(0, Math.round(outcome.durationMs)),
    resultChars: outcome.resultChars,
    truncated: outcome.truncated,
    requestId: requestIdOf(meta),
    credential: outcome.credential ?? null,
  };
  if (meta.runId !== undefined) record.runId = clip(meta.runId);
  if (meta.calledAs !== undefined) record.calledAs = clip(meta.calledAs);
  if (meta.decision !== undefined) {
    const { by, at, scope, reason } = meta.decision;
    record.decision = { by: by === null ? null : clip(by), at, scope, reason: reason === null ? null : reason.slice(0, MAX_REASON_CHARS) };
  }
  return record;
}

/**
 * Without a verdict from the policy layer, a block still says which mechanism refused: at stage
 * `policy` that is the request's `toolset` restriction, at `pre_hook` a pre-call hook.
 */
function derivedPolicy(outcome: AuditableOutcome): { decision: string; rule: string | null } | null {
  if (outcome.errorCode !== "PERMISSION_DENIED") return null;
  if (outcome.envelope?.stage === "policy") return { decision: "deny", rule: "request_toolset" };
  if (outcome.envelope?.stage === "pre_hook") return { decision: "deny", rule: "pre_call_hook" };
  return null;
}

function redactedArguments(raw: unknown): unknown {
  let value = raw;
  if (typeof raw === "string") {
    if (textHasTooManyValues(raw)) return UNWALKED_ARGUMENTS;
    try {
      value = JSON.parse(raw);
    } catch {
      // Malformed JSON from the model is worth keeping (it explains the INVALID_ARGUMENTS).
      return redactSecretsInText(raw);
    }
  }
  // Arguments past the parse stage's depth or value cap were refused for it: walking them here
  // to redact and sort would cost the seconds the cap saved (argument-shape.ts).
  if (typeof value === "object" && value !== null && shapeProblem(value) !== undefined) return UNWALKED_ARGUMENTS;
  return redactSecrets(value);
}

function requestIdOf(meta: AuditMeta): string | null {
  const id = meta.requestId ?? currentRequestId();
  return id === undefined ? null : id.slice(0, MAX_REQUEST_ID_CHARS);
}

function clip(text: string): string {
  return text.length <= MAX_ID_CHARS ? text : text.slice(0, MAX_ID_CHARS);
}

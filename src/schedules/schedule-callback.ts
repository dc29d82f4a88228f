/**
 * POSTs a firing's outcome to the schedule's callback URL, signed like every toolgate callback
 * (src/webhooks/verify-signature.ts, the `hmac` scheme): `X-Toolgate-Signature-256:
 * sha256=<hex HMAC(secret, "<t>." + body)>`, `X-Toolgate-Timestamp: <t>`, and
 * `X-Toolgate-Delivery: <run id>`, the same for every attempt, so a receiver drops duplicates.
 * The URL and each redirect pass the outbound guard; a refused URL is final.
 */
import type { RunSnapshot } from "../agent/run-object.ts";
import { runStub } from "../agent/run-stub.ts";
import { loadConfig } from "../config/config.ts";
import { fetchOutbound, OutboundUrlError } from "../net/outbound-url.ts";
import { signToolgate } from "../webhooks/verify-signature.ts";
import { callbackSecret } from "./schedule-spec.ts";
import type { ScheduleStore } from "./schedule-store.ts";
import type { FiringEntry, ScheduleRecord } from "./schedule-types.ts";

/** Callback attempts, spaced by the Schedule object's alarm: 30 s doubling. */
const CALLBACK_ATTEMPTS = 5;
const CALLBACK_BACKOFF_MS = 30_000;
/** One attempt's wait for the receiver. */
const CALLBACK_TIMEOUT_MS = 10_000;

/** What a callback receiver gets. */
export interface ScheduleCallbackBody {
  schedule_id: string;
  schedule_name: string;
  firing_at: string;
  late: boolean;
  run_id: string;
  status: string;
  answer: string | null;
  error: { code: string; message: string } | null;
}

export type CallbackAttempt = { kind: "delivered"; status: number } | { kind: "refused"; reason: string } | { kind: "failed"; reason: string };

const encoder = new TextEncoder();

/** One signed POST; never throws. */
export async function sendScheduleCallback(env: Env, schedule: ScheduleRecord, body: ScheduleCallbackBody): Promise<CallbackAttempt> {
  if (schedule.delivery.kind !== "webhook") return { kind: "refused", reason: "the schedule has no callback" };
  const secret = callbackSecret(env, schedule.delivery.secretName);
  if (secret === undefined) return { kind: "refused", reason: `${schedule.delivery.secretName} is no longer set, so the callback cannot be signed` };
  const bytes = encoder.encode(JSON.stringify(body));
  const headers = { "content-type": "application/json", "user-agent": "toolgate-schedules", ...(await signToolgate(secret, bytes, Date.now(), body.run_id)) };
  try {
    const init = { method: "POST", headers, body: bytes, signal: AbortSignal.timeout(CALLBACK_TIMEOUT_MS) };
    const response = await fetchOutbound(schedule.delivery.url, init, loadConfig(env).outboundAllow);
    await response.body?.cancel();
    return response.ok ? { kind: "delivered", status: response.status } : { kind: "failed", reason: `the callback URL answered ${response.status}` };
  } catch (error) {
    if (error instanceof OutboundUrlError) return { kind: "refused", reason: `callback URL refused by the outbound guard: ${error.message}` };
    return { kind: "failed", reason: `the callback could not be sent: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/**
 * Sends a schedule's callbacks that are due (one attempt each, from its alarm), with the run's
 * answer read from the run itself; a failure waits for a later alarm, up to CALLBACK_ATTEMPTS.
 */
export async function sendDueCallbacks(env: Env, store: ScheduleStore, record: ScheduleRecord): Promise<void> {
  const now = Date.now();
  const due = (await store.firings()).filter((e) => e.callback?.status === "pending" && (e.callback.nextAt ?? 0) <= now);
  for (const entry of due) {
    if (entry.runId === null || entry.callback === undefined) continue;
    const run = ((await runStub(env, entry.runId).snapshot()) as RunSnapshot | undefined)?.record;
    const attempt = await sendScheduleCallback(env, record, {
      schedule_id: record.id,
      schedule_name: record.name,
      firing_at: new Date(entry.at).toISOString(),
      late: entry.late,
      run_id: entry.runId,
      status: entry.runStatus ?? run?.status ?? "failed",
      answer: run?.answer ?? null,
      error: run?.error ?? null,
    });
    const attempts = entry.callback.attempts + 1;
    const callback: FiringEntry["callback"] =
      attempt.kind === "delivered"
        ? { status: "delivered", detail: `answered ${attempt.status}`, attempts, nextAt: null }
        : attempt.kind === "refused" || attempts >= CALLBACK_ATTEMPTS
          ? { status: attempt.kind === "refused" ? "refused" : "failed", detail: attempt.reason, attempts, nextAt: null }
          : { status: "pending", detail: attempt.reason, attempts, nextAt: Date.now() + CALLBACK_BACKOFF_MS * 2 ** (attempts - 1) };
    await store.save((await store.record()) ?? record, [{ ...entry, callback }]);
  }
}

/**
 * A schedule request checked beyond its shape, the same for POST /v1/schedules and the
 * `schedule` tool: the cron expression parses, the time zone exists, no two firings come closer
 * than SCHEDULE_MIN_INTERVAL_SECONDS, the callback URL passes the outbound guard and its secret
 * is set, the toolsets and the model exist. Every problem is one issue naming its field.
 */
import { resolveModel } from "../agent/model-config.ts";
import { runSettings } from "../agent/run-settings.ts";
import { loadConfig } from "../config/config.ts";
import type { RequestIssue } from "../http/request-failure.ts";
import { checkOutboundUrl } from "../net/outbound-url.ts";
import { type CustomToolsetLookup, resolveToolset } from "../toolsets/resolve.ts";
import { scheduleSettings } from "./schedule-settings.ts";
import { isTimeZone, parseCron, shortestGapSeconds } from "./schedule-timing.ts";
import type { OverlapPolicy, ScheduleDelivery, ScheduleSpec, ScheduleTrigger } from "./schedule-types.ts";

/**
 * The names a callback's signing secret may have: a secret the operator set for schedules
 * (`wrangler secret put SCHEDULE_SECRET_...`), never any other variable of the Worker.
 */
export const CALLBACK_SECRET_NAME = /^SCHEDULE_SECRET_[A-Z0-9_]{1,64}$/;

/** A schedule request as the API and the tool take it (snake_case, as on the wire). */
export interface ScheduleInput {
  name?: string | undefined;
  cron?: string | undefined;
  every_seconds?: number | undefined;
  timezone?: string | undefined;
  prompt: string;
  toolsets?: string[] | undefined;
  model?: string | undefined;
  max_turns?: number | undefined;
  overlap?: OverlapPolicy | undefined;
  callback?: { url: string; secret: string } | undefined;
}

/** The secret a callback is signed with, if it is set. */
export function callbackSecret(env: Env, name: string): string | undefined {
  if (!CALLBACK_SECRET_NAME.test(name)) return undefined;
  const value: unknown = Reflect.get(env, name);
  return typeof value === "string" && value !== "" ? value : undefined;
}

function triggerOf(input: ScheduleInput, issues: RequestIssue[]): ScheduleTrigger | undefined {
  if ((input.cron === undefined) === (input.every_seconds === undefined)) {
    issues.push({ path: "cron", message: 'give exactly one of `cron` (e.g. "0 9 * * 1-5") or `every_seconds` (e.g. 3600)' });
    return undefined;
  }
  return input.cron === undefined ? { kind: "interval", everySeconds: input.every_seconds ?? 0 } : { kind: "cron", cron: input.cron.trim() };
}

function deliveryOf(env: Env, input: ScheduleInput, issues: RequestIssue[]): ScheduleDelivery {
  if (input.callback === undefined) return { kind: "store" };
  const { url, secret } = input.callback;
  const check = checkOutboundUrl(url, loadConfig(env).outboundAllow);
  if (!check.ok) issues.push({ path: "callback.url", message: `refused by the outbound guard: ${check.reason}` });
  if (!CALLBACK_SECRET_NAME.test(secret))
    issues.push({
      path: "callback.secret",
      message: `must name a secret SCHEDULE_SECRET_<NAME> (capitals, digits, _), got ${JSON.stringify(secret.slice(0, 80))}`,
    });
  else if (callbackSecret(env, secret) === undefined)
    issues.push({ path: "callback.secret", message: `${secret} is not set; set it with \`wrangler secret put ${secret}\` first` });
  return { kind: "webhook", url, secretName: secret };
}

/** The spec, or every issue found with the request. */
export async function checkScheduleInput(
  env: Env,
  input: ScheduleInput,
  keyId: string,
  lookup: CustomToolsetLookup,
  now: number,
): Promise<{ ok: true; spec: ScheduleSpec } | { ok: false; issues: RequestIssue[] }> {
  const issues: RequestIssue[] = [];
  const timezone = input.timezone ?? "UTC";
  if (!isTimeZone(timezone)) issues.push({ path: "timezone", message: `'${timezone}' is not an IANA time zone (e.g. "Europe/Berlin", "UTC")` });
  const trigger = triggerOf(input, issues);
  if (trigger?.kind === "cron" && issues.length === 0) {
    const parsed = parseCron(trigger.cron, timezone);
    if (!parsed.ok) issues.push({ path: "cron", message: `not a cron expression: ${parsed.message}` });
    else if (parsed.cron.nextRun(new Date(now)) === null) issues.push({ path: "cron", message: "never fires again" });
  }
  if (trigger !== undefined && issues.length === 0) {
    const minimum = scheduleSettings(env).minIntervalSeconds;
    const gap = shortestGapSeconds(trigger, timezone, now);
    if (gap < minimum)
      issues.push({
        path: trigger.kind === "cron" ? "cron" : "every_seconds",
        message: `fires ${gap} s apart at its closest; schedules may fire at most once every ${minimum} s (SCHEDULE_MIN_INTERVAL_SECONDS)`,
      });
  }
  const delivery = deliveryOf(env, input, issues);
  for (const [i, toolset] of (input.toolsets ?? []).entries())
    if ((await resolveToolset(toolset, lookup)) === undefined)
      issues.push({ path: `toolsets.${i}`, message: `unknown toolset '${toolset}' (GET /v1/toolsets)` });
  const model = resolveModel(env, input.model, keyId);
  if ("kind" in model) issues.push({ path: "model", message: `the run could not start: ${model.kind}` });
  const ceiling = runSettings(env).maxTurns;
  if (input.max_turns !== undefined && input.max_turns > ceiling)
    issues.push({ path: "max_turns", message: `at most ${ceiling} (RUN_MAX_TURNS), got ${input.max_turns}` });
  if (issues.length > 0 || trigger === undefined) return { ok: false, issues };
  return {
    ok: true,
    spec: {
      name: input.name ?? input.prompt.slice(0, 60),
      trigger,
      timezone,
      prompt: input.prompt,
      ...(input.toolsets === undefined ? {} : { toolsets: input.toolsets }),
      ...(input.model === undefined ? {} : { model: input.model }),
      ...(input.max_turns === undefined ? {} : { maxTurns: input.max_turns }),
      delivery,
      overlap: input.overlap ?? "skip",
    },
  };
}

/**
 * The stages the bench Worker's "core" and "gateway" apps run without, so those apps measure
 * the pipeline alone: no key lookup, no rate limiter round trip, no audit records. The "full"
 * app (`createApp()`, as shipped) is the reference these are compared with, and it runs the
 * real ones against Miniflare's local Durable Object, queue and D1.
 */
// This module runs in workerd; Env, through the stage types, is a Worker global.
/// <reference path="../../worker-configuration.d.ts" />
import type { MiddlewareHandler } from "hono";
import { buildAuditRecords, type RecordBatch } from "../../src/audit/record-batch.ts";
import { ADMIN_TOKEN_PRINCIPAL } from "../../src/auth/admin-token.ts";
import type { AppEnv } from "../../src/http/types.ts";
import type { chargeCalls } from "../../src/rate-limit/charge-calls.ts";
import { observeCalls } from "../../src/tracing/observe-calls.ts";

/** Authenticates every request as the admin token, without reading any header or storage. */
export const setAdminPrincipal: MiddlewareHandler<AppEnv> = async function setAdminPrincipal(c, next) {
  c.set("principal", ADMIN_TOKEN_PRINCIPAL);
  await next();
};

/** Lets every call run, as the limiter would under limits the bench never reaches. */
export const noCharge: typeof chargeCalls = async function noCharge(_env, _principal, tools) {
  return tools.map(() => undefined);
};

/** Records nothing. */
export const noRecord: RecordBatch = function noRecord() {};

/**
 * Builds every call's audit record (redaction, canonical JSON, hash), sends none and writes no
 * telemetry: against observeOnly, what the per-call log line and span cost.
 */
export const buildRecordsOnly: RecordBatch = function buildRecordsOnly(_env, _waitUntil, calls, meta) {
  buildAuditRecords(calls, meta);
};

/**
 * The audit stage less the audit: every call's record is built for its log line and span
 * (src/tracing/observe-calls.ts, as shipped) and none is sent. "Without audit" keeps the
 * telemetry every call pays in production; dropping it too made those figures easier than their name.
 */
export const observeOnly: RecordBatch = function observeOnly(env, waitUntil, calls, meta) {
  observeCalls(env, waitUntil, buildAuditRecords(calls, meta));
};

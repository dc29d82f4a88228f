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
 * Builds every call's audit record (redaction, canonical JSON, hash) and sends none: with the
 * full app, the difference to the real stage is what the queue, its consumer and D1 cost.
 */
export const buildRecordsOnly: RecordBatch = function buildRecordsOnly(_env, _waitUntil, calls, meta) {
  buildAuditRecords(calls, meta);
};

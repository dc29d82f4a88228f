/**
 * The /v1 body limit (MAX_BODY_BYTES). A framed body is judged by its Content-Length alone, as
 * Hono's bodyLimit does too, but without first creating `Request.body`: making that stream showed
 * in every call's profile, and the route reads the body without it. A body without one (chunked)
 * is counted as it arrives and refused as soon as it passes the limit; one within it is handed on
 * as the request's body, already read. A webhook delivery counts its own bytes instead
 * (src/webhooks/accept-delivery.ts), so an oversized one is recorded as well as refused.
 */
import type { Context } from "hono";
import { loadConfig } from "../config/config.ts";
import { framedLength, readRawBody } from "./read-raw-body.ts";
import { failureResponse } from "./request-failure.ts";

/**
 * The 413 for a body over the limit, or undefined when the request may go on. Synchronous for a
 * framed body (nearly every call), so the common case adds no promise.
 */
export function refuseOversizedBody(c: Context): Response | undefined | Promise<Response | undefined> {
  const { maxBodyBytes } = loadConfig(c.env);
  const declared = framedLength(c.req.raw);
  if (declared !== undefined) return declared > maxBodyBytes ? failureResponse(c, { kind: "payload_too_large", limitBytes: maxBodyBytes }) : undefined;
  return c.req.raw.body === null ? undefined : countChunkedBody(c, maxBodyBytes);
}

async function countChunkedBody(c: Context, maxBodyBytes: number): Promise<Response | undefined> {
  const read = await readRawBody(c.req.raw, maxBodyBytes);
  if (!read.ok) return failureResponse(c, { kind: "payload_too_large", limitBytes: maxBodyBytes });
  c.req.raw = new Request(c.req.raw, { body: read.bytes });
  return undefined;
}

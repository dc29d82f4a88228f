/**
 * A JSON request body read and checked against its zod schema inside the route, for the route
 * every tool call goes through (POST /v1/tool-calls). `OpenAPIHono.openapi()` puts two middleware
 * layers in front of such a route, a media-type gate and an async zod validator, and in the core
 * pipeline's profile those layers, their promises and `safeParseAsync` cost more than the body's
 * own parse. The route documents itself with `registerPath` instead and calls this, which answers
 * exactly as those layers did:
 * - a Content-Type that is not JSON, or none with a non-empty body: 415;
 * - a body that is not JSON: 400 "Malformed JSON in request body";
 * - no Content-Type and no body: the schema judges `{}`;
 * - a body the schema refuses: whatever `onInvalid` (the route's validation hook) answers.
 */

import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { failureResponse } from "./request-failure.ts";

/** @hono/zod-openapi's test of a request's Content-Type against a declared `application/json`. */
const JSON_REQUEST = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;

export type JsonBody<T> = { ok: true; body: T } | { ok: false; response: Response };

/** How a route answers a body its schema refused: given zod's issues and the value judged. */
export type OnInvalidBody = (issues: readonly z.core.$ZodIssue[], sent: unknown, c: Context) => Response;

/**
 * The request's body as `schema`'s output, or the response that refuses it.
 *
 * @example
 * const read = await readJsonBody(c, ToolCallsBody, invalidBody);
 * if (!read.ok) return read.response;
 */
export async function readJsonBody<S extends z.ZodType>(c: Context, schema: S, onInvalid: OnInvalidBody): Promise<JsonBody<z.output<S>>> {
  const contentType = c.req.header("content-type");
  if (contentType !== undefined && !JSON_REQUEST.test(contentType))
    return { ok: false, response: failureResponse(c, { kind: "unsupported_media_type", received: contentType }) };
  let value: unknown = {};
  try {
    const text = await c.req.text();
    if (contentType !== undefined) value = JSON.parse(text);
    else if (text !== "") return { ok: false, response: failureResponse(c, { kind: "unsupported_media_type", received: undefined }) };
  } catch {
    return { ok: false, response: failureResponse(c, { kind: "malformed_body", detail: "Malformed JSON in request body" }) };
  }
  // Synchronous: the schema has no async refinements, and the async parse costs twice as much.
  const result = schema.safeParse(value);
  return result.success ? { ok: true, body: result.data } : { ok: false, response: onInvalid(result.error.issues, value, c) };
}

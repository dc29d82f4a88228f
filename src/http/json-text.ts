/**
 * A JSON response whose body is already serialised text, typed as the route's schema so an
 * OpenAPI route accepts it (c.body gives an untyped Response, which typed handlers refuse).
 */
import type { Context, TypedResponse } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { JSONParsed } from "hono/utils/types";

/**
 * Sends `text` as application/json, typed as a `T` body. For bodies assembled from cached JSON
 * pieces, where c.json would parse nothing but re-serialise everything.
 *
 * @example
 * return jsonText<ToolList>(c, `{"format":"openai","toolset":null,"tools":${cached}}`, 200);
 */
export function jsonText<T, S extends ContentfulStatusCode = 200>(c: Context, text: string, status: S): Response & TypedResponse<JSONParsed<T>, S, "json"> {
  const response: Response = c.body(text, status, { "content-type": "application/json" });
  // Sound as far as the caller's promise goes: `text` is what JSON.stringify of a `T` would give.
  // TypedResponse exists only in types, so the cast changes nothing the client receives.
  return response as Response & TypedResponse<JSONParsed<T>, S, "json">;
}

/**
 * An operation's request body as the tool's `body` argument. Four media types can be written
 * from a model's JSON arguments: JSON itself, form fields, multipart fields and plain text.
 * Anything else (binary uploads, XML, `*` wildcards) cannot, so an operation that requires
 * such a body is skipped, and an optional one is offered without it; either is a problem line.
 */

import { isPlainRecord } from "../arguments/coerce-scalars.ts";
import type { InputSchemaWriter } from "./input-schema-writer.ts";
import { cut, MAX_SCHEMA_DESCRIPTION_CHARS } from "./input-schema-writer.ts";
import type { OperationBody } from "./operation.ts";
import { UNRESOLVED_REF } from "./unresolved-ref.ts";

type ContentType = OperationBody["contentType"];

/** In order of preference when a body offers several: JSON keeps types, forms keep fields, text keeps nothing. */
const SUPPORTED: readonly ContentType[] = ["application/json", "application/x-www-form-urlencoded", "multipart/form-data", "text/plain"];

export type ConvertedBody =
  | { body?: undefined; dropped?: string }
  | { body: OperationBody; schema: Record<string, unknown>; dropped?: undefined }
  | { problem: string };

/** The body of one operation (already resolved), when it has one. */
export function convertBody(requestBody: unknown, writer: InputSchemaWriter): ConvertedBody {
  if (requestBody === undefined) return {};
  if (typeof requestBody !== "object" || requestBody === null) return { problem: "its requestBody is not an object" };
  const record = requestBody as Record<string, unknown>;
  if (typeof record[UNRESOLVED_REF] === "string") return { problem: record[UNRESOLVED_REF] as string };
  const required = record.required === true;
  const content = isPlainRecord(record.content) ? record.content : {};
  // Media type keys may carry parameters (`application/json; charset=utf-8`) and any case (RFC 9110 §8.3.1).
  const offered = new Map<string, unknown>();
  for (const [key, media] of Object.entries(content)) offered.set(key.split(";")[0]?.trim().toLowerCase() ?? "", media);
  const contentType = SUPPORTED.find((type) => offered.has(type));
  if (contentType === undefined) {
    const listed = [...offered.keys()].slice(0, 5).join(", ") || "none";
    const why = `its request body's media types (${listed}) are none that toolgate writes (${SUPPORTED.join(", ")})`;
    return required ? { problem: why } : { dropped: `optional request body left out: ${why}` };
  }
  const media = offered.get(contentType);
  const source = isPlainRecord(media) ? media.schema : undefined;
  const written = writer.schema(source ?? (contentType === "text/plain" ? { type: "string" } : {}), 3);
  if (writer.problem !== undefined) return { problem: `request body: ${writer.problem}` };
  const schema: Record<string, unknown> =
    typeof written === "object" && written !== null && !Array.isArray(written) ? (written as Record<string, unknown>) : {};
  if (schema.description === undefined && typeof record.description === "string" && record.description !== "") {
    schema.description = cut(record.description, MAX_SCHEMA_DESCRIPTION_CHARS);
  }
  return { body: { contentType, required }, schema };
}

/**
 * What `POST /v1/tools/{name}/call` answers, as OpenAPI components: the route's own entry
 * (a template over every tool) and each tool's own operation in the per-key document
 * (tool-operations.ts) point at these by `$ref`, so 500 operations do not repeat them.
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { once } from "../../bundle/once.ts";
import type { ErrorEnvelope } from "../../errors/error-envelope.ts";
import type { ErrorCode } from "../../errors/tool-failure.ts";
import { ERROR_CODE_STATUS } from "../../formats/outcome-wire.ts";
import { errorBodySchema, jsonSchemaObject } from "../schemas.ts";
import type { AppEnv } from "../types.ts";

/** Request headers the route reads; response headers it sets. */
export const SESSION_HEADER = "x-toolgate-session";
export const CALL_ID_HEADER = "x-toolgate-call-id";
/** The security scheme every /v1 key is: `Authorization: Bearer <key>`. */
export const BEARER_SCHEME = "bearerAuth";

const ERROR_CODES = Object.keys(ERROR_CODE_STATUS) as [ErrorCode, ...ErrorCode[]];
/** `400 INVALID_ARGUMENTS, 403 PERMISSION_DENIED, ...`: every failing code's status, from the one record. */
const FAILURE_STATUSES = ERROR_CODES.filter((code) => ERROR_CODE_STATUS[code] >= 400)
  .sort((a, b) => ERROR_CODE_STATUS[a] - ERROR_CODE_STATUS[b])
  .map((code) => `${ERROR_CODE_STATUS[code]} ${code}`)
  .join(", ");

// `satisfies`: every field of the envelope envelope.ts builds is documented, and nothing else, so
// a field added to ErrorEnvelope does not compile until the document says it. Built at first use:
// only the document's app registers it (mountCallToolRoutes), and the serving app that imports this
// module is built by a cold isolate's first request (issue 33).
const toolErrorEnvelopeSchema = once(() =>
  z
    .object({
      error: z.string(),
      error_code: z.enum(ERROR_CODES),
      stage: z.string(),
      suggestion: z.string(),
      retryable: z.boolean(),
      retry_after_ms: z.number().int().optional(),
      issues: z.array(z.object({ path: z.string(), message: z.string(), expected: z.string().optional(), received: z.string().optional() })).optional(),
      approval: z.object({ id: z.string(), expires_at: z.string(), url: z.string() }).optional(),
      connection: z
        .object({ server: z.string(), url: z.string().nullable(), expires_at: z.string().nullable(), elicitation_id: z.string().optional() })
        .optional(),
    } satisfies Record<keyof ErrorEnvelope, z.ZodType>)
    .openapi("ToolErrorEnvelope", { description: "How a call failed, as the model reads it (docs/errors.md lists every code)." }),
);

/** The names of the shared response components, as `$ref`s. */
export const TOOL_CALL_RESPONSE_REFS = {
  "200": { $ref: "#/components/responses/ToolCallResult" },
  "202": { $ref: "#/components/responses/ToolCallPending" },
  "401": { $ref: "#/components/responses/ToolCallRequestError" },
  "413": { $ref: "#/components/responses/ToolCallRequestError" },
  "415": { $ref: "#/components/responses/ToolCallRequestError" },
  "4XX": { $ref: "#/components/responses/ToolCallFailed" },
  "5XX": { $ref: "#/components/responses/ToolCallFailed" },
} as const;

const session = (what: string) => ({ description: `The session the call ran in: ${what}.`, schema: { type: "string" as const } });

/**
 * Registers the components and the route's template entry in `app`'s OpenAPI registry. The
 * template is what the public document shows; a key's document has one operation per tool instead.
 */
export function documentToolCall(app: OpenAPIHono<AppEnv>): void {
  const registry = app.openAPIRegistry;
  registry.register("ToolErrorEnvelope", toolErrorEnvelopeSchema());
  registry.register("RequestError", errorBodySchema());
  registry.registerComponent("securitySchemes", BEARER_SCHEME, {
    type: "http",
    scheme: "bearer",
    description: "An API key (POST /v1/keys) or the ADMIN_TOKEN.",
  });
  const envelope = { $ref: "#/components/schemas/ToolErrorEnvelope" };
  const headers = {
    "X-Toolgate-Session": session("the one sent, or a new one"),
    "X-Toolgate-Call-Id": { description: "The call's id (in the audit log): the one sent, or a new one.", schema: { type: "string" as const } },
  };
  registry.registerComponent("responses", "ToolCallResult", {
    description: "The tool's result: JSON when the tool returned data or JSON text, plain text otherwise.",
    headers,
    content: { "application/json": { schema: {} }, "text/plain": { schema: { type: "string" } } },
  });
  registry.registerComponent("responses", "ToolCallPending", {
    description: "The call needs a person's approval and has not run (APPROVAL_REQUIRED); `approval` says where it is decided.",
    headers,
    content: { "application/json": { schema: envelope } },
  });
  registry.registerComponent("responses", "ToolCallFailed", {
    description: `The call failed: the status follows \`error_code\` (${FAILURE_STATUSES}); the body is the envelope the model reads.`,
    headers,
    content: { "application/json": { schema: envelope } },
  });
  registry.registerComponent("responses", "ToolCallRequestError", {
    description: "The request itself was refused before any call: no valid key (401), a body over MAX_BODY_BYTES (413), or a body that is not JSON (415).",
    content: { "application/json": { schema: { $ref: "#/components/schemas/RequestError" } } },
  });
  registry.registerPath({
    method: "post",
    path: "/v1/tools/{name}/call",
    summary: "Call one tool",
    security: [{ [BEARER_SCHEME]: [] }],
    description:
      "The body is the tool's arguments object. The call goes through the same pipeline as a batch of one in POST /v1/tool-calls (policy, approvals, rate limits, audit). With a key, /openapi.json lists one operation per tool the key may use, each with the tool's own request schema.",
    request: {
      params: z.object({ name: z.string().openapi({ example: "echo" }) }),
      headers: z.object({
        [SESSION_HEADER]: z
          .string()
          .optional()
          .openapi({ description: "Groups calls of one conversation (1-128 of letters, digits, '.', '_', ':', '-'); generated when absent." }),
        [CALL_ID_HEADER]: z
          .string()
          .optional()
          .openapi({ description: "The call's id, as a model's tool call id: sending the same id again in the session returns a held call's outcome." }),
      }),
      body: { required: false, content: { "application/json": { schema: jsonSchemaObject() } } },
    },
    responses: TOOL_CALL_RESPONSE_REFS,
  });
}

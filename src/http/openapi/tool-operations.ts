/**
 * Each tool's own operation in a key's OpenAPI document, `POST /v1/tools/{its name}/call`, as
 * JSON text cached by entry, like formats/definitions-json.ts: a registered entry never changes
 * (re-registration makes a new object), so a 500-tool document is joined from cached pieces
 * instead of serialised whole per request. Tools with dynamic overrides are built fresh.
 *
 * The `operationId` is the tool's name: OpenAPI tool servers (Open WebUI, GPT Actions) name the
 * function the model sees after it, and take only operations that have one, so the gateway's
 * other routes never become tools.
 */
import { withOverrides } from "../../registry/definitions.ts";
import type { ToolEntry } from "../../registry/types.ts";
import { placeSchema } from "./place-schema.ts";
import { BEARER_SCHEME, TOOL_CALL_RESPONSE_REFS } from "./tool-call-docs.ts";

/** The tag every tool operation carries, so viewers group them apart from the gateway's routes. */
export const TOOLS_TAG = "tools";

/** One tool's piece: a `"path":{...}` member of `paths`, and members of `components.schemas` (or ""). */
export interface ToolOperationJson {
  path: string;
  components: string;
}

const pieces = new WeakMap<ToolEntry, ToolOperationJson>();
const RESPONSES = JSON.stringify(TOOL_CALL_RESPONSE_REFS);
const SECURITY = JSON.stringify([{ [BEARER_SCHEME]: [] }]);

function build(entry: ToolEntry, env: Env): ToolOperationJson {
  const definition = withOverrides(entry, env);
  const parameters = definition.parameters;
  const placed = placeSchema(entry.name, parameters, JSON.stringify(parameters));
  const required = Array.isArray(parameters.required) && parameters.required.length > 0;
  const requestBody = { required, content: { "application/json": { schema: placed.schema } } };
  const head = JSON.stringify({ operationId: entry.name, summary: entry.name, description: definition.description, tags: [TOOLS_TAG] });
  // The shared parts are serialised once for every tool and spliced in.
  const post = `${head.slice(0, -1)},"security":${SECURITY},"requestBody":${JSON.stringify(requestBody)},"responses":${RESPONSES}}`;
  const components = Object.entries(placed.components)
    .map(([name, schema]) => `${JSON.stringify(name)}:${JSON.stringify(schema)}`)
    .join(",");
  return { path: `${JSON.stringify(`/v1/tools/${entry.name}/call`)}:{"post":${post}}`, components };
}

/** The operation of `entry` as JSON text pieces, cached unless its definition is decided per request. */
export function toolOperationJson(entry: ToolEntry, env: Env): ToolOperationJson {
  if (entry.dynamicSchemaOverrides !== undefined) return build(entry, env);
  let piece = pieces.get(entry);
  if (piece === undefined) {
    piece = build(entry, env);
    pieces.set(entry, piece);
  }
  return piece;
}

/**
 * `GET /openapi.json`: the OpenAPI 3.1 document. Without a key it documents the gateway's
 * routes; with one (`Authorization: Bearer <key>`) it also has one operation per tool that key
 * may use and that is available, `POST /v1/tools/{name}/call` with the tool's own request
 * schema, so an OpenAPI tool server or client generator sees each tool as an operation.
 *
 * The routes' part is generated from their zod schemas once per isolate (the generator walks
 * every route, far too slow per request); the tools' part is joined from per-tool text cached by
 * entry (tool-operations.ts), so a 500-tool document costs string joins, not serialisation.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { GatewayParts } from "../../compose.ts";
import { availableEntries } from "../../registry/definitions.ts";
import { allowedToolNames } from "../allowed-tool-names.ts";
import { failureResponse } from "../request-failure.ts";
import { requestOrigin } from "../request-origin.ts";
import type { AppEnv } from "../types.ts";
import { TOOLS_TAG, type ToolOperationJson, toolOperationJson } from "./tool-operations.ts";

const INFO = {
  title: "toolgate",
  version: "0.1.0",
  description:
    "A tool gateway for AI agents on Cloudflare Workers. Tool definitions in OpenAI, Anthropic and MCP shapes; batches of tool calls run through one pipeline. Fetched with a key, this document also has one operation per tool that key may use: POST /v1/tools/{name}/call with the tool's own schema.",
};

const TOOLS_TAG_JSON = JSON.stringify({
  name: TOOLS_TAG,
  description: "One operation per tool the calling key may use: the body is the tool's arguments, the answer its result.",
});

/** The routes' document as text pieces around the places a key's tools go. */
interface BaseDocument {
  /** `{"openapi":...,"info":{...}` */
  head: string;
  /** The members of `paths`, without braces. */
  paths: string;
  /** The members of `components.schemas`, without braces. */
  schemas: string;
  /** The other members of `components` (responses, security schemes), without braces, or "". */
  components: string;
  /** The members of the document after `components` (`tags`, `webhooks`), or "". */
  tail: string;
}

const inner = (value: unknown): string => JSON.stringify(value ?? {}).slice(1, -1);

function baseDocument(app: OpenAPIHono<AppEnv>): BaseDocument {
  const { paths, components, tags, webhooks } = app.getOpenAPI31Document({ openapi: "3.1.0", info: INFO });
  const { schemas, ...rest } = components ?? {};
  const tailMembers = { ...(webhooks === undefined ? {} : { webhooks }) };
  return {
    head: `{"openapi":"3.1.0","info":${JSON.stringify(INFO)}`,
    paths: inner(paths),
    schemas: inner(schemas),
    components: inner(rest),
    tail: `,"tags":[${[...(tags ?? []).map((tag) => JSON.stringify(tag)), TOOLS_TAG_JSON].join(",")}]${inner(tailMembers) === "" ? "" : `,${inner(tailMembers)}`}`,
  };
}

/** Documents most recently assembled, for keys (and origins, and `only`) that see the same tools. */
const RECENT_DOCUMENTS = 4;

interface Assembled {
  origin: string;
  only: boolean;
  tools: readonly ToolOperationJson[];
  body: string;
}

/** Same pieces: the cached ones by identity, those built per request (dynamic overrides) by text. */
function samePieces(a: readonly ToolOperationJson[], b: readonly ToolOperationJson[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as ToolOperationJson;
    const y = b[i] as ToolOperationJson;
    if (x !== y && (x.path !== y.path || x.components !== y.components)) return false;
  }
  return true;
}

/** Joins non-empty JSON member lists with commas. */
const members = (...parts: string[]): string => parts.filter((part) => part !== "").join(",");

/**
 * The handler of `GET /openapi.json`, documenting the app `documented` builds (every route
 * group mounted: most are imported at first use, route-groups.ts), and checking a key with
 * `bearer` (the app's authentication) when one is sent.
 */
export function openApiDocument(documented: () => Promise<OpenAPIHono<AppEnv>>, parts: GatewayParts, bearer: MiddlewareHandler<AppEnv>) {
  let base: Promise<BaseDocument> | undefined;
  // Keys with the same tools share a document: joining 500 pieces into a new 760 KB string per
  // request cost more Worker CPU than answering one already joined (and flattened) does.
  const recent: Assembled[] = [];
  return async function openApiDocument(c: Context<AppEnv>): Promise<Response> {
    if (base === undefined) {
      base = documented().then(baseDocument);
      // A document that failed to build is built again by the next request, not remembered.
      base.catch(() => (base = undefined));
    }
    const { head, paths, schemas, components, tail } = await base;
    const origin = JSON.stringify(requestOrigin(c.req.url));
    const servers = `"servers":[{"url":${origin}}]`;
    const authorization = c.req.header("authorization");
    c.header("vary", "authorization");
    if (authorization === undefined || authorization.trim() === "") {
      return c.body(`${head},${servers},"paths":{${paths}},"components":{${members(`"schemas":{${schemas}}`, components)}}${tail}}`, 200, {
        "content-type": "application/json",
      });
    }
    // A key that is sent is checked like on /v1: a wrong one is told so, not silently ignored.
    let authenticated = false;
    const refused = await bearer(c, async () => {
      authenticated = true;
    });
    if (!authenticated) return refused ?? failureResponse(c, { kind: "unauthenticated", reason: "unknown_key" });
    await parts.pipeline.catalog.open(c.env);
    const allowed = await allowedToolNames(c, c.req.query("toolset"));
    if ("unknownToolset" in allowed) return failureResponse(c, { kind: "unknown_toolset", name: allowed.unknownToolset });
    const entries = await availableEntries(allowed, c.env);
    const tools = entries.map((entry) => toolOperationJson(entry, c.env));
    // `only=tools`: just the tools' operations, for a tool server that would offer every operation.
    const only = c.req.query("only") === "tools";
    c.header("cache-control", "private, no-store");
    let assembled = recent.find((doc) => doc.origin === origin && doc.only === only && samePieces(doc.tools, tools));
    if (assembled === undefined) {
      const toolPaths = tools.map((tool) => tool.path).join(",");
      const toolSchemas = tools
        .map((tool) => tool.components)
        .filter((text) => text !== "")
        .join(",");
      const allPaths = only ? toolPaths : members(paths, toolPaths);
      const body = `${head},${servers},"paths":{${allPaths}},"components":{${members(`"schemas":{${members(schemas, toolSchemas)}}`, components)}}${tail}}`;
      assembled = { origin, only, tools, body };
      recent.unshift(assembled);
      recent.length = Math.min(recent.length, RECENT_DOCUMENTS);
    }
    return c.body(assembled.body, 200, { "content-type": "application/json" });
  };
}

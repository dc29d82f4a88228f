/**
 * Every route group of the app, in the order the OpenAPI document lists them. A cold isolate
 * pays for every module its entry imports, and a tool gateway sees sporadic traffic, so most
 * groups are lazy: their modules (and the zod schemas, pages and clients they build at import)
 * are imported on the first request under one of their prefixes (lazy-route-groups.ts). Only
 * the doors a call comes through are eager: /mcp, /v1/tool-calls and /v1/tools/{name}/call.
 *
 * Adding a group is adding a row. A lazy group's `prefixes` must cover every route it serves:
 * test/http/route-groups.test.ts loads each group and checks that they do.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { GatewayParts } from "../compose.ts";
import { mcpRoutes } from "../mcp/http/mcp-routes.ts";
import { mountCallToolRoutes } from "./routes/call-tool.ts";
import { mountMetaRoutes } from "./routes/meta.ts";
import { mountToolCallsRoutes } from "./routes/tool-calls.ts";
import type { AppEnv } from "./types.ts";

/** What a group is built with: the isolate's parts and the app's options (mcp-routes.ts takes `authenticate`). */
export interface GroupContext {
  parts: GatewayParts;
  options: Parameters<typeof mcpRoutes>[1];
  /**
   * Set when the groups are mounted for the OpenAPI document (app.ts). The serving app's own
   * OpenAPI registry is never read, so a group may leave out what only documents it there: the
   * serving app is built by a cold isolate's first request (issue 33).
   */
  documenting?: boolean;
}

/** Adds a group's routes to `app`. */
export type MountGroup = (app: OpenAPIHono<AppEnv>, context: GroupContext) => void;

export type RouteGroup =
  | { name: string; mount: MountGroup }
  | {
      name: string;
      /** Path prefixes (a whole segment: `/v1/keys` is `/v1/keys` and `/v1/keys/...`) of every route in the group. */
      prefixes: readonly string[];
      /** Imports the group's modules; called once per isolate, at the first request under a prefix. */
      load: () => Promise<MountGroup>;
    };

export const ROUTE_GROUPS: readonly RouteGroup[] = [
  { name: "meta", mount: mountMetaRoutes },
  {
    name: "keys",
    prefixes: ["/v1/keys"],
    load: async () => {
      const { keysRoutes } = await import("../auth/keys-routes.ts");
      return (app) => app.route("/", keysRoutes);
    },
  },
  {
    name: "health",
    prefixes: ["/v1/health"],
    load: async () => {
      const { healthRoutes } = await import("./routes/health.ts");
      return (app) => app.route("/", healthRoutes);
    },
  },
  {
    name: "metrics",
    prefixes: ["/metrics"],
    load: async () => {
      const { metricsRoutes } = await import("../metrics/metrics-routes.ts");
      return (app) => app.route("/", metricsRoutes);
    },
  },
  {
    name: "audit",
    prefixes: ["/v1/audit"],
    load: async () => {
      const { auditRoutes } = await import("../audit/audit-routes.ts");
      return (app) => app.route("/", auditRoutes);
    },
  },
  {
    name: "tools",
    prefixes: ["/v1/tools"],
    load: async () => {
      const { toolsRoutes } = await import("./routes/tools.ts");
      return (app) => app.route("/", toolsRoutes);
    },
  },
  {
    name: "toolsets",
    prefixes: ["/v1/toolsets"],
    load: async () => {
      const { toolsetsRoutes } = await import("./routes/toolsets.ts");
      return (app) => app.route("/", toolsetsRoutes);
    },
  },
  { name: "tool-calls", mount: (app, { parts, documenting = false }) => mountToolCallsRoutes(app, parts, { documented: documenting }) },
  { name: "call-tool", mount: (app, { parts, documenting = false }) => mountCallToolRoutes(app, parts, { documented: documenting }) },
  {
    name: "approvals",
    prefixes: ["/v1/approvals"],
    load: async () => {
      const { approvalsRoutes } = await import("../approvals/approvals-routes.ts");
      return (app) => app.route("/", approvalsRoutes);
    },
  },
  {
    name: "memory",
    prefixes: ["/v1/memory"],
    load: async () => {
      const { memoryRoutes } = await import("../memory/memory-routes.ts");
      return (app) => app.route("/", memoryRoutes);
    },
  },
  {
    name: "runs",
    prefixes: ["/v1/runs"],
    load: async () => {
      const { runsRoutes } = await import("../agent/runs-routes.ts");
      return (app) => app.route("/", runsRoutes);
    },
  },
  {
    name: "schedules",
    prefixes: ["/v1/schedules"],
    load: async () => {
      const { schedulesRoutes } = await import("../schedules/schedules-routes.ts");
      return (app) => app.route("/", schedulesRoutes);
    },
  },
  {
    name: "chat-completions",
    prefixes: ["/v1/chat"],
    load: async () => {
      const { chatCompletionsRoutes } = await import("../agent/chat-completions-routes.ts");
      return (app) => app.route("/", chatCompletionsRoutes);
    },
  },
  {
    // The approvals web page: HTML, its own session cookie and error pages (not part of /v1).
    name: "approvals-page",
    prefixes: ["/approvals"],
    load: async () => {
      const { approvalsPageRoutes } = await import("../approvals-page/approvals-page-routes.tsx");
      return (app) => app.route("/", approvalsPageRoutes());
    },
  },
  {
    // The admin console: the same machinery, every change through the API's own routes.
    name: "admin",
    prefixes: ["/admin"],
    load: async () => {
      const { adminRoutes } = await import("../admin/admin-routes.tsx");
      return (app, { parts }) => app.route("/", adminRoutes(parts));
    },
  },
  {
    // The chat page: talks to the agent through the runs API as the signed-in key.
    name: "chat-page",
    prefixes: ["/chat"],
    load: async () => {
      const { chatPageRoutes } = await import("../chat-page/chat-page-routes.tsx");
      return (app) => app.route("/", chatPageRoutes());
    },
  },
  {
    name: "webhooks",
    prefixes: ["/v1/hooks"],
    load: async () => {
      const { webhooksRoutes } = await import("../webhooks/webhooks-routes.ts");
      return (app) => app.route("/", webhooksRoutes);
    },
  },
  { name: "mcp", mount: (app, { parts, options }) => app.route("/", mcpRoutes(parts, options)) },
  {
    name: "mcp-servers",
    prefixes: ["/v1/mcp-servers"],
    load: async () => {
      const { mcpServersRoutes } = await import("../mcp/federation/mcp-servers-routes.ts");
      return (app) => app.route("/", mcpServersRoutes);
    },
  },
  {
    name: "openapi-sources",
    prefixes: ["/v1/openapi-sources"],
    load: async () => {
      const { openApiSourcesRoutes } = await import("../openapi-sources/openapi-sources-routes.ts");
      return (app) => app.route("/", openApiSourcesRoutes);
    },
  },
  {
    name: "mcp-sign-in",
    prefixes: ["/mcp-oauth"],
    load: async () => {
      const { signInRoutes } = await import("../mcp/federation/sign-in-routes.ts");
      return (app) => app.route("/", signInRoutes);
    },
  },
  {
    name: "jwks",
    prefixes: ["/.well-known/jwks.json"],
    load: async () => {
      const { jwksRoutes } = await import("../identity/jwks-routes.ts");
      return (app) => app.route("/", jwksRoutes);
    },
  },
  {
    name: "connections",
    prefixes: ["/v1/connections"],
    load: async () => {
      const { connectionsRoutes } = await import("../mcp/federation/connections/connections-routes.ts");
      return (app) => app.route("/", connectionsRoutes);
    },
  },
  {
    // OAuth 2.1 sign-in for /mcp: discovery, registration, tokens and the consent page (not /v1).
    name: "oauth",
    prefixes: ["/oauth", "/.well-known/oauth-authorization-server", "/.well-known/oauth-protected-resource"],
    load: async () => {
      const { oauthRoutes } = await import("../oauth/oauth-routes.ts");
      return (app) => app.route("/", oauthRoutes());
    },
  },
  {
    name: "docs",
    prefixes: ["/docs"],
    load: async () => {
      const { docsPageRoutes } = await import("./docs/docs-page.ts");
      return (app) => app.route("/", docsPageRoutes);
    },
  },
];

/**
 * A loopback MCP server that requires OAuth, for the tests of toolgate as an OAuth client
 * (Node side). Built from the SDK's server-side auth helpers: `mcpAuthRouter` (authorization
 * server metadata, protected resource metadata, /authorize, /token, /register, /revoke) over a
 * small in-memory provider, and `requireBearerAuth` in front of a stateless Streamable HTTP MCP
 * server with two tools. Each test file starts its own on port 0, through the outbound stand-in:
 *
 *   GET  http://oauth-mcp.control.test/start            → {port}: a new server on 127.0.0.1:<port>
 *   POST http://127.0.0.1:<port>/control {…}           → script it: `expireAccessTokens` (every access token
 *        issued so far stops working), `refuseRefresh`, `deny` (authorize answers error=access_denied),
 *        `accessTtlSeconds`, `refreshDelayMs`, `nextUser` (the upstream user the next authorization
 *        signs in as; whoami answers `user <name>`), `htmlToken` (the token endpoint answers an HTML
 *        page), `exchange` (how a token exchange is answered: `issue`, `refuse` with invalid_grant,
 *        or `html`), `advertiseExchange` (whether the metadata lists the grant); GET answers the
 *        counters (registrations, authorizations, refreshes, refusedRefreshes), `received`: the
 *        user and bearer token of every tools/call, in order, and `exchanges`: every token exchange.
 *
 * Token exchange (RFC 8693) is added here, in front of the SDK's router, whose token endpoint
 * knows only the code and refresh grants. @cloudflare/workers-oauth-provider (installed, and
 * toolgate's own provider) implements RFC 8693, but only for subject tokens it issued itself
 * (it reads them back from its own KV), and an upstream's authorization server must take
 * toolgate's. So the grant is built from the SDK's pieces: toolgate's client is fixed
 * (TEST_EXCHANGE_CLIENT, by client_secret_post or Basic), each distinct subject token becomes
 * upstream user `subject-<n>`, and the issued token is one `requireBearerAuth` accepts.
 *
 * The same server is a REST API behind the same tokens, for `per_user` OpenAPI sources:
 *   GET  /openapi.json      its spec, whose securitySchemes name this server's /authorize and /token
 *        (`?bare=1`: the spec without them)
 *   GET  /api/whoami        {user}: who the bearer token belongs to, recorded in `received` too
 *
 * The authorize step approves at once (the person signing in), redirecting to the client's
 * redirect_uri with the code, as the SDK's demo provider does.
 */

import { randomUUID } from "node:crypto";
import type { Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { InvalidGrantError, InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import type { AuthorizationParams, OAuthServerProvider } from "@modelcontextprotocol/sdk/server/auth/provider.js";
import { createOAuthMetadata, getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from "@modelcontextprotocol/sdk/server/auth/router.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { OAuthClientInformationFull, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import express from "express";
import { type ExchangeRecord, TEST_EXCHANGE_CLIENT } from "./test-env.ts";

interface Script {
  expiredBefore: number;
  refuseRefresh: boolean;
  deny: boolean;
  accessTtlSeconds: number;
  /** How long a successful refresh waits before answering, after its refresh token is spent. */
  refreshDelayMs: number;
  nextUser: string;
  htmlToken: boolean;
  exchange: "issue" | "refuse" | "html";
  advertiseExchange: boolean;
}

const TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";

interface Counters {
  registrations: number;
  authorizations: number;
  codeExchanges: number;
  refreshes: number;
  /** Refreshes refused (a spent or unknown refresh token, or `refuseRefresh`). */
  refusedRefreshes: number;
}

const servers: Map<number, HttpServer> = ((globalThis as { __toolgateOAuthMcp?: Map<number, HttpServer> }).__toolgateOAuthMcp ??= new Map());

/** Whether `port` is one of the OAuth MCP servers started here. */
export function isOAuthMcpPort(port: number): boolean {
  return servers.has(port);
}

class ScriptedProvider implements OAuthServerProvider {
  readonly #clients = new Map<string, OAuthClientInformationFull>();
  readonly #codes = new Map<string, { clientId: string; params: AuthorizationParams; user: string }>();
  readonly #access = new Map<string, { clientId: string; scopes: string[]; expiresAt: number; issuedAt: number; user: string }>();
  readonly #refresh = new Map<string, { clientId: string; scopes: string[]; user: string }>();
  constructor(
    readonly script: Script,
    readonly counters: Counters,
  ) {}

  get clientsStore() {
    return {
      getClient: async (id: string) => this.#clients.get(id),
      registerClient: async (client: OAuthClientInformationFull) => {
        this.counters.registrations++;
        this.#clients.set(client.client_id, client);
        return client;
      },
    };
  }

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: express.Response): Promise<void> {
    this.counters.authorizations++;
    const target = new URL(params.redirectUri);
    if (this.script.deny) {
      target.searchParams.set("error", "access_denied");
      target.searchParams.set("error_description", "the person declined");
    } else {
      const code = randomUUID();
      this.#codes.set(code, { clientId: client.client_id, params, user: this.script.nextUser });
      target.searchParams.set("code", code);
    }
    if (params.state !== undefined) target.searchParams.set("state", params.state);
    res.redirect(302, target.href);
  }

  async challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string): Promise<string> {
    const entry = this.#codes.get(code);
    if (entry === undefined) throw new InvalidGrantError("unknown authorization code");
    return entry.params.codeChallenge;
  }

  async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<OAuthTokens> {
    const entry = this.#codes.get(code);
    if (entry === undefined || entry.clientId !== client.client_id) throw new InvalidGrantError("unknown authorization code");
    this.#codes.delete(code);
    this.counters.codeExchanges++;
    return this.#issue(client.client_id, entry.params.scopes ?? [], entry.user);
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string): Promise<OAuthTokens> {
    const entry = this.#refresh.get(refreshToken);
    if (this.script.refuseRefresh || entry === undefined || entry.clientId !== client.client_id) {
      this.counters.refusedRefreshes++;
      throw new InvalidGrantError("the refresh token is no longer valid");
    }
    this.#refresh.delete(refreshToken);
    this.counters.refreshes++;
    if (this.script.refreshDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.script.refreshDelayMs));
    return this.#issue(client.client_id, entry.scopes, entry.user);
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const entry = this.#access.get(token);
    if (entry === undefined || entry.issuedAt <= this.script.expiredBefore) throw new InvalidTokenError("the access token is unknown or expired");
    return { token, clientId: entry.clientId, scopes: entry.scopes, expiresAt: entry.expiresAt, extra: { user: entry.user } };
  }

  /** A token for `user` by token exchange: an access token only (RFC 8693 section 2.2.1 makes a refresh token optional). */
  issueExchanged(clientId: string, user: string): OAuthTokens {
    const { refresh_token: _refresh, ...tokens } = this.#issue(clientId, [], user);
    return tokens;
  }

  #issue(clientId: string, scopes: string[], user: string): OAuthTokens {
    const accessToken = randomUUID();
    const refreshToken = randomUUID();
    const issuedAt = performance.timeOrigin + performance.now();
    this.#access.set(accessToken, { clientId, scopes, issuedAt, expiresAt: Math.floor(Date.now() / 1000) + this.script.accessTtlSeconds, user });
    this.#refresh.set(refreshToken, { clientId, scopes, user });
    return {
      access_token: accessToken,
      token_type: "Bearer",
      expires_in: this.script.accessTtlSeconds,
      refresh_token: refreshToken,
      ...(scopes.length > 0 ? { scope: scopes.join(" ") } : {}),
    };
  }
}

function mcpServer(auth: AuthInfo | undefined): Server {
  const server = new Server({ name: "oauth-fixture", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      { name: "whoami", description: "Says which OAuth client the token belongs to", inputSchema: { type: "object", properties: {} } },
      {
        name: "add",
        description: "Adds two numbers",
        inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = (request.params.arguments ?? {}) as { a?: number; b?: number };
    if (request.params.name === "add") return { content: [{ type: "text", text: String(Number(args.a) + Number(args.b)) }] };
    return { content: [{ type: "text", text: `user ${String(auth?.extra?.user ?? "none")} client ${auth?.clientId ?? "none"}` }] };
  });
  return server;
}

/** Starts a new server on an ephemeral loopback port and resolves with the port. */
export async function startOAuthMcp(): Promise<number> {
  const script: Script = {
    expiredBefore: 0,
    refuseRefresh: false,
    deny: false,
    accessTtlSeconds: 3600,
    refreshDelayMs: 0,
    nextUser: "admin",
    htmlToken: false,
    exchange: "issue",
    advertiseExchange: true,
  };
  const received: { user: string; token: string }[] = [];
  const exchanges: ExchangeRecord[] = [];
  const counters: Counters = { registrations: 0, authorizations: 0, codeExchanges: 0, refreshes: 0, refusedRefreshes: 0 };
  const provider = new ScriptedProvider(script, counters);
  const app = express();
  const http = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => http.once("listening", () => resolve()));
  // Never keeps the test run alive.
  http.unref();
  const port = (http.address() as AddressInfo).port;
  const base = new URL(`http://127.0.0.1:${port}`);
  const mcpUrl = new URL("/mcp", base);
  // Before the router: a token endpoint behind a proxy that answers with a login page.
  app.post("/token", (_req, res, next) => (script.htmlToken ? res.status(200).type("html").send("<html><body>Please sign in</body></html>") : next()));
  app.post("/token", express.urlencoded({ extended: false }), (req, res, next) => {
    const body = req.body as Record<string, string | undefined>;
    if (body.grant_type !== TOKEN_EXCHANGE_GRANT) return next();
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    const [id, secret] =
      basic === undefined ? [body.client_id, body.client_secret] : Buffer.from(basic, "base64").toString().split(":").map(decodeURIComponent);
    if (id !== TEST_EXCHANGE_CLIENT.id || secret !== TEST_EXCHANGE_CLIENT.secret) return res.status(401).json({ error: "invalid_client" });
    const exchange: ExchangeRecord = {
      subject: body.subject_token ?? "",
      subjectType: body.subject_token_type ?? "",
      resource: body.resource,
      audience: body.audience,
      issued: "",
    };
    exchanges.push(exchange);
    if (script.exchange === "html") return res.status(200).type("html").send("<html><body>Please sign in</body></html>");
    if (exchange.subject === "" || exchange.subjectType !== ACCESS_TOKEN_TYPE) return res.status(400).json({ error: "invalid_request" });
    if (script.exchange === "refuse") return res.status(400).json({ error: "invalid_grant", error_description: "the subject token is not accepted here" });
    const subjects = [...new Set(exchanges.map((e) => e.subject))];
    const tokens = provider.issueExchanged(id, `subject-${subjects.indexOf(exchange.subject)}`);
    exchange.issued = tokens.access_token;
    return res.json({ ...tokens, issued_token_type: ACCESS_TOKEN_TYPE });
  });
  // The SDK's metadata, with the exchange grant listed (or not, as scripted).
  app.get("/.well-known/oauth-authorization-server", (_req, res) => {
    const metadata = createOAuthMetadata({ provider, issuerUrl: base, scopesSupported: ["tools"] });
    res.json({ ...metadata, grant_types_supported: [...(metadata.grant_types_supported ?? []), ...(script.advertiseExchange ? [TOKEN_EXCHANGE_GRANT] : [])] });
  });
  app.use(mcpAuthRouter({ provider, issuerUrl: base, resourceServerUrl: mcpUrl, scopesSupported: ["tools"], resourceName: "OAuth fixture" }));
  app.post("/control", express.json(), (req, res) => {
    const body = req.body as Partial<Script> & { expireAccessTokens?: boolean };
    if (body.expireAccessTokens === true) script.expiredBefore = performance.timeOrigin + performance.now();
    if (body.refuseRefresh !== undefined) script.refuseRefresh = body.refuseRefresh;
    if (body.deny !== undefined) script.deny = body.deny;
    if (body.accessTtlSeconds !== undefined) script.accessTtlSeconds = body.accessTtlSeconds;
    if (body.refreshDelayMs !== undefined) script.refreshDelayMs = body.refreshDelayMs;
    if (body.nextUser !== undefined) script.nextUser = body.nextUser;
    if (body.htmlToken !== undefined) script.htmlToken = body.htmlToken;
    if (body.exchange !== undefined) script.exchange = body.exchange;
    if (body.advertiseExchange !== undefined) script.advertiseExchange = body.advertiseExchange;
    res.json({ ...script, ...counters });
  });
  app.get("/control", (_req, res) => res.json({ ...script, ...counters, received, exchanges }));
  const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) });
  app.post("/mcp", express.json(), bearer, async (req, res) => {
    if ((req.body as { method?: string } | undefined)?.method === "tools/call")
      received.push({ user: String(req.auth?.extra?.user ?? ""), token: req.auth?.token ?? "" });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const server = mcpServer(req.auth);
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.get("/openapi.json", (req, res) => res.json(restSpec(base, req.query.bare === "1")));
  app.get("/api/whoami", requireBearerAuth({ verifier: provider }), (req, res) => {
    received.push({ user: String(req.auth?.extra?.user ?? ""), token: req.auth?.token ?? "" });
    res.json({ user: String(req.auth?.extra?.user ?? "") });
  });
  servers.set(port, http);
  return port;
}

/** The REST API's OpenAPI 3.1 spec; `bare` leaves out its OAuth security scheme. */
function restSpec(base: URL, bare: boolean): Record<string, unknown> {
  const scheme = {
    type: "oauth2",
    flows: { authorizationCode: { authorizationUrl: new URL("/authorize", base).href, tokenUrl: "/token", scopes: { tools: "Call the API" } } },
  };
  return {
    openapi: "3.1.0",
    info: { title: "OAuth fixture API", version: "1" },
    servers: [{ url: new URL("/api", base).href }],
    ...(bare ? {} : { components: { securitySchemes: { upstream: scheme } }, security: [{ upstream: ["tools"] }] }),
    paths: {
      "/whoami": {
        get: {
          operationId: "whoami",
          summary: "Who the caller's token belongs to",
          responses: { "200": { description: "The upstream user", content: { "application/json": { schema: { type: "object" } } } } },
        },
      },
    },
  };
}

/**
 * OpenAPI tools through POST /v1/tool-calls, against the pet shop stand-in (test/support/
 * petstore-stub.ts), which checks every request against apis/specs/petstore.yaml with
 * openapi-backend: after each test, no request the spec forbids may have reached it. Each test
 * registers the shop's operations, as the generator converted them for apis/petstore.ts
 * (apis.gen.ts), as a source of its own on a scenario path of its own.
 */
import { env } from "cloudflare:workers";
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from "jose";
import { afterEach, describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.ts";
import { API_SOURCES } from "../../src/openapi-sources/apis.gen.ts";
import { openApiToolSpec } from "../../src/openapi-sources/openapi-tool.ts";
import type { OpenApiOperation } from "../../src/openapi-sources/operation.ts";
import { TokenCache } from "../../src/openapi-sources/source-auth.ts";
import { type OpenApiSourceInput, openApiSourceConfigSchema } from "../../src/openapi-sources/source-config.ts";
import { registry } from "../../src/registry/registry.ts";
import { type CallResult, callTools, decide, only } from "../approvals/support.ts";
import { createKey } from "../support/create-key.ts";
import { testParts } from "../support/dispatch.ts";
import { type LoggedRequest, PETSTORE_CLIENT, PETSTORE_HOST } from "../support/petstore-env.ts";
import { TEST_ADMIN_TOKEN } from "../support/test-env.ts";
import { openaiCall } from "../support/tool-calls.ts";
import { waitForAuditRows } from "../support/wait-for-audit-rows.ts";

const app = createApp(testParts);
const PETSTORE = API_SOURCES.find((source) => source.config.name === "petstore");
const PETSTORE_OPERATIONS = JSON.parse(PETSTORE?.operations ?? "[]") as OpenApiOperation[];
const cleanups: (() => void)[] = [];
const scenarios: string[] = [];

interface Source {
  name: string;
  scenario: string;
  tool: (operationId: string) => string;
}

/** Registers the shop's operations as source `name`, calling http://petstore.test/<scenario>. */
function registerSource(
  input: Omit<OpenApiSourceInput, "spec">,
  scenarioPrefix = "ok-",
  baseUrl?: string,
  operations: readonly OpenApiOperation[] = PETSTORE_OPERATIONS,
): Source {
  const config = openApiSourceConfigSchema().parse({ spec: { file: "specs/petstore.yaml" }, ...input });
  const scenario = `${scenarioPrefix}${crypto.randomUUID()}`;
  scenarios.push(scenario);
  const tokens = new TokenCache();
  const names = operations.map((operation) => {
    const name = `${config.name}__${operation.operationId}`;
    const outcome = registry.register(openApiToolSpec(config, { ...operation, name }, { baseUrl: baseUrl ?? `http://${PETSTORE_HOST}/${scenario}`, tokens }));
    expect(outcome).toMatchObject({ ok: true });
    return name;
  });
  cleanups.push(() => names.forEach((name) => registry.deregister(name)));
  return { name: config.name, scenario, tool: (operationId) => `${config.name}__${operationId}` };
}

/** One call through POST /v1/tool-calls as the admin token, in an environment with `vars` added. */
async function call(tool: string, args: Record<string, unknown>, vars: Record<string, string> = {}): Promise<CallResult> {
  const res = await app.request(
    "https://toolgate.test/v1/tool-calls",
    {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ tool_calls: [openaiCall("c1", tool, args)] }),
    },
    { ...env, ...vars } as Env,
  );
  expect(res.status).toBe(200);
  return ((await res.json()) as { results: CallResult[] }).results[0] as CallResult;
}

async function logOf(scenario: string): Promise<LoggedRequest[]> {
  return (await (await fetch(`http://${PETSTORE_HOST}/__log/${scenario}`)).json()) as LoggedRequest[];
}

const bodyOf = (result: CallResult): unknown => JSON.parse(result.message.content);

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  for (const scenario of scenarios.splice(0)) {
    const violations = (await logOf(scenario)).filter((request) => request.violation !== undefined);
    expect(violations, `requests the spec forbids reached the stand-in in ${scenario}`).toEqual([]);
  }
});

describe("the apis/ example", () => {
  it("registers the pet shop at start, unavailable until PETSTORE_TOKEN is set, writes held for approval", async () => {
    expect(PETSTORE_OPERATIONS.map((operation) => operation.operationId)).toContain("listPets");
    expect(registry.namesInToolset("api-petstore")).toEqual(PETSTORE_OPERATIONS.map((operation) => operation.name).sort());
    expect(registry.get("petstore__listPets")).toMatchObject({ readOnly: true, risky: false, requiresEnv: ["PETSTORE_TOKEN"], timeoutMs: 15_000 });
    expect(registry.get("petstore__createPet")).toMatchObject({ risky: true, retry: { maxAttempts: 1 } });
    expect(registry.get("petstore__replacePetNotes")).toMatchObject({ risky: false });
    const result = await call("petstore__listPets", {});
    expect(result).toMatchObject({ status: "error", error_code: "TOOL_UNAVAILABLE" });
    expect(result.message.content).toContain("PETSTORE_TOKEN");
  });
});

describe("OpenAPI tools: requests", () => {
  it("sends a GET with query and header parameters and returns the API's JSON as it came", async () => {
    const source = registerSource({ name: "pets_get" });
    const result = await call(source.tool("listPets"), { limit: 2, status: "available", tags: ["small", "calm"], "X-Request-Id": "r-1" });
    expect(result.status).toBe("ok");
    expect(bodyOf(result)).toEqual([
      { id: "p-1", name: "Rex", tag: "dog", status: "available" },
      { id: "p-2", name: "Tom", tag: "cat", status: "sold" },
    ]);
    const [sent] = await logOf(source.scenario);
    expect(sent).toMatchObject({ method: "GET", target: "/pets?limit=2&status=available&tags=small,calm", headers: { "x-request-id": "r-1" } });
    // A source without auth sends no credential, and its audit record says so.
    expect((await waitForAuditRows("tool = ?", [source.tool("listPets")]))[0]).toMatchObject({ key_id: "admin-token", status: "ok", credential: null });
  });

  it("writes deepObject, pipeDelimited and spaceDelimited queries and a cookie that the spec's own validator accepts", async () => {
    const source = registerSource({ name: "pets_styles" });
    const result = await call(source.tool("searchPets"), {
      filter: { species: "cat", color: "black" },
      ids: ["p-1", "p-2"],
      words: ["big", "tom"],
      region: "eu",
    });
    expect(result.status).toBe("ok");
    const [sent] = await logOf(source.scenario);
    expect(sent?.target).toBe("/pets/search?filter%5Bspecies%5D=cat&filter%5Bcolor%5D=black&ids=p-1|p-2&words=big%20tom");
    expect(sent?.headers.cookie).toBe("region=eu");
  });

  it("sends form-urlencoded, multipart and text bodies the spec accepts", async () => {
    const source = registerSource({ name: "pets_bodies", approval: { "*": "never" } });
    const order = await call(source.tool("placeOrder"), { body: { petId: "p-1", quantity: 2, notes: ["gift", "wrap"] } });
    expect(bodyOf(order)).toEqual({ id: 17, petId: "p-1", quantity: 1, status: "placed" });
    const photo = await call(source.tool("uploadPetPhoto"), { petId: "p-1", body: { caption: "On the sofa", meta: { taken: "2026-01-02" } } });
    expect(bodyOf(photo)).toEqual({ stored: true });
    const notes = await call(source.tool("replacePetNotes"), { petId: "p-1", body: "Likes walks." });
    expect(notes.message.content).toBe("Friendly with children.");
    const log = await logOf(source.scenario);
    expect(log.map((request) => [request.method, request.target])).toEqual([
      ["POST", "/store/orders"],
      ["POST", "/pets/p-1/photo"],
      ["PUT", "/pets/p-1/notes"],
    ]);
    expect(log[0]?.body).toBe("petId=p-1&quantity=2&notes=gift&notes=wrap");
    expect(log[1]?.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect(log[2]).toMatchObject({ body: "Likes walks.", headers: { "content-type": "text/plain;charset=UTF-8" } });
  });

  it("keeps a path parameter of '../' inside its own segment, and refuses '..' outright", async () => {
    const source = registerSource({ name: "pets_traversal" });
    const result = await call(source.tool("showPetById"), { petId: "../store/inventory" });
    expect(result.status).toBe("ok");
    const refused = await call(source.tool("showPetById"), { petId: ".." });
    expect(refused).toMatchObject({ status: "error", error_code: "INVALID_ARGUMENTS" });
    expect(refused.message.content).toContain("path step");
    expect((await logOf(source.scenario)).map((request) => request.target)).toEqual(["/pets/..%2Fstore%2Finventory"]);
  });

  it("refuses arguments the spec refuses before anything is sent, patterns included", async () => {
    const source = registerSource({ name: "pets_invalid", approval: { createPet: "never" } });
    const tooMany = await call(source.tool("listPets"), { limit: 500 });
    expect(tooMany).toMatchObject({ status: "error", error_code: "INVALID_ARGUMENTS" });
    const badName = await call(source.tool("createPet"), { body: { name: "4 legs" } });
    expect(badName).toMatchObject({ status: "error", error_code: "INVALID_ARGUMENTS" });
    expect(JSON.parse(badName.message.content)).toMatchObject({ issues: [{ path: "body.name", message: expect.stringContaining("pattern") }] });
    expect(await logOf(source.scenario)).toEqual([]);
  });
});

describe("OpenAPI tools: approval", () => {
  it("holds a POST for a person's approval by default, then sends it as approved", async () => {
    const source = registerSource({ name: "pets_approval" });
    const agent = await createKey({ name: "oa-agent", role: "agent", toolsets: [`api-${source.name}`] });
    const approver = await createKey({ name: "oa-approver", role: "approver" });
    const args = { body: { name: "Bella", tag: "dog" } };
    const held = only(await callTools(agent, "oa-approval", [openaiCall("p1", source.tool("createPet"), args)]));
    expect(held).toMatchObject({ status: "pending_approval", error_code: "APPROVAL_REQUIRED" });
    expect(await logOf(source.scenario)).toEqual([]);

    const decided = await decide(approver, held.approval?.id ?? "", { decision: "approve", scope: "once" });
    expect(await decided.json()).toMatchObject({ status: "approved", result: { status: "ok" } });
    const sent = await logOf(source.scenario);
    expect(sent.map((request) => [request.method, request.target, request.body])).toEqual([["POST", "/pets", '{"name":"Bella","tag":"dog"}']]);
  });

  it("follows the source's per-operation overrides: never for one POST, always for one GET", async () => {
    const source = registerSource({ name: "pets_override", approval: { "path:POST /pets": "never", "tag:store": "always" } });
    const created = await call(source.tool("createPet"), { body: { name: "Bella" } });
    expect(created.status).toBe("ok");
    const inventory = await call(source.tool("getInventory"), {});
    expect(inventory).toMatchObject({ status: "pending_approval" });
    const deleted = await call(source.tool("deletePet"), { petId: "p-1" });
    expect(deleted).toMatchObject({ status: "pending_approval" });
    expect((await logOf(source.scenario)).map((request) => request.method)).toEqual(["POST"]);
  });
});

describe("OpenAPI tools: answers", () => {
  it("turns a 4xx into a structured error with the API's message and what to fix", async () => {
    const source = registerSource({ name: "pets_404" });
    const result = await call(source.tool("showPetById"), { petId: "missing-7" });
    expect(result).toMatchObject({ status: "error", error_code: "UPSTREAM_ERROR" });
    const envelope = JSON.parse(result.message.content) as { error: string; suggestion: string; retryable: boolean };
    expect(envelope.error).toContain("HTTP 404");
    expect(envelope.error).toContain("no pet has this id");
    expect(envelope.error).toContain("GET /pets/{petId}");
    expect(envelope.suggestion).toContain("identifiers");
    expect(envelope.retryable).toBe(false);
  });

  it("retries a GET after a 429, waiting out its Retry-After", async () => {
    const source = registerSource({ name: "pets_429_get" }, "rate-limited-");
    const result = await call(source.tool("listPets"), {}, { RETRY_BACKOFF_BASE_MS: "10" });
    expect(result.status).toBe("ok");
    const [first, second] = await logOf(source.scenario);
    expect(second).toBeDefined();
    // Retry-After: 1 asked for a second; the backoff alone would have waited 10-12 ms.
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it("never retries a POST after a 429: it may already have written", async () => {
    const source = registerSource({ name: "pets_429_post", approval: { "*": "never" } }, "rate-limited-");
    const result = await call(source.tool("createPet"), { body: { name: "Bella" } }, { RETRY_BACKOFF_BASE_MS: "10" });
    expect(result).toMatchObject({ status: "error", error_code: "RATE_LIMITED" });
    expect(await logOf(source.scenario)).toHaveLength(1);
  });

  it("reports a binary answer by type and size instead of returning it", async () => {
    const source = registerSource({ name: "pets_binary" });
    const result = await call(source.tool("getPetPhoto"), { petId: "p-1" });
    expect(result.message.content).toBe("HTTP 200: a binary body of image/png, 2048 bytes; it is not returned (tools carry text).");
  });

  it("reads a huge answer only up to its byte cap, and shows its head and tail", async () => {
    const source = registerSource({ name: "pets_huge" }, "huge-");
    const result = await call(source.tool("getInventory"), {});
    expect(result.status).toBe("ok");
    expect(result.message.content).toMatch(/^\[Result truncated: \d+ characters in all/);
    expect(result.message.content).toContain("The response was cut after 5242880 bytes");
  });

  it("reports a DELETE's empty answer", async () => {
    const source = registerSource({ name: "pets_delete", approval: { deletePet: "never" } });
    expect((await call(source.tool("deletePet"), { petId: "p-1" })).message.content).toBe("HTTP 204: no body.");
  });
});

describe("OpenAPI tools: the SSRF guard", () => {
  it("refuses a source whose server is a private address, sending nothing", async () => {
    const source = registerSource({ name: "pets_private" }, "ok-", "http://10.0.0.7/v1");
    const result = await call(source.tool("listPets"), {});
    expect(result).toMatchObject({ status: "error", error_code: "TOOL_UNAVAILABLE" });
    expect(result.message.content).toContain("10.0.0.7 is a loopback, private, link-local or reserved IPv4 address");
  });

  it("refuses a redirect to a private address", async () => {
    const source = registerSource({ name: "pets_redirect" }, "redirect-private-");
    const result = await call(source.tool("listPets"), {});
    expect(result).toMatchObject({ status: "error", error_code: "EXECUTION_FAILED" });
    expect(result.message.content).toContain("127.0.0.1");
    expect(await logOf(source.scenario)).toHaveLength(1);
  });

  it("follows a GET's redirect within the API, credentials included", async () => {
    const source = registerSource({ name: "pets_redirect_ok", auth: { type: "bearer", token: { secret: "PET_TOKEN" } } }, "redirect-public-");
    const result = await call(source.tool("listPets"), {}, { PET_TOKEN: "pt-123456" });
    expect(bodyOf(result)).toEqual({ available: 12, pending: 3, sold: 40 });
    const log = await logOf(source.scenario);
    // The spec's default (limit 20) is sent: zod's validator fills it in, and the spec allows it.
    expect(log.map((request) => [request.target, request.headers.authorization])).toEqual([
      ["/pets?limit=20", "Bearer pt-123456"],
      ["/store/inventory", "Bearer pt-123456"],
    ]);
  });
});

describe("OpenAPI tools: auth", () => {
  it("sends a bearer token from its secret, and is unavailable while the secret is unset", async () => {
    const source = registerSource({ name: "pets_bearer", auth: { type: "bearer", token: { secret: "PET_BEARER" } } });
    const missing = await call(source.tool("listPets"), {});
    expect(missing).toMatchObject({ status: "error", error_code: "TOOL_UNAVAILABLE" });
    expect(missing.message.content).toContain("PET_BEARER");
    await call(source.tool("listPets"), {}, { PET_BEARER: "b-secret-1" });
    expect((await logOf(source.scenario)).map((request) => request.headers.authorization)).toEqual(["Bearer b-secret-1"]);
    // The audit log names the credential's kind once one was sent (none while it could not be), never its value.
    const rows = await waitForAuditRows("tool = ?", [source.tool("listPets")], 2);
    // Compared as a set: two records of one millisecond are ordered by a random rid.
    expect(rows.map((row) => String(row.credential)).sort()).toEqual(["null", "shared"]);
    expect(JSON.stringify(rows)).not.toContain("b-secret-1");
  });

  it("sends an API key in a header or in the query", async () => {
    const header = registerSource({ name: "pets_key_header", auth: { type: "api_key", in: "header", name: "X-Api-Key", value: { secret: "PET_KEY" } } });
    const query = registerSource({ name: "pets_key_query", auth: { type: "api_key", in: "query", name: "api_key", value: { secret: "PET_KEY" } } });
    await call(header.tool("getInventory"), {}, { PET_KEY: "k 1&2" });
    await call(query.tool("listPets"), { limit: 1 }, { PET_KEY: "k 1&2" });
    expect((await logOf(header.scenario))[0]?.headers["x-api-key"]).toBe("k 1&2");
    expect((await logOf(query.scenario))[0]?.target).toBe("/pets?limit=1&api_key=k%201%262");
  });

  it("sends HTTP basic credentials", async () => {
    const source = registerSource({ name: "pets_basic", auth: { type: "basic", username: { secret: "PET_USER" }, password: { secret: "PET_PASS" } } });
    await call(source.tool("getInventory"), {}, { PET_USER: "shop", PET_PASS: "pässword" });
    const sent = (await logOf(source.scenario))[0]?.headers.authorization ?? "";
    expect(new TextDecoder().decode(Uint8Array.from(atob(sent.replace("Basic ", "")), (c) => c.charCodeAt(0)))).toBe("shop:pässword");
  });

  /** A source whose token endpoint is the stand-in's, on the source's own scenario. */
  function oauthSource(name: string, scope?: string): Source {
    const scenario = `ok-${crypto.randomUUID()}`;
    scenarios.push(scenario);
    const tokenUrl = `http://${PETSTORE_HOST}/${scenario}/oauth/token`;
    const auth = { type: "oauth2_client_credentials", token_url: tokenUrl, client_id: { secret: "PET_ID" }, client_secret: { secret: "PET_SECRET" } } as const;
    const source = registerSource({ name, auth: scope === undefined ? auth : { ...auth, scope } }, "ok-", `http://${PETSTORE_HOST}/${scenario}`);
    return { ...source, scenario };
  }

  it("fetches an OAuth client credentials token once and reuses it until it expires", async () => {
    const source = oauthSource("pets_oauth", "pets:read");
    const vars = { PET_ID: PETSTORE_CLIENT.id, PET_SECRET: PETSTORE_CLIENT.secret };
    expect((await call(source.tool("getInventory"), {}, vars)).status).toBe("ok");
    expect((await call(source.tool("listPets"), {}, vars)).status).toBe("ok");
    const log = await logOf(source.scenario);
    expect(log.map((request) => [request.target, request.headers.authorization?.startsWith("Basic") ? "basic" : request.headers.authorization])).toEqual([
      ["/oauth/token", "basic"],
      ["/store/inventory", "Bearer pet-token-1"],
      ["/pets?limit=20", "Bearer pet-token-1"],
    ]);
    expect(log[0]?.body).toBe("grant_type=client_credentials&scope=pets%3Aread");
  });

  it("reports a token endpoint that refuses the client as unavailable, naming the endpoint's reason", async () => {
    const source = oauthSource("pets_oauth_bad");
    const result = await call(source.tool("getInventory"), {}, { PET_ID: PETSTORE_CLIENT.id, PET_SECRET: "wrong" });
    expect(result).toMatchObject({ status: "error", error_code: "TOOL_UNAVAILABLE" });
    expect(result.message.content).toContain("invalid_client");
    expect((await logOf(source.scenario)).map((request) => request.target)).toEqual(["/oauth/token"]);
  });
});

describe("OpenAPI tools: identity", () => {
  /** A fresh private P-256 JWK, as `IDENTITY_SIGNING_KEY` holds one. */
  async function signingKey(): Promise<string> {
    const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
    return JSON.stringify(await crypto.subtle.exportKey("jwk", pair.privateKey));
  }

  it("sends a token naming the caller, the tool and the call, which docs/identity.md's verifier accepts for the API's origin", async () => {
    const source = registerSource({ name: "pets_identity", identity: { ttl_minutes: 2 } });
    const missing = await call(source.tool("listPets"), {});
    expect(missing).toMatchObject({ status: "error", error_code: "TOOL_UNAVAILABLE" });
    expect(missing.message.content).toContain("IDENTITY_SIGNING_KEY");
    const vars = { IDENTITY_SIGNING_KEY: await signingKey() };
    expect((await call(source.tool("listPets"), { limit: 1 }, vars)).status).toBe("ok");
    const [sent] = await logOf(source.scenario);
    const token = sent?.headers["x-toolgate-identity"] ?? "";
    const jwks = (await (await app.request("https://toolgate.test/.well-known/jwks.json", {}, { ...env, ...vars } as Env)).json()) as JSONWebKeySet;
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), { issuer: "toolgate", audience: `http://${PETSTORE_HOST}`, algorithms: ["ES256"] });
    expect(payload).toMatchObject({ sub: "admin-token", tool: source.tool("listPets"), call_id: "c1" });
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(120);
    // The audit record names the identity token as the credential (the source has no other), never the token.
    const rows = await waitForAuditRows("tool = ?", [source.tool("listPets")], 2);
    expect(rows.map((row) => String(row.credential)).sort()).toEqual(["identity", "null"]);
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it("sends the token beside the source's own auth, audited as the shared credential, and refuses it in the auth's header", async () => {
    const auth = { type: "api_key", in: "header", name: "X-Api-Key", value: { secret: "PET_KEY" } } as const;
    const source = registerSource({ name: "pets_identity_key", auth, identity: { header: "X-Caller", audience: "pets-api" } });
    expect((await call(source.tool("getInventory"), {}, { PET_KEY: "k-1", IDENTITY_SIGNING_KEY: await signingKey() })).status).toBe("ok");
    const [sent] = await logOf(source.scenario);
    expect(sent?.headers["x-api-key"]).toBe("k-1");
    expect(JSON.parse(atob((sent?.headers["x-caller"] ?? "").split(".")[1] ?? ""))).toMatchObject({ aud: "pets-api", sub: "admin-token" });
    expect((await waitForAuditRows("tool = ?", [source.tool("getInventory")]))[0]).toMatchObject({ credential: "shared" });

    const clash = openApiSourceConfigSchema().safeParse({ name: "pets_clash", spec: { file: "specs/petstore.yaml" }, auth, identity: { header: "x-api-key" } });
    expect(clash.success).toBe(false);
    expect(clash.error?.issues[0]).toMatchObject({ path: ["identity", "header"], message: expect.stringContaining("a header of its own") });
  });
});

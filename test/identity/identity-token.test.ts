/**
 * Identity tokens for internal services (src/identity/): a remote MCP server configured with
 * `identity` receives, on each call, an ES256 JWT naming the caller, the tool and the call, which
 * the verifier docs/identity.md shows (the `jose` library against /.well-known/jwks.json)
 * accepts, and refuses for another audience, past its expiry, or under a key set without its key.
 */
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { identityOptionSchema } from "../../src/identity/identity-option.ts";
import { identityHeader } from "../../src/identity/identity-token.ts";
import { addServer, fedApi, fedEnv, runCall } from "../mcp/federation/helpers.ts";
import { FAKE_MCP_HOST } from "../support/test-env.ts";
import { waitForAuditRows } from "../support/wait-for-audit-rows.ts";

const PINNED_URL = `http://${FAKE_MCP_HOST}/pinned`;

/** A fresh private P-256 JWK, as `IDENTITY_SIGNING_KEY` holds one. */
async function newPrivateJwk(kid?: string): Promise<JsonWebKey & { kid?: string }> {
  const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const jwk = (await crypto.subtle.exportKey("jwk", pair.privateKey)) as JsonWebKey;
  return kid === undefined ? jwk : { ...jwk, kid };
}

const envWith = (secret: unknown): Env => ({ ...fedEnv, IDENTITY_SIGNING_KEY: JSON.stringify(secret) }) as Env;

async function jwksOf(env: Env): Promise<JSONWebKeySet> {
  const res = await fedApi("/.well-known/jwks.json", { env, headers: { authorization: "" } });
  expect(res.status).toBe(200);
  return (await res.json()) as JSONWebKeySet;
}

/** docs/identity.md's verifier, with the key set handed in rather than fetched. */
async function verify(token: string, jwks: JSONWebKeySet, audience: string) {
  const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), { issuer: "toolgate", audience, algorithms: ["ES256"] });
  return payload;
}

const OPTION = identityOptionSchema().parse({});
const CALL = { principal: "key_alice", tool: "mcp__internal__lookup", callId: "call_1", defaultAudience: "https://internal.example" };

describe("identity tokens on calls to a remote MCP server", () => {
  it("sends a token naming the key, the tool and the call, which the documented verifier accepts", async () => {
    const env = envWith(await newPrivateJwk());
    await addServer({ name: "idsrv", url: PINNED_URL, include: ["whoami"], identity: {} });
    const result = await runCall("mcp__idsrv__whoami", {}, { env });
    expect(result.status).toBe("ok");
    const token = /identity: (\S+)/.exec(result.message.content)?.[1] ?? "";
    expect(token.split(".")).toHaveLength(3);
    const claims = await verify(token, await jwksOf(env), `http://${FAKE_MCP_HOST}`);
    expect(claims).toMatchObject({ iss: "toolgate", sub: "admin-token", tool: "mcp__idsrv__whoami", call_id: "c1", aud: `http://${FAKE_MCP_HOST}` });
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(300);
    // The server has no shared credential, so the audit record names the identity token as the one sent, never the token.
    const [row] = await waitForAuditRows("tool = ?", ["mcp__idsrv__whoami"]);
    expect(row).toMatchObject({ key_id: "admin-token", credential: "identity" });
    expect(JSON.stringify(row)).not.toContain(token);
  });

  it("makes the tools unavailable, naming the secret, while IDENTITY_SIGNING_KEY is unset or malformed", async () => {
    await addServer({ name: "idnokey", url: PINNED_URL, include: ["whoami"], identity: { ttl_minutes: 2 } });
    const unset = await runCall("mcp__idnokey__whoami", {});
    expect(unset).toMatchObject({ error_code: "TOOL_UNAVAILABLE" });
    expect(unset.message.content).toContain("IDENTITY_SIGNING_KEY");
    const malformed = await runCall("mcp__idnokey__whoami", {}, { env: { ...fedEnv, IDENTITY_SIGNING_KEY: '{"kty":"RSA"}' } as Env });
    expect(malformed).toMatchObject({ error_code: "TOOL_UNAVAILABLE" });
    expect(malformed.message.content).toContain("is not a private EC P-256 JWK");
    expect(malformed.message.content).not.toContain("RSA");
    expect(await jwksOf(fedEnv)).toEqual({ keys: [] });
  });

  it("refuses an identity option with a reserved header or a lifetime past 15 minutes", async () => {
    const res = await fedApi("/v1/mcp-servers", { body: { name: "idbad", url: PINNED_URL, identity: { header: "Host", ttl_minutes: 60 } } });
    expect(res.status).toBe(400);
    const { issues } = (await res.json()) as { issues: { path: string; message: string }[] };
    expect(issues.map((issue) => issue.path).sort()).toEqual(["identity.header", "identity.ttl_minutes"]);
  });
});

describe("the documented verifier", () => {
  it("refuses a token made for another audience", async () => {
    const env = envWith(await newPrivateJwk());
    const made = await identityHeader(env, { ...OPTION, audience: "https://billing.internal" }, CALL);
    if (!made.ok) throw new Error(made.message);
    await expect(verify(made.token, await jwksOf(env), "https://payroll.internal")).rejects.toMatchObject({
      code: "ERR_JWT_CLAIM_VALIDATION_FAILED",
      claim: "aud",
    });
    expect(await verify(made.token, await jwksOf(env), "https://billing.internal")).toMatchObject({ sub: "key_alice" });
  });

  it("refuses a token past its expiry", async () => {
    const env = envWith(await newPrivateJwk());
    // Made 6 minutes ago with a 5-minute lifetime: a minute past its exp, whatever the clock does meanwhile.
    const made = await identityHeader(env, OPTION, CALL, Date.now() - 6 * 60_000);
    if (!made.ok) throw new Error(made.message);
    await expect(verify(made.token, await jwksOf(env), CALL.defaultAudience)).rejects.toMatchObject({ code: "ERR_JWT_EXPIRED" });
  });

  it("keeps verifying tokens of the previous key after rotation, by kid, and refuses them once it is dropped", async () => {
    const previous = await newPrivateJwk();
    const next = await newPrivateJwk("2026-next");
    const before = await identityHeader(envWith(previous), OPTION, CALL);
    if (!before.ok) throw new Error(before.message);

    const rotated = envWith([next, previous]);
    const published = await jwksOf(rotated);
    expect(published.keys.map((key) => key.kid)).toEqual(["2026-next", expect.stringMatching(/^[\w-]{43}$/)]);
    // Only public halves are published.
    expect(JSON.stringify(published)).not.toContain('"d"');
    expect(await verify(before.token, published, CALL.defaultAudience)).toMatchObject({ sub: "key_alice" });
    const after = await identityHeader(rotated, OPTION, CALL);
    if (!after.ok) throw new Error(after.message);
    expect(JSON.parse(atob(after.token.split(".")[0] ?? ""))).toEqual({ alg: "ES256", typ: "JWT", kid: "2026-next" });

    const dropped = await jwksOf(envWith([next]));
    await expect(verify(before.token, dropped, CALL.defaultAudience)).rejects.toMatchObject({ code: "ERR_JWKS_NO_MATCHING_KEY" });
  });
});

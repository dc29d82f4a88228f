/**
 * Where toolgate keeps its OAuth sign-ins at remote MCP servers (KV, `mcp:oauth:<server>`) and
 * the sign-ins under way (`mcp:oauth-flow:<sha256 of state>`). Tokens, client secrets and PKCE
 * verifiers are sealed with AES-GCM under MCP_TOKEN_KEY, bound to the KV key's name; status
 * fields stay readable so every isolate can show whether a server needs signing in again.
 */
import { open, type Sealed, seal } from "../../crypto/aes-gcm.ts";
import { sha256Hex } from "../../crypto/sha256.ts";
import { mcpOAuthFlowKey, mcpOAuthKey } from "../../storage/keys.ts";
import type { OAuthGrant, PendingSignIn } from "../client/oauth/oauth-grant.ts";

/** How long a person has to finish a sign-in at the remote server. */
export const SIGN_IN_FLOW_TTL_SECONDS = 600;

export interface StoredSignIn {
  status: "signed_in" | "needs_sign_in";
  /** Why the server needs signing in again (the refresh's error). */
  reason?: string;
  signedInBy: string;
  signedInAt: number;
  updatedAt: number;
  grant: Sealed;
}

export interface StoredSignInFlow {
  server: string;
  /** The admin key that started it; the grant is recorded as theirs. */
  keyId: string;
  /**
   * Set for a per-user connection (src/mcp/federation/connections/): the principal whose own
   * grant this makes. Its link opens only for a browser signed in as that principal.
   */
  connectFor?: string;
  createdAt: number;
  /** Where the sign-in link sends the browser (the authorization server, with state and PKCE challenge). */
  authorizationUrl: string;
  /** SHA-256 of the nonce in the browser's cookie, set when the sign-in link is opened (once). */
  browserNonceSha256?: string;
  pending: Sealed;
}

/** The MCP_TOKEN_KEY secret, or the message saying it must be set. */
export function tokenKey(env: Env): { ok: true; key: string } | { ok: false; message: string } {
  const key = env.MCP_TOKEN_KEY;
  if (key === undefined || key.length < 32) {
    return {
      ok: false,
      message:
        "signing in to remote MCP servers needs the MCP_TOKEN_KEY secret (at least 32 random characters; `openssl rand -hex 32 | npx wrangler secret put MCP_TOKEN_KEY`), which encrypts their tokens at rest",
    };
  }
  return { ok: true, key };
}

export async function readSignIn(kv: KVNamespace, server: string): Promise<StoredSignIn | null> {
  return kv.get<StoredSignIn>(mcpOAuthKey(server), "json");
}

/** The stored grant, opened; undefined when there is none or it does not open under the current key. */
export async function openGrant(key: string, server: string, stored: StoredSignIn): Promise<OAuthGrant | undefined> {
  const text = await open(key, mcpOAuthKey(server), stored.grant);
  return text === undefined ? undefined : (JSON.parse(text) as OAuthGrant);
}

export async function writeSignIn(kv: KVNamespace, key: string, server: string, grant: OAuthGrant, meta: Omit<StoredSignIn, "grant">): Promise<void> {
  const record: StoredSignIn = { ...meta, grant: await seal(key, mcpOAuthKey(server), JSON.stringify(grant)) };
  await kv.put(mcpOAuthKey(server), JSON.stringify(record));
}

/** Keeps the grant (its client is reused at the next sign-in) but records that it no longer works. */
export async function markStoredNeedsSignIn(kv: KVNamespace, server: string, reason: string, now: number): Promise<void> {
  const record = await readSignIn(kv, server);
  if (record !== null) await kv.put(mcpOAuthKey(server), JSON.stringify({ ...record, status: "needs_sign_in", reason, updatedAt: now } satisfies StoredSignIn));
}

export async function deleteSignIn(kv: KVNamespace, server: string): Promise<void> {
  await kv.delete(mcpOAuthKey(server));
}

export async function writeFlow(kv: KVNamespace, key: string, state: string, flow: Omit<StoredSignInFlow, "pending">, pending: PendingSignIn): Promise<void> {
  const name = mcpOAuthFlowKey(sha256Hex(state));
  const record: StoredSignInFlow = { ...flow, pending: await seal(key, name, JSON.stringify(pending)) };
  await kv.put(name, JSON.stringify(record), { expirationTtl: SIGN_IN_FLOW_TTL_SECONDS });
}

export async function readFlow(kv: KVNamespace, state: string): Promise<StoredSignInFlow | null> {
  const record = await kv.get<StoredSignInFlow>(mcpOAuthFlowKey(sha256Hex(state)), "json");
  // KV may keep a key up to a minute past its TTL; the record's own time decides.
  if (record === null || Date.now() - record.createdAt > SIGN_IN_FLOW_TTL_SECONDS * 1000) return null;
  return record;
}

export async function updateFlow(kv: KVNamespace, state: string, record: StoredSignInFlow): Promise<void> {
  const ttl = Math.max(60, SIGN_IN_FLOW_TTL_SECONDS - Math.floor((Date.now() - record.createdAt) / 1000));
  await kv.put(mcpOAuthFlowKey(sha256Hex(state)), JSON.stringify(record), { expirationTtl: ttl });
}

export async function deleteFlow(kv: KVNamespace, state: string): Promise<void> {
  await kv.delete(mcpOAuthFlowKey(sha256Hex(state)));
}

export async function openPending(key: string, state: string, record: StoredSignInFlow): Promise<PendingSignIn | undefined> {
  const text = await open(key, mcpOAuthFlowKey(sha256Hex(state)), record.pending);
  return text === undefined ? undefined : (JSON.parse(text) as PendingSignIn);
}

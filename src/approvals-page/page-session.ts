/**
 * Server-side sessions of the approvals page. The cookie holds only a random 256-bit id; KV holds
 * who signed in (as the key's digest, so every request can re-check the key), the CSRF token of
 * the session's forms, and when it ends.
 *
 * KV is eventually consistent: a sign-out deletes the record at once where it was made, and other
 * locations may still read it for up to about 60 s. Every request re-checks the key in D1, so a
 * revoked key ends its sessions everywhere at once; only a sign-out has that lag.
 */
import { z } from "zod";
import { hashApiKey } from "../auth/key-hash.ts";
import { approvalsPageSessionKey } from "../storage/keys.ts";
import { randomToken } from "./random-token.ts";

/** How long a sign-in lasts, whatever happens in between: one working day. */
export const PAGE_SESSION_TTL_SECONDS = 8 * 60 * 60;

const PageSessionSchema = z.object({
  /** SHA-256 of the key that signed in: what `verifyKeyDigest` re-checks on every request. */
  keyDigest: z.string(),
  keyId: z.string(),
  /** Every form of the session carries it; every POST must send it back. */
  csrfToken: z.string(),
  createdAt: z.number(),
  expiresAt: z.number(),
});

export type PageSession = z.infer<typeof PageSessionSchema>;

/** Starts a session; the returned id goes in the cookie and nowhere else. */
export async function createPageSession(kv: KVNamespace, input: { keyDigest: string; keyId: string }, now = Date.now()): Promise<{ id: string; session: PageSession }> {
  const id = randomToken();
  const session: PageSession = { ...input, csrfToken: randomToken(), createdAt: now, expiresAt: now + PAGE_SESSION_TTL_SECONDS * 1000 };
  await kv.put(approvalsPageSessionKey(hashApiKey(id)), JSON.stringify(session), { expirationTtl: PAGE_SESSION_TTL_SECONDS });
  return { id, session };
}

/**
 * The session behind a cookie's id, if it exists and has not ended. KV deletes expired keys
 * lazily, so the expiry is checked here too.
 */
export async function readPageSession(kv: KVNamespace, id: string, now = Date.now()): Promise<PageSession | undefined> {
  const stored = await kv.get(approvalsPageSessionKey(hashApiKey(id)), "json");
  const parsed = PageSessionSchema.safeParse(stored);
  if (!parsed.success || parsed.data.expiresAt <= now) return undefined;
  return parsed.data;
}

/** Ends a session (sign-out, or its key was revoked). */
export async function deletePageSession(kv: KVNamespace, id: string): Promise<void> {
  await kv.delete(approvalsPageSessionKey(hashApiKey(id)));
}

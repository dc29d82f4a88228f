/**
 * Sign-ins to the signed-in pages (approvals, admin console, chat: one sign-in opens each its
 * key's role may see), kept server-side. The cookie holds only a random 256-bit id;
 * KV holds who signed in (as the key's digest, so every request can re-check the key), the CSRF
 * token of the signed-in page's forms, and when the sign-in ends. (Not an agent's session: that
 * is the conversation id the approvals belong to.)
 *
 * KV is eventually consistent: a sign-out deletes the record at once where it was made, and other
 * locations may still read it for up to about 60 s. Every request re-checks the key in D1, so a
 * revoked key ends its sign-ins everywhere at once; only a sign-out has that lag.
 */
import { z } from "zod";
import { hashApiKey } from "../auth/key-hash.ts";
import { approvalsPageSignInKey } from "../storage/keys.ts";
import { randomToken } from "./random-token.ts";

/** How long a sign-in lasts, whatever happens in between: one working day. */
export const PAGE_SIGN_IN_TTL_SECONDS = 8 * 60 * 60;

const PageSignInSchema = z.object({
  /** SHA-256 of the key that signed in: what `verifyKeyDigest` re-checks on every request. */
  keyDigest: z.string(),
  keyId: z.string(),
  /** Every form of the signed-in page carries it; every POST must send it back. */
  csrfToken: z.string(),
  createdAt: z.number(),
  expiresAt: z.number(),
});

export type PageSignIn = z.infer<typeof PageSignInSchema>;

/** Records a sign-in; the returned id goes in the cookie and nowhere else. */
export async function createPageSignIn(
  kv: KVNamespace,
  input: { keyDigest: string; keyId: string },
  now = Date.now(),
): Promise<{ id: string; signIn: PageSignIn }> {
  const id = randomToken();
  const signIn: PageSignIn = { ...input, csrfToken: randomToken(), createdAt: now, expiresAt: now + PAGE_SIGN_IN_TTL_SECONDS * 1000 };
  await kv.put(approvalsPageSignInKey(hashApiKey(id)), JSON.stringify(signIn), { expirationTtl: PAGE_SIGN_IN_TTL_SECONDS });
  return { id, signIn };
}

/**
 * The sign-in behind a cookie's id, if it exists and has not ended. KV deletes expired keys
 * lazily, so the expiry is checked here too.
 */
export async function readPageSignIn(kv: KVNamespace, id: string, now = Date.now()): Promise<PageSignIn | undefined> {
  const stored = await kv.get(approvalsPageSignInKey(hashApiKey(id)), "json");
  const parsed = PageSignInSchema.safeParse(stored);
  if (!parsed.success || parsed.data.expiresAt <= now) return undefined;
  return parsed.data;
}

/** Ends a sign-in (sign-out, or its key was revoked). */
export async function deletePageSignIn(kv: KVNamespace, id: string): Promise<void> {
  await kv.delete(approvalsPageSignInKey(hashApiKey(id)));
}

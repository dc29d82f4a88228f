/** The admin console's tests' browser: the approvals page's client, signing in at /admin (an approver at /approvals). */

import { csrfOf, PageClient } from "../approvals-page/page-client.ts";
import { createKey } from "../support/create-key.ts";

export { csrfOf, ORIGIN, PageClient, SESSION_COOKIE } from "../approvals-page/page-client.ts";

/** Opens /admin/sign-in and signs in with `key`; returns the sign-in POST's response. */
export async function adminSignIn(client: PageClient, key: string, next?: string): Promise<Response> {
  await client.get("/admin/sign-in");
  return client.post("/admin/sign-in", { key, csrf: csrfOf(client.lastPage), ...(next === undefined ? {} : { next }) });
}

/**
 * A client signed in with a fresh key of `role`: an admin at the console's own sign-in, an
 * approver (whom the console refuses) at the approvals page's; the one sign-in reaches /admin either way.
 */
export async function signedInAs(role: "admin" | "approver"): Promise<{ client: PageClient; key: { id: string; key: string; name: string } }> {
  const name = `console-${role}-${crypto.randomUUID()}`;
  const key = await createKey({ name, role });
  const client = new PageClient();
  const response = role === "admin" ? await adminSignIn(client, key.key) : await client.signIn(key.key);
  if (response.status !== 303) throw new Error(`sign-in as ${role} answered ${response.status}: ${client.lastPage.slice(0, 300)}`);
  return { client, key: { ...key, name } };
}

/** The signed-in page's CSRF token, from the sign-out form any console page carries. */
export async function consoleCsrf(client: PageClient): Promise<string> {
  await client.get("/admin/no-such-page");
  return csrfOf(client.lastPage);
}

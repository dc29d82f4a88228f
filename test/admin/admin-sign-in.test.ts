/**
 * Who may use the admin console and the defences around its sign-in: roles, the __Host- cookie,
 * the headers and CSP, CSRF tokens and cross-site posts.
 */
import { describe, expect, it } from "vitest";
import { PageClient as ApprovalsClient } from "../approvals-page/page-client.ts";
import { createKey } from "../support/create-key.ts";
import { adminSignIn, consoleCsrf, csrfOf, PageClient, SESSION_COOKIE, signedInAs } from "./admin-client.ts";

describe("signing in to the admin console", () => {
  it("shows the sign-in page, under a CSP that allows no script at all, to a visitor without a session", async () => {
    const client = new PageClient();
    const response = await client.get("/admin");
    expect(response.status).toBe(401);
    expect(client.lastPage).toContain('action="/admin/sign-in"');
    expect(client.lastPage).toContain('<link rel="stylesheet" href="/admin/page.css"/>');
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain("script-src");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(client.lastPage).not.toContain("<script");
  });

  it("serves the console's stylesheet publicly, with the phone layout and the chart colours", async () => {
    const response = await new PageClient().get("/admin/page.css");
    expect(response.status).toBe(200);
    const css = await response.text();
    expect(css).toContain("@media (max-width: 40rem)");
    expect(css).toContain("figure.chart svg");
  });

  it("turns an admin key into the one __Host- sign-in cookie and shows the overview with every site's navigation", async () => {
    const key = await createKey({ name: `console-admin-${crypto.randomUUID()}`, role: "admin" });
    const client = new PageClient();
    const response = await adminSignIn(client, key.key);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/admin");
    const cookie = response.headers.getSetCookie().find((l) => l.startsWith(`${SESSION_COOKIE}=`)) ?? "";
    expect(cookie).toMatch(/; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
    expect((await client.get("/admin")).status).toBe(200);
    expect(client.lastPage).toContain('<nav class="site" aria-label="Sections">');
    expect(client.lastPage).toContain('href="/admin/keys"');
    expect(client.lastPage).toContain('href="/approvals"');
    expect(client.lastPage).toContain('href="/chat"');
  });

  it("refuses an approver's sign-in, and an agent key's, with the reason and without a cookie", async () => {
    const approver = await createKey({ name: `console-approver-${crypto.randomUUID()}`, role: "approver" });
    const refusedApprover = new PageClient();
    expect((await adminSignIn(refusedApprover, approver.key)).status).toBe(403);
    expect(refusedApprover.lastPage).toContain("has the approver role; the admin console needs an admin key");
    expect(refusedApprover.cookies.has(SESSION_COOKIE)).toBe(false);
    const agent = await createKey({ name: `console-agent-${crypto.randomUUID()}`, role: "agent" });
    const refused = new PageClient();
    expect((await adminSignIn(refused, agent.key)).status).toBe(403);
    expect(refused.lastPage).toContain("has the agent role; the admin console needs an admin key");
    expect(refused.cookies.has(SESSION_COOKIE)).toBe(false);
  });

  it("refuses a wrong or empty key without a cookie", async () => {
    const client = new PageClient();
    expect((await adminSignIn(client, "tg_not-a-real-key")).status).toBe(401);
    expect((await adminSignIn(client, "")).status).toBe(401);
    expect(client.cookies.has(SESSION_COOKIE)).toBe(false);
  });

  it("shares one sign-in with the approvals and chat pages: an admin signed in at /approvals opens all three", async () => {
    const key = await createKey({ name: `console-both-${crypto.randomUUID()}`, role: "admin" });
    const approvals = new ApprovalsClient();
    expect((await approvals.signIn(key.key)).status).toBe(303);
    for (const path of ["/admin", "/approvals", "/chat"]) expect((await approvals.get(path)).status).toBe(200);
  });

  it("refuses a signed-in approver the console with a 403 page that keeps the sign-in and links only its own pages", async () => {
    const { client } = await signedInAs("approver");
    const refused = await client.get("/admin/audit");
    expect(refused.status).toBe(403);
    expect(client.lastPage).toContain("has the approver role; the admin console needs an admin key.");
    expect(client.lastPage).toContain('href="/approvals"');
    expect(client.lastPage).toContain('href="/chat"');
    expect(client.lastPage).not.toContain('href="/admin/keys"');
    expect(client.lastPage).not.toContain('action="/admin/sign-in"');
    expect(client.cookies.has(SESSION_COOKIE)).toBe(true);
    // A change is refused the same way, before its token is even looked at.
    expect((await client.post("/admin/keys", { name: `by-approver-${crypto.randomUUID()}`, role: "agent", csrf: csrfOf(client.lastPage) })).status).toBe(403);
    expect((await client.get("/approvals")).status).toBe(200);
  });

  it("asks a browser holding only a cookie of the per-page sign-ins that came before to sign in again", async () => {
    const { client } = await signedInAs("admin");
    const id = client.cookies.get(SESSION_COOKIE) ?? "";
    const old = new PageClient();
    for (const name of ["__Host-toolgate-admin", "__Host-toolgate-approvals", "__Host-toolgate-chat"]) old.cookies.set(name, id);
    expect((await old.get("/admin")).status).toBe(401);
    expect(old.lastPage).toContain('action="/admin/sign-in"');
  });

  it("sends a post-sign-in visitor back only to a console page", async () => {
    const key = await createKey({ name: `console-next-${crypto.randomUUID()}`, role: "admin" });
    expect((await adminSignIn(new PageClient(), key.key, "/admin/keys")).headers.get("location")).toBe("/admin/keys");
    for (const next of ["//evil.example/admin", "/approvals", "/admin/../v1/keys", "https://evil.example"]) {
      expect((await adminSignIn(new PageClient(), key.key, next)).headers.get("location")).toBe("/admin");
    }
  });

  it("ends the sign-in when its key is revoked", async () => {
    const { client, key } = await signedInAs("admin");
    const other = await signedInAs("admin");
    const csrf = await consoleCsrf(other.client);
    expect((await other.client.post(`/admin/keys/${key.id}/revoke`, { csrf })).status).toBe(303);
    expect((await client.get("/admin")).status).toBe(401);
    expect(client.lastPage).toContain("was revoked");
  });
});

describe("the console's forms", () => {
  it("refuse a post without the sign-in's CSRF token, or with a wrong one, and change nothing", async () => {
    const { client } = await signedInAs("admin");
    const name = `csrf-${crypto.randomUUID()}`;
    expect((await client.post("/admin/keys", { name, role: "agent" })).status).toBe(403);
    expect(client.lastPage).toContain("security token is missing or wrong");
    expect((await client.post("/admin/keys", { name, role: "agent", csrf: "A".repeat(43) })).status).toBe(403);
    await client.get("/admin/keys");
    expect(client.lastPage).not.toContain(name);
  });

  it("refuse a post a browser says came from another site, even with the right token", async () => {
    const { client } = await signedInAs("admin");
    const csrf = await consoleCsrf(client);
    const name = `cross-${crypto.randomUUID()}`;
    expect((await client.post("/admin/keys", { name, role: "agent", csrf }, { origin: "https://evil.example" })).status).toBe(403);
    expect(client.lastPage).toContain("sent from another site");
    expect((await client.post("/admin/keys", { name, role: "agent", csrf }, { "sec-fetch-site": "cross-site" })).status).toBe(403);
    await client.get("/admin/keys");
    expect(client.lastPage).not.toContain(name);
  });

  it("refuse a sign-in form without its own token", async () => {
    const key = await createKey({ name: `console-form-${crypto.randomUUID()}`, role: "admin" });
    const client = new PageClient();
    await client.get("/admin/sign-in");
    expect((await client.post("/admin/sign-in", { key: key.key })).status).toBe(403);
    expect(csrfOf(client.lastPage)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("refuse a form larger than 16 KiB", async () => {
    const { client } = await signedInAs("admin");
    const csrf = await consoleCsrf(client);
    expect((await client.post("/admin/keys", { csrf, name: "x".repeat(20_000), role: "agent" })).status).toBe(413);
  });

  it("sign out, ending the sign-in", async () => {
    const { client } = await signedInAs("admin");
    const csrf = await consoleCsrf(client);
    expect((await client.post("/admin/sign-out", { csrf })).status).toBe(303);
    expect((await client.get("/admin")).status).toBe(401);
  });

  it("answer an unknown console path with a page, not a trace", async () => {
    const { client } = await signedInAs("admin");
    expect((await client.get("/admin/nothing/here")).status).toBe(404);
    expect(client.lastPage).toContain("There is no page at /admin/nothing/here.");
  });
});

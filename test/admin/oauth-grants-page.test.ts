/**
 * OAuth grants on the keys page: listed apart from keys, revocable by admins through
 * DELETE /v1/keys/{id}, which ends the grant's tokens; approvers only look.
 */
import { describe, expect, it } from "vitest";
import { signedInClient, tokenRequest } from "../oauth/oauth-client.ts";
import { api } from "../support/api.ts";
import { consoleCsrf, signedInAs } from "./admin-client.ts";

interface KeyRow {
  id: string;
  kind: string;
  oauth_client_id: string | null;
}

describe("OAuth grants on the keys page", () => {
  it("lists a grant apart from keys; an admin revokes it and its refresh token stops working", async () => {
    const { clientId, tokens } = await signedInClient(["core"]);
    const grant = ((await (await api("/v1/keys")).json()) as { keys: KeyRow[] }).keys.find((k) => k.oauth_client_id === clientId);
    expect(grant?.kind).toBe("oauth_grant");
    const id = grant?.id ?? "";

    const approver = await signedInAs("approver");
    expect((await approver.client.get("/admin/keys")).status).toBe(403);

    const { client } = await signedInAs("admin");
    await client.get("/admin/keys");
    const grants = /<section aria-labelledby="grants-heading">[\s\S]*?<\/section>/.exec(client.lastPage)?.[0] ?? "";
    const row = new RegExp(`<tr data-grant-id="${id}">[\\s\\S]*?</tr>`).exec(grants)?.[0] ?? "";
    expect(row).toContain(clientId);
    expect(row).toContain("core");
    expect(row).toContain("active");
    // Not among the keys.
    expect(client.lastPage).not.toContain(`data-key-id="${id}"`);

    expect((await client.post(`/admin/keys/${id}/revoke`, {})).status).toBe(403);
    const revoked = await client.post(`/admin/keys/${id}/revoke`, { csrf: await consoleCsrf(client) });
    expect(revoked.status).toBe(303);
    const refreshed = await tokenRequest({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: clientId });
    expect(refreshed.status).toBe(400);
    await client.get("/admin/keys");
    const after = new RegExp(`<tr data-grant-id="${id}">[\\s\\S]*?</tr>`).exec(client.lastPage)?.[0] ?? "";
    expect(after).toContain("revoked");
    expect(after).not.toContain("Revoke the grant");
  });
});

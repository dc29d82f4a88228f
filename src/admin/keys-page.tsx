/** @jsxImportSource hono/jsx */
/**
 * API keys: the list, the create form, the new key shown once, revoke; OAuth grants apart. The page only gathers
 * what a person typed; POST /v1/keys and DELETE /v1/keys/{id} check it (api-request.ts).
 */

import type { z } from "@hono/zod-openapi";
import type { FC } from "hono/jsx";
import { CsrfField, Layout, type Viewer } from "../approvals-page/layout.tsx";
import type { ApiKeySchema, CreatedKeySchema } from "../auth/keys-schemas.ts";
import { ROLES } from "../auth/principal.ts";
import { ADMIN_BASE, ADMIN_SITE } from "./admin-site.ts";
import { Notices } from "./notices.tsx";
import { PostButton } from "./post-button.tsx";
import { TableHead } from "./table-head.tsx";

export type KeyWire = z.infer<typeof ApiKeySchema>;
export type CreatedKeyWire = z.infer<typeof CreatedKeySchema>;

/** What the create form had in it, to show again after a refusal. */
export type KeyFormValues = Partial<Record<"name" | "role" | "toolsets" | "policy_mode" | "patterns" | "rate_limit", string>>;

const policyText = (k: KeyWire) =>
  k.policy.patterns.length === 0 ? (k.policy.mode === "deny" ? "all tools" : "no tools") : `${k.policy.mode}: ${k.policy.patterns.join(", ")}`;

/** Toolsets, policy and rate limit of one key, prefilled, behind a disclosure. */
const AccessForm: FC<{ k: KeyWire; viewer: Viewer }> = ({ k, viewer }) => {
  const id = (field: string) => `a-${field}-${k.id}`;
  return (
    <details>
      <summary>Change access</summary>
      <form method="post" action={`${ADMIN_BASE}/keys/${encodeURIComponent(k.id)}/access`}>
        <CsrfField token={viewer.csrfToken} />
        <div class="field">
          <label for={id("toolsets")}>Toolsets (empty for all)</label>
          <input id={id("toolsets")} name="toolsets" type="text" value={k.toolsets === null ? "" : k.toolsets.join(", ")} autocomplete="off" />
        </div>
        <div class="field">
          <label for={id("policy")}>Policy</label>
          <select id={id("policy")} name="policy_mode">
            <option value="deny" selected={k.policy.mode === "deny"}>
              deny the listed tools
            </option>
            <option value="whitelist" selected={k.policy.mode === "whitelist"}>
              allow only the listed tools
            </option>
          </select>
        </div>
        <div class="field">
          <label for={id("patterns")}>Tools or globs</label>
          <input id={id("patterns")} name="patterns" type="text" value={k.policy.patterns.join(", ")} autocomplete="off" />
        </div>
        <div class="field">
          <label for={id("rate")}>Calls per minute (empty for the default)</label>
          <input
            id={id("rate")}
            name="rate_limit"
            type="text"
            inputmode="numeric"
            value={k.rate_limit_per_minute === null ? "" : String(k.rate_limit_per_minute)}
            autocomplete="off"
          />
        </div>
        <button type="submit" aria-label={`Save access of ${k.name}`}>
          Save
        </button>
      </form>
    </details>
  );
};

const KeyRow: FC<{ k: KeyWire; viewer: Viewer }> = ({ k, viewer }) => (
  <tr data-key-id={k.id}>
    <td>
      {k.name}
      <div class="muted id">{k.id}</div>
    </td>
    <td>{k.role}</td>
    <td>
      <code>{k.prefix}</code>
    </td>
    <td>{k.toolsets === null ? "all" : k.toolsets.length === 0 ? "none" : k.toolsets.join(", ")}</td>
    <td>{policyText(k)}</td>
    <td>{k.rate_limit_per_minute === null ? "default" : `${k.rate_limit_per_minute}/min`}</td>
    <td>{k.revoked_at === null ? <span class="status approved">active</span> : <span class="status denied">revoked {k.revoked_at}</span>}</td>
    <td>
      {k.revoked_at !== null || viewer.role !== "admin" ? null : (
        <>
          <form method="post" action={`${ADMIN_BASE}/keys/${encodeURIComponent(k.id)}/revoke`}>
            <CsrfField token={viewer.csrfToken} />
            <button type="submit" class="deny" aria-label={`Revoke ${k.name}`}>
              Revoke
            </button>
          </form>
          <AccessForm k={k} viewer={viewer} />
        </>
      )}
    </td>
  </tr>
);

const CreateForm: FC<{ viewer: Viewer; values: KeyFormValues }> = ({ viewer, values }) => (
  <form method="post" action={`${ADMIN_BASE}/keys`} class="card filters">
    <CsrfField token={viewer.csrfToken} />
    <div class="field">
      <label for="k-name">Name</label>
      <input id="k-name" name="name" type="text" required maxlength={100} value={values.name ?? ""} autocomplete="off" />
    </div>
    <div class="field">
      <label for="k-role">Role</label>
      <select id="k-role" name="role">
        {ROLES.map((r) => (
          <option value={r} selected={(values.role ?? "agent") === r}>
            {r}
          </option>
        ))}
      </select>
    </div>
    <div class="field">
      <label for="k-toolsets">Toolsets (comma-separated; empty for all)</label>
      <input id="k-toolsets" name="toolsets" type="text" value={values.toolsets ?? ""} autocomplete="off" />
    </div>
    <div class="field">
      <label for="k-policy">Policy</label>
      <select id="k-policy" name="policy_mode">
        <option value="deny" selected={values.policy_mode !== "whitelist"}>
          deny the listed tools
        </option>
        <option value="whitelist" selected={values.policy_mode === "whitelist"}>
          allow only the listed tools
        </option>
      </select>
    </div>
    <div class="field">
      <label for="k-patterns">Tools or globs (comma-separated)</label>
      <input id="k-patterns" name="patterns" type="text" value={values.patterns ?? ""} autocomplete="off" />
    </div>
    <div class="field">
      <label for="k-rate">Calls per minute (empty for the default)</label>
      <input id="k-rate" name="rate_limit" type="text" inputmode="numeric" value={values.rate_limit ?? ""} autocomplete="off" />
    </div>
    <button type="submit" class="approve">
      Create key
    </button>
  </form>
);

/** OAuth grants: a person's consent to an MCP client, listed apart from keys; revoking one ends its tokens. */
const GrantsSection: FC<{ grants: readonly KeyWire[]; viewer: Viewer }> = ({ grants, viewer }) => (
  <section aria-labelledby="grants-heading">
    <h2 id="grants-heading">OAuth grants ({grants.length})</h2>
    {grants.length === 0 ? (
      <p class="muted">No MCP client has been granted access through /oauth/authorize.</p>
    ) : (
      <div class="table-scroll">
        <table>
          <TableHead columns={["Client", "Granted by", "Toolsets", "Granted", "State", "Action"]} />
          <tbody>
            {grants.map((g) => (
              <tr data-grant-id={g.id}>
                <td>
                  {g.name}
                  <div class="muted id">{g.oauth_client_id ?? ""}</div>
                </td>
                <td>{g.created_by}</td>
                <td>{g.toolsets === null ? "all" : g.toolsets.length === 0 ? "none" : g.toolsets.join(", ")}</td>
                <td>{g.created_at}</td>
                <td>{g.revoked_at === null ? <span class="status approved">active</span> : <span class="status denied">revoked {g.revoked_at}</span>}</td>
                <td>
                  {g.revoked_at !== null || viewer.role !== "admin" ? null : (
                    <PostButton
                      viewer={viewer}
                      action={`${ADMIN_BASE}/keys/${encodeURIComponent(g.id)}/revoke`}
                      label="Revoke"
                      ariaLabel={`Revoke the grant to ${g.name}`}
                      kind="deny"
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )}
  </section>
);

export interface KeysPageProps {
  viewer: Viewer;
  keys: readonly KeyWire[];
  values?: KeyFormValues;
  /** The API's refusal of the last form, shown above it. */
  error?: string | undefined;
  /** A key just created: the only time it is ever shown. */
  created?: CreatedKeyWire | undefined;
  /** A notice of what the last action did. */
  done?: string | undefined;
}

export const KeysPage: FC<KeysPageProps> = ({ viewer, keys, values = {}, error, created, done }) => (
  <Layout title="API keys" viewer={viewer} site={ADMIN_SITE}>
    <h2>API keys</h2>
    <Notices done={done} error={error} />
    {created === undefined ? null : (
      <div class="notice ok" role="status">
        <p>
          Key <strong>{created.name}</strong> created. Copy it now: it is shown only this once, and only its digest is kept.
        </p>
        <p class="secret" id="new-key" data-new-key>
          {created.key}
        </p>
      </div>
    )}
    {viewer.role === "admin" ? (
      <section aria-labelledby="create-heading">
        <h2 id="create-heading">Create a key</h2>
        <CreateForm viewer={viewer} values={values} />
      </section>
    ) : null}
    <section aria-labelledby="list-heading">
      <h2 id="list-heading">All keys ({keys.filter((k) => k.kind !== "oauth_grant").length})</h2>
      <div class="table-scroll">
        <table>
          <TableHead columns={["Name", "Role", "Prefix", "Toolsets", "Policy", "Rate limit", "State", "Action"]} />
          <tbody>
            {keys
              .filter((k) => k.kind !== "oauth_grant")
              .map((k) => (
                <KeyRow k={k} viewer={viewer} />
              ))}
          </tbody>
        </table>
      </div>
    </section>
    <GrantsSection grants={keys.filter((k) => k.kind === "oauth_grant")} viewer={viewer} />
  </Layout>
);

/** @jsxImportSource hono/jsx */
/**
 * Remote MCP servers: each with its state (enabled, signed in or needing sign-in, last error),
 * the tools it offers and those refused with the reason; admins add, enable or disable, refresh,
 * sign in and remove, each through the /v1/mcp-servers route (api-request.ts).
 */

import type { z } from "@hono/zod-openapi";
import type { FC } from "hono/jsx";
import { CsrfField, Layout, type Viewer } from "../approvals-page/layout.tsx";
import type { McpServerStatusSchema } from "../mcp/federation/mcp-servers-schemas.ts";
import { ADMIN_BASE, ADMIN_SITE } from "./admin-site.ts";
import { Notices } from "./notices.tsx";
import { PostButton } from "./post-button.tsx";
import { TableHead } from "./table-head.tsx";

export type McpServerWire = z.infer<typeof McpServerStatusSchema>;

/** What the add form had in it, to show again after a refusal. */
export type McpServerFormValues = Partial<Record<"name" | "url" | "headers" | "pin", string>>;

export const serverHref = (name: string) => `${ADMIN_BASE}/mcp-servers/${encodeURIComponent(name)}`;

/** A button posting to one of a server's actions. */
const Action: FC<{ viewer: Viewer; server: string; action: string; label: string; danger?: boolean }> = ({ viewer, server, action, label, danger }) => (
  <PostButton
    viewer={viewer}
    action={`${serverHref(server)}/${action}`}
    label={label}
    ariaLabel={`${label} ${server}`}
    {...(danger === true ? { kind: "deny" as const } : {})}
  />
);

const AuthState: FC<{ server: McpServerWire; viewer: Viewer }> = ({ server, viewer }) => {
  const { auth } = server;
  if (auth.status === "signed_in") return <div class="muted">signed in{auth.signed_in_by === null ? "" : ` by ${auth.signed_in_by}`}</div>;
  if (auth.status !== "needs_sign_in") return null;
  return (
    <div>
      <span class="status pending">needs sign-in</span>
      {auth.reason === null ? null : <div class="muted">{auth.reason}</div>}
      {auth.sign_in_url === null ? null : (
        <p>
          <a href={auth.sign_in_url} rel="noreferrer">
            Sign in at {server.name}
          </a>
        </p>
      )}
      {viewer.role === "admin" && server.auth.sign_in_url === null ? (
        <Action viewer={viewer} server={server.name} action="sign-in" label="Start sign-in" />
      ) : null}
    </div>
  );
};

const ServerCard: FC<{ server: McpServerWire; viewer: Viewer }> = ({ server, viewer }) => (
  <section class="card" aria-label={`MCP server ${server.name}`} data-server={server.name}>
    <h3>
      {server.name} <span class="muted">{server.url}</span>
    </h3>
    <dl class="facts">
      <dt>State</dt>
      <dd>
        {server.enabled ? <span class="status approved">enabled</span> : <span class="status denied">disabled</span>}
        <AuthState server={server} viewer={viewer} />
      </dd>
      <dt>Configured</dt>
      <dd>{server.source === "config" ? "in MCP_SERVERS (change it there)" : "through the API"}</dd>
      <dt>Header secrets</dt>
      <dd>
        {Object.keys(server.headers).length === 0
          ? "none"
          : Object.entries(server.headers)
              .map(([header, ref]) => `${header} ← ${ref.secret}`)
              .join(", ")}
      </dd>
      <dt>Tool list</dt>
      <dd>{server.list_fetched_at === null ? "never fetched" : `fetched ${server.list_fetched_at}`}</dd>
      <dt>Last error</dt>
      <dd>{server.last_error === null ? "none" : <span class="error-text">{`${server.last_error.at}: ${server.last_error.message}`}</span>}</dd>
    </dl>
    <div class="table-scroll">
      <table>
        <TableHead columns={["Tool offered", "Remote name", "Pin"]} />
        <tbody>
          {server.tools.map((tool) => (
            <tr data-tool={tool.name}>
              <td>
                <a href={`${ADMIN_BASE}/tools/${encodeURIComponent(tool.name)}`}>{tool.name}</a>
              </td>
              <td>
                <code>{tool.remote_name}</code>
              </td>
              <td>{tool.pin.status}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
    {server.problems.length === 0 ? null : (
      <>
        <h4>Refused tools</h4>
        <ul class="problems">
          {server.problems.map((problem) => (
            <li>{problem}</li>
          ))}
        </ul>
      </>
    )}
    {viewer.role !== "admin" || server.source === "config" ? null : (
      <div class="actions">
        <Action viewer={viewer} server={server.name} action={server.enabled ? "disable" : "enable"} label={server.enabled ? "Disable" : "Enable"} />
        <Action viewer={viewer} server={server.name} action="refresh" label="Refresh" />
        <Action viewer={viewer} server={server.name} action="remove" label="Remove" danger />
      </div>
    )}
  </section>
);

const AddForm: FC<{ viewer: Viewer; values: McpServerFormValues }> = ({ viewer, values }) => (
  <form method="post" action={`${ADMIN_BASE}/mcp-servers`} class="card filters">
    <CsrfField token={viewer.csrfToken} />
    <div class="field">
      <label for="m-name">Name</label>
      <input id="m-name" name="name" type="text" required maxlength={32} value={values.name ?? ""} autocomplete="off" />
    </div>
    <div class="field">
      <label for="m-url">URL of its MCP endpoint</label>
      <input id="m-url" name="url" type="url" required value={values.url ?? ""} autocomplete="off" />
    </div>
    <div class="field">
      <label for="m-headers">Headers from secrets, one per line: Header-Name: SECRET_NAME</label>
      <textarea id="m-headers" name="headers" rows={3}>
        {values.headers ?? ""}
      </textarea>
    </div>
    <div class="field">
      <label for="m-pin">A changed tool definition</label>
      <select id="m-pin" name="pin">
        <option value="warn" selected={values.pin !== "block"}>
          is flagged
        </option>
        <option value="block" selected={values.pin === "block"}>
          is blocked until accepted
        </option>
      </select>
    </div>
    <button type="submit" class="approve">
      Add server
    </button>
  </form>
);

export interface McpServersPageProps {
  viewer: Viewer;
  servers: readonly McpServerWire[];
  values?: McpServerFormValues;
  error?: string | undefined;
  done?: string | undefined;
  /** A sign-in link just started for a server: shown once, as the API answers it once. */
  signIn?: { server: string; url: string } | undefined;
}

export const McpServersPage: FC<McpServersPageProps> = ({ viewer, servers, values = {}, error, done, signIn }) => (
  <Layout title="MCP servers" viewer={viewer} site={ADMIN_SITE}>
    <h2>MCP servers ({servers.length})</h2>
    <Notices done={done} error={error} />
    {signIn === undefined ? null : (
      <p class="notice ok" role="status">
        {`${signIn.server} needs a person to sign in, once, within 10 minutes: `}
        <a href={signIn.url} rel="noreferrer" data-sign-in>
          sign in at {signIn.server}
        </a>
      </p>
    )}
    {viewer.role === "admin" ? (
      <section aria-labelledby="add-heading">
        <h2 id="add-heading">Add a server</h2>
        <AddForm viewer={viewer} values={values} />
      </section>
    ) : null}
    {servers.map((server) => (
      <ServerCard server={server} viewer={viewer} />
    ))}
  </Layout>
);

/** @jsxImportSource hono/jsx */
/**
 * The OAuth consent page: which app asks, where its access will be sent, and which toolsets to
 * grant it. Everything the client chose (its name, its redirect URI) came from its registration,
 * so an attacker may have chosen it: hono/jsx escapes every value, and the name is said to be
 * unverified, since dynamic registration lets any app call itself anything.
 */
import type { ConsentDescription } from "@cloudflare/workers-oauth-provider";
import type { FC } from "hono/jsx";
import { CsrfField, Layout, type Viewer } from "../approvals-page/layout.tsx";
import { AUTHORIZE_PATH } from "./oauth-paths.ts";

export interface ConsentPageProps {
  viewer: Viewer;
  details: ConsentDescription;
  /** The consent transaction's handle: the only thing the form carries about the request. */
  handle: string;
  /** Toolsets the signed-in person may grant. */
  toolsets: readonly string[];
  /** The one toolset a toolset's own door asks for; undefined for /mcp. */
  door: string | undefined;
  message?: string | undefined;
}

export const ConsentPage: FC<ConsentPageProps> = ({ viewer, details, handle, toolsets, door, message }) => (
  <Layout title={`Allow ${details.clientName}?`} viewer={viewer}>
    <h2>Allow {details.clientName} to use toolgate's tools?</h2>
    {message === undefined ? null : (
      <p class="notice error" role="alert">
        {message}
      </p>
    )}
    <section class="card">
      <dl class="facts">
        <dt>App</dt>
        <dd>
          {details.clientName} <span class="muted">(the name the app gave itself; not verified)</span>
        </dd>
        <dt>Access goes to</dt>
        <dd>
          <strong>{details.redirectHost}</strong>
        </dd>
        <dt>MCP server</dt>
        <dd>{door === undefined ? "/mcp (every toolset granted below)" : `/mcp/${door} (the ${door} toolset only)`}</dd>
      </dl>
      {details.redirectIsLoopback ? (
        <p class="notice error">
          This sends access to an app on your own computer ({details.redirectHost}). Continue only if you just started signing in from that app: any program on
          the computer could be listening there.
        </p>
      ) : null}
      <p class="muted">
        The app gets an agent's access to the toolsets you pick, under approvals and policy like any agent key. Its calls are audited as this grant; an admin
        can revoke it any time in GET /v1/keys (DELETE /v1/keys/{"{id}"}), which ends its tokens at once.
      </p>
    </section>
    <form method="post" action={AUTHORIZE_PATH} class="card">
      <CsrfField token={viewer.csrfToken} />
      <input type="hidden" name="handle" value={handle} />
      <fieldset class="toolsets">
        <legend>Toolsets to grant</legend>
        {toolsets.length === 0 ? <p class="muted">Your key may grant no toolset here.</p> : null}
        {toolsets.map((name) => (
          <label>
            <input type="checkbox" name="toolset" value={name} checked={door !== undefined} /> {name}
          </label>
        ))}
      </fieldset>
      <div class="actions">
        <button type="submit" name="decision" value="approve" class="approve">
          Allow
        </button>
        <button type="submit" name="decision" value="deny" class="deny">
          Deny
        </button>
      </div>
    </form>
  </Layout>
);

/** @jsxImportSource hono/jsx */
/**
 * OpenAPI sources added at run time: each with its pinned spec, the tools it serves, operations
 * left out and why, and a changed spec awaiting acceptance with what moved (added, removed,
 * changed tools). Admins add, enable or disable, refresh, accept and remove, each through the
 * /v1/openapi-sources route (api-request.ts).
 */
import type { FC } from "hono/jsx";
import { CsrfField, Layout, type Viewer } from "../approvals-page/layout.tsx";
import type { OpenApiSourceStatus } from "../openapi-sources/openapi-sources-schemas.ts";
import { ADMIN_BASE, ADMIN_SITE } from "./admin-site.ts";
import { Notices } from "./notices.tsx";
import { PostButton } from "./post-button.tsx";

/** What the add form had in it, to show again after a refusal. */
export type OpenApiSourceFormValues = Partial<Record<"name" | "spec_url" | "base_url" | "bearer_secret", string>>;

export const sourceHref = (name: string) => `${ADMIN_BASE}/openapi-sources/${encodeURIComponent(name)}`;

const Action: FC<{ viewer: Viewer; source: string; action: string; label: string; danger?: boolean }> = ({ viewer, source, action, label, danger }) => (
  <PostButton
    viewer={viewer}
    action={`${sourceHref(source)}/${action}`}
    label={label}
    ariaLabel={`${label} ${source}`}
    {...(danger === true ? { kind: "deny" as const } : {})}
  />
);

const NameList: FC<{ title: string; names: readonly string[] }> = ({ title, names }) =>
  names.length === 0 ? null : (
    <>
      <dt>{title}</dt>
      <dd>
        {names.map((name) => (
          <code>{name} </code>
        ))}
      </dd>
    </>
  );

const SourceCard: FC<{ source: OpenApiSourceStatus; viewer: Viewer }> = ({ source, viewer }) => {
  const { pinned, pending } = source;
  return (
    <section class="card" aria-label={`OpenAPI source ${source.name}`} data-source={source.name}>
      <h3>
        {source.name} <span class="muted">{pinned.title}</span>
      </h3>
      <dl class="facts">
        <dt>State</dt>
        <dd>{source.enabled ? <span class="status approved">enabled</span> : <span class="status denied">disabled</span>}</dd>
        <dt>Spec</dt>
        <dd>
          {"url" in source.config.spec ? source.config.spec.url : source.config.spec.file} ({pinned.spec_version}), pinned{" "}
          <code>{pinned.sha256.slice(0, 12)}</code> fetched {pinned.fetched_at}
        </dd>
        <dt>Calls go to</dt>
        <dd>{pinned.base_url}</dd>
        <dt>Auth</dt>
        <dd>{source.config.auth.type}</dd>
        <dt>Tools</dt>
        <dd>
          {source.tools.length} of {pinned.operations} operations, toolset <code>{source.toolset}</code>
        </dd>
      </dl>
      {pending === undefined ? null : (
        <section class="notice" aria-label={`Changed definitions of ${source.name}`} data-pending={pending.sha256}>
          <h4>The spec changed: not served until accepted</h4>
          <p class="muted">
            Fetched {pending.fetched_at}, <code>{pending.sha256.slice(0, 12)}</code>, {pending.operations} operations.
          </p>
          <dl class="facts">
            <NameList title="Added" names={pending.changes.added} />
            <NameList title="Removed" names={pending.changes.removed} />
            <NameList title="Changed" names={pending.changes.changed} />
          </dl>
          {viewer.role === "admin" ? <Action viewer={viewer} source={source.name} action="accept" label="Accept changes" /> : null}
        </section>
      )}
      {source.tools.length === 0 ? null : (
        <details>
          <summary>Tools served</summary>
          <ul>
            {source.tools.map((tool) => (
              <li>
                <a href={`${ADMIN_BASE}/tools/${encodeURIComponent(tool)}`}>{tool}</a>
              </li>
            ))}
          </ul>
        </details>
      )}
      {pinned.problems.length + source.problems.length === 0 ? null : (
        <>
          <h4>Operations left out</h4>
          <ul class="problems">
            {[...pinned.problems, ...source.problems].map((problem) => (
              <li>{problem}</li>
            ))}
          </ul>
        </>
      )}
      {viewer.role !== "admin" ? null : (
        <div class="actions">
          <Action viewer={viewer} source={source.name} action={source.enabled ? "disable" : "enable"} label={source.enabled ? "Disable" : "Enable"} />
          <Action viewer={viewer} source={source.name} action="refresh" label="Refresh" />
          <Action viewer={viewer} source={source.name} action="remove" label="Remove" danger />
        </div>
      )}
    </section>
  );
};

const AddForm: FC<{ viewer: Viewer; values: OpenApiSourceFormValues }> = ({ viewer, values }) => (
  <form method="post" action={`${ADMIN_BASE}/openapi-sources`} class="card filters">
    <CsrfField token={viewer.csrfToken} />
    <div class="field">
      <label for="o-name">Name</label>
      <input id="o-name" name="name" type="text" required maxlength={24} value={values.name ?? ""} autocomplete="off" />
    </div>
    <div class="field">
      <label for="o-spec">URL of its OpenAPI spec</label>
      <input id="o-spec" name="spec_url" type="url" required value={values.spec_url ?? ""} autocomplete="off" />
    </div>
    <div class="field">
      <label for="o-base">Base URL of calls (when the spec's own server is not the one)</label>
      <input id="o-base" name="base_url" type="url" value={values.base_url ?? ""} autocomplete="off" />
    </div>
    <div class="field">
      <label for="o-bearer">Bearer token from the secret (its name; other auth through the API)</label>
      <input id="o-bearer" name="bearer_secret" type="text" value={values.bearer_secret ?? ""} autocomplete="off" />
    </div>
    <button type="submit" class="approve">
      Add source
    </button>
  </form>
);

export interface OpenApiSourcesPageProps {
  viewer: Viewer;
  sources: readonly OpenApiSourceStatus[];
  values?: OpenApiSourceFormValues;
  error?: string | undefined;
  done?: string | undefined;
}

export const OpenApiSourcesPage: FC<OpenApiSourcesPageProps> = ({ viewer, sources, values = {}, error, done }) => (
  <Layout title="OpenAPI sources" viewer={viewer} site={ADMIN_SITE}>
    <h2>OpenAPI sources ({sources.length})</h2>
    <p class="muted">Sources added at run time. Those in apis/ ship with the Worker and are listed with the tools.</p>
    <Notices done={done} error={error} />
    {viewer.role === "admin" ? (
      <section aria-labelledby="add-heading">
        <h2 id="add-heading">Add a source</h2>
        <AddForm viewer={viewer} values={values} />
      </section>
    ) : null}
    {sources.map((source) => (
      <SourceCard source={source} viewer={viewer} />
    ))}
  </Layout>
);

/** @jsxImportSource hono/jsx */
/**
 * Every tool the signed-in key may use, grouped by toolset: available or why not, the last day's
 * calls and error rate from the audit log, and (admins) a re-check; one tool's page shows its
 * definition in the three shapes and, for a remote tool, its pin status.
 */
import type { FC } from "hono/jsx";
import { ArgumentsBlock } from "../approvals-page/approval-card.tsx";
import { CsrfField, Layout, type Viewer } from "../approvals-page/layout.tsx";
import type { CallStats } from "../audit/audit-stats.ts";
import { ADMIN_BASE, ADMIN_SITE } from "./admin-site.ts";
import { type Loaded, whenLoaded } from "./loaded.tsx";
import { Notices } from "./notices.tsx";
import { PostButton } from "./post-button.tsx";
import { TableHead } from "./table-head.tsx";

/** A row of GET /v1/health/tools. */
export interface ToolHealthWire {
  name: string;
  toolset: string;
  available: boolean;
  reason: string | null;
  checked_at: string | null;
  has_check: boolean;
  requires_env: string[];
}

const toolHref = (name: string) => `${ADMIN_BASE}/tools/${encodeURIComponent(name)}`;

const Recheck: FC<{ viewer: Viewer; tool?: string }> = ({ viewer, tool }) =>
  viewer.role !== "admin" ? null : (
    <form method="post" action={`${ADMIN_BASE}/tools/recheck`}>
      <CsrfField token={viewer.csrfToken} />
      {tool === undefined ? null : <input type="hidden" name="tool" value={tool} />}
      <button type="submit">{tool === undefined ? "Re-check every tool" : `Re-check ${tool}`}</button>
    </form>
  );

export const ToolsPage: FC<{ viewer: Viewer; tools: readonly ToolHealthWire[]; stats: Loaded<ReadonlyMap<string, CallStats>>; done?: string | undefined }> = ({
  viewer,
  tools,
  stats,
  done,
}) => {
  const groups = new Map<string, ToolHealthWire[]>();
  for (const tool of tools) groups.set(tool.toolset, [...(groups.get(tool.toolset) ?? []), tool]);
  return (
    <Layout title="Tools" viewer={viewer} site={ADMIN_SITE}>
      <h2>Tools ({tools.length})</h2>
      <Notices done={done} />
      <Recheck viewer={viewer} />
      {whenLoaded(stats, () => null)}
      {[...groups]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([toolset, members]) => (
          <section aria-label={`Toolset ${toolset}`}>
            <h2>{toolset}</h2>
            <div class="table-scroll">
              <table>
                <TableHead columns={["Tool", "State", "Calls (day)", "Error rate"]} />
                <tbody>
                  {members.map((t) => {
                    const s = stats.ok ? stats.value.get(t.name) : undefined;
                    return (
                      <tr data-tool={t.name}>
                        <td>
                          <a href={toolHref(t.name)}>{t.name}</a>
                        </td>
                        <td>
                          {t.available ? <span class="status approved">available</span> : <span class="status denied">unavailable</span>}
                          {t.reason === null ? null : <div class="muted">{t.reason}</div>}
                        </td>
                        <td>{s?.calls ?? 0}</td>
                        <td>{s === undefined || s.calls === 0 ? "–" : `${(s.errorRate * 100).toFixed(1)}%`}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          </section>
        ))}
    </Layout>
  );
};

/** A row of GET /v1/tools/{name} (the fields this page shows). */
export interface ToolDetailWire {
  name: string;
  toolset: string;
  description: string;
  available: boolean;
  unavailable_reason: string | null;
  checked_at: string | null;
  requires_env: string[];
  definitions: { openai: unknown; anthropic: unknown; mcp: unknown };
  pin: { status: string; pinned_definition?: unknown; current_definition?: unknown } | null;
}

/** A changed remote tool: the pinned and the new definition side by side, and (admins) accept. */
const PinChange: FC<{ viewer: Viewer; tool: ToolDetailWire }> = ({ viewer, tool }) => {
  if (tool.pin === null || tool.pin.status === "pinned") return null;
  return (
    <section aria-label="Changed definition" class="card">
      <h3>Its definition changed since it was pinned</h3>
      <div class="side-by-side">
        <div>
          <h4>Pinned</h4>
          {tool.pin.pinned_definition == null ? (
            <p class="muted">Pinned before toolgate kept definitions: only its hash is known.</p>
          ) : (
            <ArgumentsBlock value={tool.pin.pinned_definition} />
          )}
        </div>
        <div>
          <h4>Now listed</h4>
          {tool.pin.current_definition == null ? <p class="muted">Not kept.</p> : <ArgumentsBlock value={tool.pin.current_definition} />}
        </div>
      </div>
      {viewer.role !== "admin" ? null : (
        <PostButton
          viewer={viewer}
          action={`${toolHref(tool.name)}/accept`}
          label="Accept the new definition"
          ariaLabel={`Accept the new definition of ${tool.name}`}
          kind="approve"
        />
      )}
    </section>
  );
};

export const ToolDetailPage: FC<{ viewer: Viewer; tool: ToolDetailWire; done?: string | undefined }> = ({ viewer, tool, done }) => (
  <Layout title={tool.name} viewer={viewer} site={ADMIN_SITE}>
    <Notices done={done} />
    <h2>
      <code>{tool.name}</code> <span class="muted">in {tool.toolset}</span>
    </h2>
    <div class="card">
      <p>{tool.description}</p>
      <dl class="facts">
        <dt>State</dt>
        <dd>{tool.available ? "available" : `unavailable: ${tool.unavailable_reason ?? "no reason given"}`}</dd>
        <dt>Checked</dt>
        <dd>{tool.checked_at ?? "never needed"}</dd>
        <dt>Needs variables</dt>
        <dd>{tool.requires_env.length === 0 ? "none" : tool.requires_env.join(", ")}</dd>
        <dt>Pin</dt>
        <dd>{tool.pin === null ? "not a remote tool" : tool.pin.status}</dd>
      </dl>
      <Recheck viewer={viewer} tool={tool.name} />
      <p>
        <a href={`${ADMIN_BASE}/audit?${new URLSearchParams({ tool: tool.name }).toString()}`}>Its recent calls</a>
      </p>
    </div>
    <PinChange viewer={viewer} tool={tool} />
    {(["openai", "anthropic", "mcp"] as const).map((shape) => (
      <section aria-label={`${shape} shape`}>
        <h3>{shape === "openai" ? "OpenAI" : shape === "anthropic" ? "Anthropic" : "MCP"}</h3>
        <ArgumentsBlock value={tool.definitions[shape]} />
      </section>
    ))}
  </Layout>
);

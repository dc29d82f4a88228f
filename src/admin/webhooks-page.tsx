/** @jsxImportSource hono/jsx */
/**
 * Webhooks: each hook with its signature scheme and whether its secret is set; the newest
 * deliveries with their status (a failed one can be re-run, through
 * POST /v1/hooks/deliveries/{id}/rerun) and the newest delivery events.
 */
import type { FC } from "hono/jsx";
import { Layout, type Viewer } from "../approvals-page/layout.tsx";
import { CHAT_BASE } from "../chat-page/chat-site.ts";
import { DELIVERY_STATUSES } from "../webhooks/delivery-store.ts";
import { ADMIN_BASE, ADMIN_SITE } from "./admin-site.ts";
import { type Loaded, whenLoaded } from "./loaded.tsx";
import { Notices } from "./notices.tsx";
import { PostButton } from "./post-button.tsx";
import type { RecentDelivery } from "./recent-deliveries.ts";
import { TableHead } from "./table-head.tsx";

/** A row of GET /v1/hooks. */
export interface HookWire {
  name: string;
  description: string;
  path: string;
  verify: string;
  secret_env: string;
  secret_configured: boolean;
  toolsets: string[];
  callback: boolean;
}

/** A row of GET /v1/hooks/events. */
export interface HookEventWire {
  id: string;
  at: string;
  hook: string;
  outcome: string;
  delivery_id: string | null;
  detail: string | null;
}

const statusClass = (status: string) => (status === "done" ? "approved" : status === "failed" ? "denied" : "pending");

const StatusFilter: FC<{ status: string | undefined }> = ({ status }) => (
  <form method="get" action={`${ADMIN_BASE}/webhooks`} class="filters">
    <div class="field">
      <label for="w-status">Deliveries</label>
      <select id="w-status" name="status">
        <option value="" selected={status === undefined}>
          all
        </option>
        {DELIVERY_STATUSES.map((s) => (
          <option value={s} selected={status === s}>
            {s}
          </option>
        ))}
      </select>
    </div>
    <button type="submit">Show</button>
  </form>
);

export interface WebhooksPageProps {
  viewer: Viewer;
  hooks: readonly HookWire[];
  deliveries: Loaded<readonly RecentDelivery[]>;
  events: Loaded<readonly HookEventWire[]>;
  status?: string | undefined;
  done?: string | undefined;
}

export const WebhooksPage: FC<WebhooksPageProps> = ({ viewer, hooks, deliveries, events, status, done }) => (
  <Layout title="Webhooks" viewer={viewer} site={ADMIN_SITE}>
    <h2>Webhooks ({hooks.length})</h2>
    <Notices done={done} />
    <div class="table-scroll">
      <table>
        <TableHead columns={["Hook", "Scheme", "Secret", "Toolsets", "Callback"]} />
        <tbody>
          {hooks.map((h) => (
            <tr data-hook={h.name}>
              <td>
                <code>{h.path}</code>
                <div class="muted">{h.description}</div>
              </td>
              <td>{h.verify}</td>
              <td>
                {h.secret_configured ? (
                  <span class="status approved">{`${h.secret_env} set`}</span>
                ) : (
                  <span class="status denied">{`${h.secret_env} not set`}</span>
                )}
              </td>
              <td>{h.toolsets.join(", ")}</td>
              <td>{h.callback ? "yes" : "no"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
    <section aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries</h2>
      <StatusFilter status={status} />
      {whenLoaded(deliveries, (rows) =>
        rows.length === 0 ? (
          <p class="muted">No deliveries{status === undefined ? "" : ` ${status}`}.</p>
        ) : (
          <div class="table-scroll">
            <table>
              <TableHead columns={["Delivery", "Hook", "Status", "Received", "Attempts", "Action"]} />
              <tbody>
                {rows.map((d) => (
                  <tr data-delivery={d.id}>
                    <td>
                      <a href={`${ADMIN_BASE}/audit?${new URLSearchParams({ session_id: d.id }).toString()}`}>{d.id}</a>
                      {d.runId === null ? null : (
                        <div class="muted">
                          run <a href={`${CHAT_BASE}/runs/${encodeURIComponent(d.runId)}`}>{d.runId}</a>
                        </div>
                      )}
                    </td>
                    <td>{d.hook}</td>
                    <td>
                      <span class={`status ${statusClass(d.status)}`}>{d.status}</span>
                      {d.error === null ? null : <div class="muted">{d.error}</div>}
                    </td>
                    <td>{new Date(d.receivedAt).toISOString()}</td>
                    <td>{d.attempts}</td>
                    <td>
                      {d.status !== "failed" || viewer.role !== "admin" ? null : (
                        <PostButton
                          viewer={viewer}
                          action={`${ADMIN_BASE}/webhooks/deliveries/${encodeURIComponent(d.id)}/rerun`}
                          label="Re-run"
                          ariaLabel={`Re-run ${d.id}`}
                        />
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ),
      )}
    </section>
    <section aria-labelledby="events-heading">
      <h2 id="events-heading">Recent events</h2>
      {whenLoaded(events, (rows) => (
        <div class="table-scroll">
          <table>
            <TableHead columns={["When", "Hook", "Outcome", "Delivery", "Detail"]} />
            <tbody>
              {rows.map((e) => (
                <tr>
                  <td>{e.at}</td>
                  <td>{e.hook}</td>
                  <td>{e.outcome}</td>
                  <td>{e.delivery_id ?? "–"}</td>
                  <td>{e.detail ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
    </section>
  </Layout>
);

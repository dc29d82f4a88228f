/** @jsxImportSource hono/jsx */
/**
 * Schedules: every key's scheduled runs (GET /v1/schedules as the signed-in admin) with their
 * status and why they are paused or stopped, each paused, resumed or deleted through the API's
 * own routes (schedule-pages.tsx).
 */
import type { FC } from "hono/jsx";
import { Layout, type Viewer } from "../approvals-page/layout.tsx";
import type { ScheduleSummaryWire } from "../schedules/schedule-wire.ts";
import { ADMIN_BASE, ADMIN_SITE } from "./admin-site.ts";
import { Notices } from "./notices.tsx";
import { PostButton } from "./post-button.tsx";
import { TableHead } from "./table-head.tsx";

/** The form action of one change to one schedule. */
export const scheduleAction = (id: string, change: "pause" | "resume" | "delete"): string => `${ADMIN_BASE}/schedules/${encodeURIComponent(id)}/${change}`;

const statusClass = (status: string) => (status === "active" ? "approved" : status === "stopped" ? "denied" : "pending");

export interface SchedulesPageProps {
  viewer: Viewer;
  schedules: readonly ScheduleSummaryWire[];
  done?: string | undefined;
}

export const SchedulesPage: FC<SchedulesPageProps> = ({ viewer, schedules, done }) => (
  <Layout title="Schedules" viewer={viewer} site={ADMIN_SITE}>
    <h2>Schedules ({schedules.length})</h2>
    <p class="muted">
      Agent runs each key scheduled (POST /v1/schedules or the schedule tool). A paused or stopped schedule says why; resuming a stopped one checks its key
      again. Deleting one lets a run it started finish.
    </p>
    <Notices done={done} />
    {schedules.length === 0 ? (
      <p class="muted">No schedules.</p>
    ) : (
      <div class="table-scroll">
        <table>
          <TableHead columns={["Schedule", "Key", "Status", "Next firing", "Action"]} />
          <tbody>
            {schedules.map((s) => (
              <tr data-schedule={s.id}>
                <td>
                  {s.name}
                  <div class="muted">
                    <code>{s.id}</code>
                  </div>
                </td>
                <td>
                  <code>{s.key_id}</code>
                </td>
                <td>
                  <span class={`status ${statusClass(s.status)}`}>{s.status}</span>
                  {s.status_reason === null ? null : <div class="muted">{s.status_reason}</div>}
                </td>
                <td>{s.next_fire_at ?? "–"}</td>
                <td>
                  {s.status === "active" ? (
                    <PostButton viewer={viewer} action={scheduleAction(s.id, "pause")} label="Pause" ariaLabel={`Pause ${s.name}`} />
                  ) : (
                    <PostButton viewer={viewer} action={scheduleAction(s.id, "resume")} label="Resume" ariaLabel={`Resume ${s.name}`} kind="approve" />
                  )}
                  <PostButton viewer={viewer} action={scheduleAction(s.id, "delete")} label="Delete" ariaLabel={`Delete ${s.name}`} kind="deny" />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )}
  </Layout>
);

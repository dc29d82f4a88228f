/** @jsxImportSource hono/jsx */
/** The console's home: what the agents did over a window, as figures and charts, and what waits for a person. */
import type { FC } from "hono/jsx";
import type { ApprovalView } from "../approvals/approval-view.ts";
import { formatInstant, isoOf } from "../approvals-page/format-time.ts";
import { Layout, type Viewer } from "../approvals-page/layout.tsx";
import { ADMIN_BASE, ADMIN_SITE } from "./admin-site.ts";
import { type Loaded, whenLoaded } from "./loaded.tsx";
import { OVERVIEW_WINDOWS, type Overview, type OverviewWindow } from "./overview-stats.ts";
import type { StuckDelivery } from "./stuck-deliveries.ts";
import { CallsChart, DurationChart } from "./svg-charts.tsx";
import { TableHead } from "./table-head.tsx";

export interface OverviewPageProps {
  viewer: Viewer;
  window: OverviewWindow;
  overview: Loaded<Overview>;
  pending: Loaded<ApprovalView[]>;
  stuck: Loaded<StuckDelivery[]>;
}

/** Tools shown in the duration chart: the most called. */
const CHARTED_TOOLS = 15;

const percent = (rate: number) => `${(rate * 100).toFixed(rate > 0 && rate < 0.01 ? 2 : 1)}%`;
const ms = (value: number | null) => (value === null ? "–" : `${value} ms`);

function intervalLabel(start: number, window: OverviewWindow): string {
  const iso = new Date(start).toISOString();
  return window === "week" ? `${iso.slice(5, 10)} ${iso.slice(11, 13)}h` : iso.slice(11, 16);
}

const auditLink = (query: Record<string, string>) => `${ADMIN_BASE}/audit?${new URLSearchParams(query).toString()}`;

const Windows: FC<{ current: OverviewWindow }> = ({ current }) => (
  <ul class="windows">
    {(Object.keys(OVERVIEW_WINDOWS) as OverviewWindow[]).map((w) => (
      <li>
        <a href={`${ADMIN_BASE}?window=${w}`} aria-current={w === current ? "page" : undefined}>
          {OVERVIEW_WINDOWS[w].label}
        </a>
      </li>
    ))}
  </ul>
);

const Figures: FC<{ overview: Overview }> = ({ overview }) => {
  const { total } = overview.stats;
  return (
    <ul class="figures" aria-label="Totals">
      <li>
        <span class="value" data-figure="calls">
          {total.calls}
        </span>{" "}
        calls
      </li>
      <li>
        <span class="value" data-figure="errors">
          {total.errors}
        </span>{" "}
        errors
      </li>
      <li>
        <span class="value">{percent(total.errorRate)}</span> error rate
      </li>
      <li>
        <span class="value">{ms(total.p50Ms)}</span> p50 duration
      </li>
      <li>
        <span class="value">{ms(total.p95Ms)}</span> p95 duration
      </li>
    </ul>
  );
};

const Failures: FC<{ overview: Overview; since: string }> = ({ overview, since }) => (
  <div class="card">
    <h3>Top error codes</h3>
    {overview.topErrorCodes.length === 0 ? (
      <p class="muted">No failed calls in this window.</p>
    ) : (
      <ol>
        {overview.topErrorCodes.map((c) => (
          <li>
            <a href={auditLink({ error_code: c.code, since })}>{c.code}</a> · {c.calls}
          </li>
        ))}
      </ol>
    )}
    <h3>Top failure messages</h3>
    {overview.stats.total.topMessages.length === 0 ? (
      <p class="muted">No failure messages in this window.</p>
    ) : (
      <ol>
        {overview.stats.total.topMessages.map((m) => (
          <li>
            <span>{m.message}</span> · {m.calls}
          </li>
        ))}
      </ol>
    )}
  </div>
);

const ToolTable: FC<{ overview: Overview; since: string }> = ({ overview, since }) => (
  <div class="table-scroll">
    <table>
      <caption class="muted">Per tool, in this window.</caption>
      <TableHead columns={["Tool", "Calls", "Errors", "Error rate", "p50", "p95"]} />
      <tbody>
        {overview.stats.tools.map((t) => (
          <tr>
            <td>
              <a href={auditLink({ tool: t.tool, since })}>{t.tool}</a>
            </td>
            <td>{t.calls}</td>
            <td>{t.errors}</td>
            <td>{percent(t.errorRate)}</td>
            <td>{ms(t.p50Ms)}</td>
            <td>{ms(t.p95Ms)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  </div>
);

const Waiting: FC<{ pending: Loaded<ApprovalView[]>; stuck: Loaded<StuckDelivery[]> }> = ({ pending, stuck }) => (
  <section aria-labelledby="waiting-heading">
    <h2 id="waiting-heading">Waiting for a person</h2>
    <div class="card">
      <h3>Pending approvals</h3>
      {whenLoaded(pending, (list) =>
        list.length === 0 ? (
          <p class="muted">None.</p>
        ) : (
          <ul>
            {list.map((a) => (
              <li>
                <a href={`/approvals/${encodeURIComponent(a.id)}`}>{a.tool}</a> in session <code>{a.sessionId}</code>
              </li>
            ))}
          </ul>
        ),
      )}
    </div>
    <div class="card">
      <h3>Stuck webhook deliveries</h3>
      {whenLoaded(stuck, (list) =>
        list.length === 0 ? (
          <p class="muted">None: no delivery failed or waited over 10 minutes this week.</p>
        ) : (
          <ul>
            {list.map((d) => (
              <li>
                <code>{d.id}</code> · {d.hook} · <span class="status">{d.status}</span> · received{" "}
                <time datetime={isoOf(d.receivedAt)}>{formatInstant(d.receivedAt)}</time>
                {d.error === null ? null : <div class="muted">{d.error}</div>}
                <div>
                  <a href={`${ADMIN_BASE}/audit?${new URLSearchParams({ session_id: d.id }).toString()}`}>its calls in the audit log</a>
                </div>
              </li>
            ))}
          </ul>
        ),
      )}
    </div>
  </section>
);

export const OverviewPage: FC<OverviewPageProps> = ({ viewer, window, overview, pending, stuck }) => (
  <Layout title="Overview" viewer={viewer} site={ADMIN_SITE}>
    <h2>Overview</h2>
    <Windows current={window} />
    {whenLoaded(overview, (o) => {
      const since = new Date(o.since).toISOString();
      const bars = [...o.stats.tools].sort((a, b) => b.calls - a.calls).slice(0, CHARTED_TOOLS);
      return (
        <section aria-labelledby="calls-heading">
          <h2 id="calls-heading">
            Calls from {formatInstant(o.since)} to {formatInstant(o.until)}
          </h2>
          <Figures overview={o} />
          <CallsChart
            title={`Calls and errors per ${o.intervalMs >= 3_600_000 ? `${o.intervalMs / 3_600_000} h` : `${o.intervalMs / 60_000} min`}`}
            points={o.intervals.map((i) => ({ label: intervalLabel(i.start, window), calls: i.calls, errors: i.errors }))}
          />
          {bars.length === 0 ? null : <DurationChart title="Duration per tool (p50 and p95)" bars={bars} />}
          <Failures overview={o} since={since} />
          {o.stats.tools.length === 0 ? <p class="muted">No calls in this window.</p> : <ToolTable overview={o} since={since} />}
        </section>
      );
    })}
    <Waiting pending={pending} stuck={stuck} />
  </Layout>
);

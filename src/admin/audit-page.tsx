/** @jsxImportSource hono/jsx */
/**
 * The audit log as pages: the listing with the API's filters and paging, one call's detail, and
 * a session's timeline. The records come from GET /v1/audit itself (api-request.ts), so the
 * filters are checked, and the reader's scope applied, exactly as for an API client.
 */
import type { Child, FC } from "hono/jsx";
import { ArgumentsBlock } from "../approvals-page/approval-card.tsx";
import { formatInstant } from "../approvals-page/format-time.ts";
import { Layout, type Viewer } from "../approvals-page/layout.tsx";
import { AUDIT_STATUSES } from "../audit/audit-record.ts";
import type { AuditRecordWire } from "../audit/audit-wire.ts";
import { ADMIN_BASE, ADMIN_SITE } from "./admin-site.ts";
import { Notices } from "./notices.tsx";
import { TableHead } from "./table-head.tsx";

/** The listing's filters, as the form sends them and GET /v1/audit takes them. */
export const AUDIT_FILTERS = ["session_id", "key_id", "tool", "status", "error_code", "since", "until"] as const;
export type AuditFilterValues = Partial<Record<(typeof AUDIT_FILTERS)[number], string>>;

const LABELS: Record<(typeof AUDIT_FILTERS)[number], string> = {
  session_id: "Session",
  key_id: "Key id",
  tool: "Tool",
  status: "Status",
  error_code: "Error code",
  since: "Since (ISO 8601 or epoch ms)",
  until: "Until",
};

export const callHref = (id: string) => `${ADMIN_BASE}/audit/${encodeURIComponent(id)}`;
export const sessionHref = (id: string) => `${ADMIN_BASE}/sessions/${encodeURIComponent(id)}`;

const Filters: FC<{ values: AuditFilterValues }> = ({ values }) => (
  <form method="get" action={`${ADMIN_BASE}/audit`} class="filters card">
    {AUDIT_FILTERS.map((name) => (
      <div class="field">
        <label for={`f-${name}`}>{LABELS[name]}</label>
        {name === "status" ? (
          <select id={`f-${name}`} name={name}>
            <option value="">any</option>
            {AUDIT_STATUSES.map((s) => (
              <option value={s} selected={values.status === s}>
                {s}
              </option>
            ))}
          </select>
        ) : (
          <input id={`f-${name}`} name={name} type="text" value={values[name] ?? ""} maxlength={256} autocomplete="off" />
        )}
      </div>
    ))}
    <button type="submit">Filter</button>
  </form>
);

/** Records as a table, newest first (or as given). */
export const RecordTable: FC<{ records: readonly AuditRecordWire[]; caption: string }> = ({ records, caption }) => (
  <div class="table-scroll">
    <table>
      <caption class="muted">{caption}</caption>
      <TableHead columns={["Time", "Tool", "Status", "Duration", "Key", "Session"]} />
      <tbody>
        {records.map((r) => (
          <tr data-record-id={r.id}>
            <td>
              <a href={callHref(r.id)}>
                <time datetime={r.time}>{formatInstant(Date.parse(r.time))}</time>
              </a>
            </td>
            <td>{r.tool}</td>
            <td>
              <span class="status">{r.status}</span>
              {r.error_code === null ? null : <div class="muted">{r.error_code}</div>}
            </td>
            <td>{r.duration_ms} ms</td>
            <td class="id">{r.key_id}</td>
            <td class="id">
              <a href={sessionHref(r.session_id)}>{r.session_id}</a>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  </div>
);

export interface AuditListProps {
  viewer: Viewer;
  values: AuditFilterValues;
  records: readonly AuditRecordWire[];
  /** The next page's link, when there is one. */
  nextHref: string | null;
  /** The API's refusal of the filters, shown above the form. */
  error?: string | undefined;
}

export const AuditListPage: FC<AuditListProps> = ({ viewer, values, records, nextHref, error }) => (
  <Layout title="Audit log" viewer={viewer} site={ADMIN_SITE}>
    <h2>Audit log</h2>
    <Notices error={error} />
    <Filters values={values} />
    {viewer.role === "admin" ? null : <p class="muted">As an {viewer.role}, you see your own key's calls only (the API's rule).</p>}
    {/* A refusal or an outage says so above; "no calls match" would then be untrue. */}
    {error !== undefined ? null : records.length === 0 ? (
      <p class="muted">No calls match{nextHref === null ? "." : " on this page; older ones may."}</p>
    ) : (
      <RecordTable records={records} caption="Newest first. Calls reach the log a few seconds after they end." />
    )}
    <p class="pager">
      <a href={`${ADMIN_BASE}/audit`}>First page, no filters</a>
      {nextHref === null ? null : <a href={nextHref}>Older calls</a>}
    </p>
  </Layout>
);

const Fact: FC<{ term: string; children?: Child }> = ({ term, children }) => (
  <>
    <dt>{term}</dt>
    <dd>{children}</dd>
  </>
);

export const CallDetailPage: FC<{ viewer: Viewer; record: AuditRecordWire }> = ({ viewer, record: r }) => (
  <Layout title={`Call ${r.tool}`} viewer={viewer} site={ADMIN_SITE}>
    <h2>
      Call of <code>{r.tool}</code>
    </h2>
    <div class="card" data-record-id={r.id}>
      <dl class="facts">
        <Fact term="Record">{r.id}</Fact>
        <Fact term="Ended">{formatInstant(Date.parse(r.time))}</Fact>
        <Fact term="Status">
          <span class="status">{r.status}</span>
        </Fact>
        <Fact term="Error code">{r.error_code ?? "–"}</Fact>
        <Fact term="Message">{r.error_message ?? "–"}</Fact>
        <Fact term="Key">{r.key_id}</Fact>
        <dt>Session</dt>
        <dd>
          <a href={sessionHref(r.session_id)}>{r.session_id}</a>
        </dd>
        <Fact term="Tool call id">{r.tool_call_id}</Fact>
        <Fact term="Toolset">{r.toolset ?? "–"}</Fact>
        <Fact term="Policy">{r.policy_decision === null ? "–" : `${r.policy_decision}${r.policy_rule === null ? "" : ` (rule ${r.policy_rule})`}`}</Fact>
        <dt>Approval</dt>
        <dd>{r.approval_id === null ? "–" : <a href={`/approvals/${encodeURIComponent(r.approval_id)}`}>{r.approval_id}</a>}</dd>
        <Fact term="Decision">
          {r.decision === undefined
            ? "–"
            : `${r.decision.scope ?? "expired"} by ${r.decision.by ?? "nobody"} at ${r.decision.time}${r.decision.reason === null ? "" : `: ${r.decision.reason}`}`}
        </Fact>
        <Fact term="Attempts">{String(r.attempts)}</Fact>
        <Fact term="Duration">{`${r.duration_ms} ms`}</Fact>
        <Fact term="Result size">{`${r.result_chars} characters${r.truncated ? " (cut for the model)" : ""}`}</Fact>
        <Fact term="Coercions">{`${r.coercion_count}`}</Fact>
      </dl>
      {r.coercions.length === 0 ? null : (
        <ul>
          {r.coercions.map((co) => (
            <li>
              <code>{co.path}</code>: {co.from} → {co.to}
            </li>
          ))}
        </ul>
      )}
      <h3>Arguments as stored (secrets redacted{r.arguments_truncated ? ", cut to 4 KiB" : ""})</h3>
      <ArgumentsBlock value={r.arguments} />
    </div>
  </Layout>
);

export const SessionTimelinePage: FC<{ viewer: Viewer; sessionId: string; records: readonly AuditRecordWire[]; more: boolean }> = ({
  viewer,
  sessionId,
  records,
  more,
}) => (
  <Layout title={`Session ${sessionId}`} viewer={viewer} site={ADMIN_SITE}>
    <h2>
      Session <code>{sessionId}</code>
    </h2>
    <p>
      <a href={`/approvals/sessions/${encodeURIComponent(sessionId)}`}>Its approvals</a> ·{" "}
      <a href={`${ADMIN_BASE}/audit?${new URLSearchParams({ session_id: sessionId }).toString()}`}>as a filtered listing</a>
    </p>
    {records.length === 0 ? (
      <p class="muted">The audit log has no calls for this session.</p>
    ) : (
      <RecordTable records={records} caption={`Oldest first${more ? "; the newest calls only, older ones are in the listing" : ""}.`} />
    )}
  </Layout>
);

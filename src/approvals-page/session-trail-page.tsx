/** @jsxImportSource hono/jsx */
/**
 * One agent session: its approvals, then its audit trail (every call the audit log holds for
 * the session, newest first).
 */
import type { FC } from "hono/jsx";
import type { ApprovalView } from "../approvals/approval-view.ts";
import type { AuditRecord } from "../audit/audit-record.ts";
import { ApprovalList, ArgumentsBlock, type KeyNames } from "./approval-card.tsx";
import { formatInstant, isoOf } from "./format-time.ts";
import { Layout, type Viewer } from "./layout.tsx";

export interface SessionTrailPageProps {
  viewer: Viewer;
  sessionId: string;
  approvals: readonly ApprovalView[];
  trail: readonly AuditRecord[];
  /** Whether the audit log holds more records than shown. */
  more: boolean;
  names: KeyNames;
  now: number;
}

// Arguments are stored as canonical JSON text; shown re-indented, or as stored if not JSON.
function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const TrailTable: FC<{ trail: readonly AuditRecord[]; names: KeyNames }> = ({ trail, names }) => (
  <div class="table-scroll">
    <table>
      <caption class="muted">Newest first. Calls reach the audit log a few seconds after they end.</caption>
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Tool</th>
          <th scope="col">Status</th>
          <th scope="col">Key</th>
          <th scope="col">Policy</th>
          <th scope="col">Approval</th>
          <th scope="col">Arguments</th>
        </tr>
      </thead>
      <tbody>
        {trail.map((record) => (
          <tr>
            <td>
              <time datetime={isoOf(record.at)}>{formatInstant(record.at)}</time>
            </td>
            <td>{record.tool}</td>
            <td>
              {record.status}
              {record.errorCode === null ? null : <div class="muted">{record.errorCode}</div>}
            </td>
            <td class="id">{names.get(record.keyId) ?? record.keyId}</td>
            <td>{record.policyDecision ?? ""}</td>
            <td class="id">{record.approvalId === null ? "" : <a href={`/approvals/${encodeURIComponent(record.approvalId)}`}>{record.approvalId}</a>}</td>
            <td>
              <ArgumentsBlock value={parsedArguments(record.arguments)} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  </div>
);

export const SessionTrailPage: FC<SessionTrailPageProps> = ({ viewer, sessionId, approvals, trail, more, names, now }) => (
  <Layout title={`Session ${sessionId}`} viewer={viewer}>
    <h2>
      Session <code>{sessionId}</code>
    </h2>
    <section aria-labelledby="session-approvals">
      <h2 id="session-approvals">Approvals in this session ({approvals.length})</h2>
      {approvals.length === 0 ? (
        <p class="muted">No approvals were requested in this session.</p>
      ) : (
        <ApprovalList approvals={approvals} names={names} now={now} csrfToken={viewer.csrfToken} />
      )}
    </section>
    <section aria-labelledby="session-trail">
      <h2 id="session-trail">
        Audit trail ({trail.length}
        {more ? "+" : ""} calls)
      </h2>
      {trail.length === 0 ? <p class="muted">The audit log has no calls for this session yet.</p> : <TrailTable trail={trail} names={names} />}
      {more ? <p class="muted">Older calls: GET /v1/audit?session_id=… with an admin key lists them all.</p> : null}
    </section>
  </Layout>
);

/** @jsxImportSource hono/jsx */
/** The main page: pending approvals with their decision forms, then the recent decisions. */
import type { FC } from "hono/jsx";
import type { ApprovalView } from "../approvals/approval-view.ts";
import { ApprovalList, type KeyNames } from "./approval-card.tsx";
import { Layout, type Viewer } from "./layout.tsx";

export interface ApprovalsPageProps {
  viewer: Viewer;
  pending: readonly ApprovalView[];
  decided: readonly ApprovalView[];
  names: KeyNames;
  now: number;
  /** The approval just decided, shown at the top so the person sees what their click did. */
  justDecided?: ApprovalView | undefined;
}

const DecidedNotice: FC<{ approval: ApprovalView }> = ({ approval }) => (
  <p class="notice ok" role="status">
    {approval.tool} ({approval.id}): {approval.status}
    {approval.status === "approved" ? (approval.scope === "session" ? " for the session" : " once") : ""}.
    {approval.reason === undefined ? "" : ` Reason: ${approval.reason}`}
  </p>
);

export const ApprovalsPage: FC<ApprovalsPageProps> = ({ viewer, pending, decided, names, now, justDecided }) => (
  <Layout title="Pending approvals" viewer={viewer}>
    {justDecided === undefined ? null : <DecidedNotice approval={justDecided} />}
    <section aria-labelledby="pending-heading">
      <h2 id="pending-heading">
        Pending ({pending.length}) <a href="/approvals">Refresh</a>
      </h2>
      {pending.length === 0 ? (
        <p class="muted">Nothing is waiting for a decision. New requests appear here when you refresh.</p>
      ) : (
        <ApprovalList approvals={pending} names={names} now={now} csrfToken={viewer.csrfToken} />
      )}
    </section>
    <section aria-labelledby="decided-heading">
      <h2 id="decided-heading">Recent decisions</h2>
      {decided.length === 0 ? <p class="muted">No decisions yet.</p> : <ApprovalList approvals={decided} names={names} now={now} />}
    </section>
  </Layout>
);

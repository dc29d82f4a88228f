/** @jsxImportSource hono/jsx */
/**
 * One approval as a card: what the agent asked for, and either the decision forms (pending) or
 * the decision and its outcome.
 */
import type { FC } from "hono/jsx";
import type { ApprovalView } from "../approvals/approval-view.ts";
import { formatInstant, formatSpan, isoOf } from "./format-time.ts";
import { CsrfField } from "./layout.tsx";

/** Key ids to the names people gave them, for "requested by" and "decided by". */
export type KeyNames = ReadonlyMap<string, string>;

export const KeyLabel: FC<{ id: string; names: KeyNames }> = ({ id, names }) => {
  const name = names.get(id);
  return name === undefined ? (
    <code>{id}</code>
  ) : (
    <span>
      {name} <span class="muted">({id})</span>
    </span>
  );
};

/** The arguments as indented JSON; hono/jsx escapes the text, so hostile values stay text. */
export const ArgumentsBlock: FC<{ value: unknown }> = ({ value }) => <pre>{JSON.stringify(value, null, 2)}</pre>;

/** The pending decision forms. Deny needs a reason, which the agent's model reads. */
const DecisionForms: FC<{ approval: ApprovalView; csrfToken: string }> = ({ approval, csrfToken }) => {
  const action = `/approvals/${encodeURIComponent(approval.id)}/decision`;
  const reasonId = `reason-${approval.id}`;
  return (
    <div class="actions">
      <form method="post" action={action}>
        <CsrfField token={csrfToken} />
        <button type="submit" name="decision" value="approve_once" class="approve">
          Approve once
        </button>
        <button type="submit" name="decision" value="approve_session" class="approve">
          Approve {approval.tool} for this session
        </button>
      </form>
      <form method="post" action={action}>
        <CsrfField token={csrfToken} />
        <input type="hidden" name="decision" value="deny" />
        <div class="field">
          <label for={reasonId}>Reason for denying (the agent reads it)</label>
          <input id={reasonId} name="reason" type="text" required maxlength={500} autocomplete="off" />
        </div>
        <button type="submit" class="deny">
          Deny
        </button>
      </form>
    </div>
  );
};

const Outcome: FC<{ approval: ApprovalView; names: KeyNames }> = ({ approval, names }) => (
  <dl class="facts">
    <dt>Decision</dt>
    <dd>
      <span class={`status ${approval.status}`}>{approval.status}</span>
      {approval.scope === undefined || approval.status !== "approved" ? null : approval.scope === "session" ? " for the session" : " once"}
    </dd>
    {approval.decidedBy === undefined ? null : (
      <>
        <dt>Decided by</dt>
        <dd>
          <KeyLabel id={approval.decidedBy} names={names} />
        </dd>
      </>
    )}
    {approval.decidedAt === undefined ? null : (
      <>
        <dt>Decided</dt>
        <dd>
          <time datetime={isoOf(approval.decidedAt)}>{formatInstant(approval.decidedAt)}</time>
        </dd>
      </>
    )}
    {approval.reason === undefined ? null : (
      <>
        <dt>Reason</dt>
        <dd>{approval.reason}</dd>
      </>
    )}
    {approval.result === undefined ? null : (
      <>
        <dt>Result</dt>
        <dd>
          <span class={`status ${approval.result.status === "ok" ? "approved" : "denied"}`}>{approval.result.status}</span>
          {approval.result.errorCode === null ? null : ` ${approval.result.errorCode}`}
        </dd>
      </>
    )}
  </dl>
);

export interface ApprovalCardProps {
  approval: ApprovalView;
  names: KeyNames;
  now: number;
  /** Given for a pending approval the viewer may decide: shows the decision forms. */
  csrfToken?: string | undefined;
}

export const ApprovalCard: FC<ApprovalCardProps> = ({ approval, names, now, csrfToken }) => {
  const headingId = `approval-${approval.id}`;
  return (
    <article class="card" aria-labelledby={headingId} data-approval-id={approval.id}>
      <h3 id={headingId}>
        <a href={`/approvals/${encodeURIComponent(approval.id)}`}>{approval.tool}</a>
      </h3>
      <dl class="facts">
        <dt>Session</dt>
        <dd>
          <a href={`/approvals/sessions/${encodeURIComponent(approval.sessionId)}`}>{approval.sessionId}</a>
        </dd>
        <dt>Requested by</dt>
        <dd>
          <KeyLabel id={approval.requestedBy} names={names} />
        </dd>
        <dt>Requested</dt>
        <dd>
          <time datetime={isoOf(approval.requestedAt)}>{formatSpan(now - approval.requestedAt)} ago</time>
        </dd>
        {approval.status === "pending" ? (
          <>
            <dt>Time left</dt>
            <dd>
              <time datetime={isoOf(approval.expiresAt)}>{approval.expiresAt > now ? formatSpan(approval.expiresAt - now) : "expiring now"}</time>
            </dd>
          </>
        ) : null}
        <dt>Tool call</dt>
        <dd>
          <code>{approval.toolCallId}</code>
        </dd>
      </dl>
      <ArgumentsBlock value={approval.arguments} />
      {approval.status === "pending" && csrfToken !== undefined ? (
        <DecisionForms approval={approval} csrfToken={csrfToken} />
      ) : (
        <Outcome approval={approval} names={names} />
      )}
    </article>
  );
};

/** Approvals as a list of cards (with decision forms on the pending ones when a token is given). */
export const ApprovalList: FC<{ approvals: readonly ApprovalView[]; names: KeyNames; now: number; csrfToken?: string | undefined }> = ({
  approvals,
  names,
  now,
  csrfToken,
}) => (
  <ol class="cards">
    {approvals.map((approval) => (
      <li>
        <ApprovalCard approval={approval} names={names} now={now} csrfToken={csrfToken} />
      </li>
    ))}
  </ol>
);

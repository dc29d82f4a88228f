/** @jsxImportSource hono/jsx */
/** The chat page's views: the start form with recent runs, and one run's transcript as it goes, with the agent's question. */

import type { FC } from "hono/jsx";
import { messageText as textOf } from "../agent/message-text.ts";
import { MAX_ANSWER_CHARS } from "../agent/run-question.ts";
import { isTerminal, type RunStep, type StepCall } from "../agent/run-types.ts";
import type { RunWire } from "../agent/run-wire.ts";
import { CsrfField, Layout, type Viewer } from "../approvals-page/layout.tsx";
import { CHAT_BASE, CHAT_SITE } from "./chat-site.ts";

/** A message as the transcript holds it: OpenAI's shapes, read loosely. */
interface ShownMessage {
  role: string;
  content?: unknown;
  tool_call_id?: string;
  tool_calls?: { id: string; function?: { name?: string; arguments?: string } }[];
}

/** A run as GET /v1/runs lists it. */
export interface RunListItem {
  id: string;
  status: string;
  created_at: string;
}

export const MAX_MESSAGE_CHARS = 8000;

export const runPath = (id: string): string => `${CHAT_BASE}/runs/${encodeURIComponent(id)}`;

/** Arguments and results are JSON text; shown indented when they parse, as sent when not. */
function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

const MessageForm: FC<{ viewer: Viewer; after?: string; value?: string | undefined; label: string }> = ({ viewer, after, value, label }) => (
  <form method="post" action={CHAT_BASE} class="card">
    <CsrfField token={viewer.csrfToken} />
    {after === undefined ? null : <input type="hidden" name="after" value={after} />}
    <div class="field">
      <label for="message">{label}</label>
      <textarea id="message" name="message" rows={3} required maxlength={MAX_MESSAGE_CHARS}>
        {value ?? ""}
      </textarea>
    </div>
    <p>
      <button type="submit" class="approve">
        Send
      </button>
    </p>
  </form>
);

export const ChatHomePage: FC<{ viewer: Viewer; runs: RunListItem[]; error?: string | undefined; value?: string | undefined }> = ({
  viewer,
  runs,
  error,
  value,
}) => (
  <Layout title="Chat" viewer={viewer} site={CHAT_SITE}>
    <h2>Talk to the agent</h2>
    <p class="muted">The agent answers with the tools your key may use; a call that needs approval waits for a person on the approvals page.</p>
    {error === undefined ? null : (
      <p class="notice error" role="alert">
        {error}
      </p>
    )}
    <MessageForm viewer={viewer} value={value} label="Your message" />
    <h2>Your recent runs</h2>
    {runs.length === 0 ? (
      <p class="muted">None yet.</p>
    ) : (
      <ul>
        {runs.map((run) => (
          <li>
            <a href={runPath(run.id)}>{run.created_at}</a> <span class={`status ${run.status}`}>{run.status}</span>
          </li>
        ))}
      </ul>
    )}
  </Layout>
);

/** The error code a tool message carries (toolgate's structured error), if it is one. */
function errorCodeOf(result: string): string | null {
  try {
    const parsed: unknown = JSON.parse(result);
    return typeof parsed === "object" && parsed !== null && "error_code" in parsed && typeof parsed.error_code === "string" ? parsed.error_code : null;
  } catch {
    return null;
  }
}

/**
 * What a call came to. The step keeps what the call did when it ran; for one that waited on a
 * person, the tool message (the approved result, or the denial) is what it came to in the end.
 */
function outcomeOf(step: StepCall | undefined, result: string | undefined): { status: string; code: string | null } {
  if (step === undefined) return { status: "running", code: null };
  if (step.status !== "pending_approval") return { status: step.status, code: step.error_code };
  if (result === undefined) return { status: "pending approval", code: null };
  const code = errorCodeOf(result);
  return { status: code === null ? "ok" : "error", code };
}

const CallDetails: FC<{ call: { id: string; function?: { name?: string; arguments?: string } }; step: StepCall | undefined; result: string | undefined }> = ({
  call,
  step,
  result,
}) => {
  const outcome = outcomeOf(step, result);
  return (
    <details id={`call-${call.id}`}>
      <summary>
        <code>{call.function?.name ?? step?.tool ?? "tool"}</code>
        <span class={`status ${outcome.status.replace(" ", "_")}`}>{outcome.status}</span>
        {outcome.code === null ? null : <span class="muted">{outcome.code}</span>}
      </summary>
      <p class="who">Arguments</p>
      <pre>{pretty(call.function?.arguments ?? "")}</pre>
      <p class="who">Result</p>
      {result === undefined ? <p class="muted">No result yet.</p> : <pre>{pretty(result)}</pre>}
    </details>
  );
};

/**
 * The agent's question: each choice a button that sends it as the answer, and a free-text answer.
 * One form, so a button and the text field post the same `answer` field the same way.
 */
const QuestionForm: FC<{ viewer: Viewer; runId: string; question: NonNullable<RunWire["question"]> }> = ({ viewer, runId, question }) => (
  <form method="post" action={`${runPath(runId)}/answer`} class="card question" role="status">
    <CsrfField token={viewer.csrfToken} />
    <input type="hidden" name="question_id" value={question.id} />
    <p class="who">The agent asks</p>
    <p class="text">{question.question}</p>
    {question.choices.length === 0 ? null : (
      <p class="choices">
        {question.choices.map((choice) => (
          <button type="submit" name="choice" value={choice} formnovalidate>
            {choice}
          </button>
        ))}
      </p>
    )}
    <div class="field">
      <label for="answer">{question.choices.length === 0 ? "Your answer" : "Or answer in your own words"}</label>
      <textarea id="answer" name="answer" rows={2} maxlength={MAX_ANSWER_CHARS} required={question.choices.length === 0}></textarea>
    </div>
    <p>
      <button type="submit" class="approve">
        Answer
      </button>{" "}
      <span class="muted">The run goes on once you answer; unanswered, it ends at {question.deadline_at}.</span>
    </p>
  </form>
);

/** The run's section: what the page's script re-fetches on each event and swaps in whole. */
export const RunSection: FC<{ viewer: Viewer; run: RunWire }> = ({ viewer, run }) => {
  const messages = (run.messages ?? []) as ShownMessage[];
  const results = new Map(messages.flatMap((m) => (m.role === "tool" && m.tool_call_id !== undefined ? [[m.tool_call_id, textOf(m.content)] as const] : [])));
  const stepCalls = new Map((run.steps as RunStep[]).flatMap((s) => s.calls.map((c) => [c.id, c] as const)));
  return (
    <>
      <p>
        Status: <span class={`status ${run.status}`}>{run.status.replace("_", " ")}</span>{" "}
        <span class="muted">
          ({run.turns} turn{run.turns === 1 ? "" : "s"}, {run.tool_calls} tool call{run.tool_calls === 1 ? "" : "s"}, {run.usage.total_tokens} tokens)
        </span>
      </p>
      <ol class="transcript">
        {messages.map((m) =>
          m.role === "tool" ? null : (
            <li class={m.role === "assistant" && (m.tool_calls?.length ?? 0) > 0 ? "assistant tool-step" : m.role}>
              <p class="who">{m.role === "user" ? "You" : m.role === "assistant" ? "Agent" : m.role}</p>
              {textOf(m.content) === "" ? null : <p class="text">{textOf(m.content)}</p>}
              {(m.tool_calls ?? []).map((call) => (
                <CallDetails call={call} step={stepCalls.get(call.id)} result={results.get(call.id)} />
              ))}
            </li>
          ),
        )}
        {/* The answer as it streams in: the page's script fills it from the run's `delta` events, as text. */}
        {isTerminal(run.status) ? null : (
          <li class="assistant live" hidden>
            <p class="who">Agent</p>
            <p class="text" id="live-text"></p>
          </li>
        )}
      </ol>
      {run.pending_approvals.length === 0 ? null : (
        <div class="notice" role="status">
          <p>Waiting for a person to decide:</p>
          <ul>
            {run.pending_approvals.map((p) => (
              <li>
                <code>{p.tool}</code>: <a href={p.url}>approval {p.approval_id}</a>
              </li>
            ))}
          </ul>
          <p class="muted">The run goes on by itself once it is decided.</p>
        </div>
      )}
      {run.status !== "awaiting_input" || run.question === null ? null : <QuestionForm viewer={viewer} runId={run.id} question={run.question} />}
      {run.error === null ? null : (
        <p class="notice error" role="alert">
          {run.error.code}: {run.error.message}
        </p>
      )}
      {isTerminal(run.status) ? <MessageForm viewer={viewer} after={run.id} label="Reply" /> : <p class="muted">The agent is working…</p>}
    </>
  );
};

export const RunPage: FC<{ viewer: Viewer; run: RunWire }> = ({ viewer, run }) => (
  <Layout title="Run" viewer={viewer} site={CHAT_SITE}>
    <p>
      <a href={CHAT_BASE}>New conversation</a>
    </p>
    <section
      id="run"
      {...(isTerminal(run.status) ? {} : { "data-events": `${runPath(run.id)}/events`, "data-section": `${runPath(run.id)}/section` })}
      aria-live="polite"
    >
      <RunSection viewer={viewer} run={run} />
    </section>
    {isTerminal(run.status) ? null : <script src={`${CHAT_BASE}/chat.js`} defer />}
  </Layout>
);

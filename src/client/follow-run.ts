/**
 * Following an agent run's Server-Sent Events (GET /v1/runs/{id}/events) as an async iterator,
 * with nothing but fetch, so it runs alike in Node, Workers and browsers (EventSource cannot
 * send an Authorization header and is missing in Workers). A dropped connection is resumed
 * with Last-Event-ID, which the route answers with the events after that one only, so the
 * caller sees each event once and in order.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";

/** The event names GET /v1/runs/{id}/events sends (its OpenAPI text lists them; SSE bodies have no schema). */
export type RunEventType =
  | "run.started"
  | "model.turn"
  | "tool.result"
  | "approval.pending"
  | "approval.settled"
  | "input.pending"
  | "input.answered"
  | "run.finished";

/** One event of a run: `id` is its number, which `lastEventId` resumes after. */
export interface RunEvent {
  id: string;
  type: RunEventType;
  data: Record<string, unknown> & { seq: number; at: number };
}

/**
 * A piece of the model's text as it writes turn `turn` (a `delta` event, never stored). `content`
 * is only what is new to this caller, even across a reconnection, so appending each `content`
 * gives the turn's text; `text` is that text so far. The turn's `model.turn` event follows with
 * the whole message.
 */
export interface RunDelta {
  turn: number;
  content: string;
  text: string;
  /** The number of the stored event this piece follows. */
  seq: number;
  at: number;
}

export interface FollowOptions {
  signal?: AbortSignal;
  /** Resume after this event (the `id` of the last one seen). */
  lastEventId?: string;
  /** Reconnections in a row that bring no new event before giving up; default 5. */
  maxReconnects?: number;
  /**
   * Called with the model's text as it streams, before the iterator yields the turn's
   * `model.turn`. Without it `delta` events are read and dropped.
   */
  onDelta?: (delta: RunDelta) => void;
}

/** Opens the event stream after `lastEventId` (undefined: from the start); the body, or a thrown refusal. */
export type OpenEvents = (lastEventId: string | undefined, signal: AbortSignal | undefined) => Promise<ReadableStream<Uint8Array>>;

const FINAL_EVENT: RunEventType = "run.finished";
const TURN_EVENT: RunEventType = "model.turn";
const RECONNECT_DELAY_MS = 250;

/**
 * Yields the run's events until `run.finished`, reconnecting after a drop. A refusal (404 for a
 * run this key may not see) is thrown as it is, never retried.
 */
export async function* followEvents(
  open: OpenEvents,
  { signal, lastEventId, maxReconnects = 5, onDelta }: FollowOptions = {},
): AsyncGenerator<RunEvent, void, undefined> {
  let after = lastEventId;
  let fruitless = 0;
  // The turn being written as this caller has seen it: the gateway opens every connection made
  // mid-turn with the text so far in one delta, and only its unseen end is handed on.
  let live: { turn: number; text: string } | undefined;
  for (;;) {
    signal?.throwIfAborted();
    const body = await open(after, signal);
    let progressed = false;
    let joined = false;
    try {
      for await (const message of messagesOf(body)) {
        if (message.type === "delta") {
          const { turn, content, seq, at } = message.data as { turn: number; content: string; seq: number; at: number };
          const known = live?.turn === turn ? live.text : "";
          const text = joined || !content.startsWith(known) ? known + content : content;
          joined = true;
          live = { turn, text };
          if (text.length === known.length) continue;
          progressed = true;
          onDelta?.({ turn, content: text.slice(known.length), text, seq, at });
          continue;
        }
        if (message.id === undefined) continue;
        after = message.id;
        progressed = true;
        if (message.type === TURN_EVENT) live = undefined;
        yield { id: message.id, type: message.type, data: message.data };
        if (message.type === FINAL_EVENT) return;
      }
    } catch {
      // An abort is the caller's decision; anything else while reading is a dropped connection.
      if (signal?.aborted === true) throw signal.reason;
    }
    fruitless = progressed ? 0 : fruitless + 1;
    if (fruitless > maxReconnects)
      throw new Error(
        `toolgate: the run's event stream ended before run.finished ${fruitless} times in a row without a new event (last event ${after ?? "none"})`,
      );
    await new Promise((resolve) => setTimeout(resolve, progressed ? 0 : RECONNECT_DELAY_MS * fruitless));
  }
}

/** One SSE message of the stream: a stored event (with its id) or a `delta` (without). */
interface StreamMessage {
  id: string | undefined;
  type: RunEventType | "delta";
  data: RunEvent["data"];
}

/** The SSE messages of one response body, parsed by eventsource-parser. */
async function* messagesOf(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamMessage, void, undefined> {
  const parsed: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => parsed.push(message) });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      parser.feed(decoder.decode(value, { stream: true }));
      for (const message of parsed.splice(0)) {
        if (message.event === undefined) continue;
        yield { id: message.id, type: message.event as StreamMessage["type"], data: JSON.parse(message.data) as RunEvent["data"] };
      }
    }
  } finally {
    // Leaving early (run.finished, a break in the caller's loop) closes the connection.
    await reader.cancel().catch(() => undefined);
  }
}

/**
 * A Run object's events as its readers see them: each stored event handed to this instance's
 * listeners, the model's streamed text (`delta`) kept live only, and the NDJSON stream and
 * status waits built on them. Listeners live in one instance: a reader on another sees the
 * stored events only.
 */
import type { RunStore } from "./run-store.ts";
import { isTerminal, isWaiting, type RunEvent, type RunEventType, type RunRecord } from "./run-types.ts";

/** The event fan-out of one Run object instance. */
export class RunEventHub {
  /** Readers of the live event stream and waiters for a status change, in this instance. */
  readonly #listeners = new Set<(event: RunEvent) => void>();
  /** The text the model has streamed so far in the turn in progress: a reader joining mid-turn gets it first. */
  #live: { turn: number; text: string } | undefined;
  readonly #store: RunStore;

  constructor(store: RunStore) {
    this.#store = store;
  }

  /** Stores an event and hands it to this instance's readers. */
  emit(type: RunEventType, data: Record<string, unknown>): void {
    this.emitAll([{ type, data }]);
  }

  /** Stores events together (one statement) and hands them to this instance's readers in order. */
  emitAll(events: readonly Pick<RunEvent, "type" | "data">[]): void {
    for (const event of this.#store.appendEvents(events)) this.broadcast(event);
  }

  /** Hands an event to this instance's readers; a `delta` goes only here, never to storage. */
  broadcast(event: RunEvent): void {
    for (const listener of [...this.#listeners]) listener(event);
  }

  /** Adds streamed text to turn `turn`'s live text and hands it on as a `delta`. */
  delta(turn: number, content: string): void {
    this.#live = { turn, text: this.#live?.turn === turn ? this.#live.text + content : content };
    this.broadcast({ seq: this.#store.lastSeq(), at: Date.now(), type: "delta", data: { turn, content } });
  }

  /** The turn's text is stored now: a reader joining later reads it from the stored events. */
  endTurn(): void {
    this.#live = undefined;
  }

  /** Waits up to `timeoutMs` until the run is no longer running (finished, or waiting on a person). */
  async wait(timeoutMs: number): Promise<RunRecord | undefined> {
    const current = this.#store.record();
    if (current === undefined || current.status !== "running") return current;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      const listener = (event: RunEvent) => {
        if (event.type === "run.finished" || event.type === "approval.pending" || event.type === "input.pending") done();
      };
      function done() {
        clearTimeout(timer);
        listeners.delete(listener);
        resolve();
      }
      const listeners = this.#listeners;
      listeners.add(listener);
    });
    return this.#store.record();
  }

  /**
   * The run's events after `after`, as NDJSON (one RunEvent a line): those stored, then live ones
   * until the run finishes. `untilApproval` also ends the stream when the run waits on a person (an approval, a question).
   */
  stream(after: number, untilApproval: boolean): ReadableStream<Uint8Array> {
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    const encoder = new TextEncoder();
    const ends = (event: RunEvent) => event.type === "run.finished" || (untilApproval && (event.type === "approval.pending" || event.type === "input.pending"));
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      this.#listeners.delete(listener);
      writer.close().catch(() => undefined);
    };
    const send = (event: RunEvent) => {
      if (closed) return;
      // A reader that went away makes the write fail: stop feeding it.
      writer.write(encoder.encode(`${JSON.stringify(event)}\n`)).catch(close);
      if (ends(event)) close();
    };
    const listener = (event: RunEvent) => send(event);
    const stored = this.#store.eventsAfter(after);
    for (const event of stored) send(event);
    const record = this.#store.record();
    if (this.#live !== undefined)
      send({ seq: this.#store.lastSeq(), at: Date.now(), type: "delta", data: { turn: this.#live.turn, content: this.#live.text } });
    if (record === undefined || isTerminal(record.status) || (untilApproval && isWaiting(record.status))) close();
    else this.#listeners.add(listener);
    return readable;
  }
}

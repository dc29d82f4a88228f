/**
 * Types only: what a Run object hands the modules that do its work (run-step.ts,
 * run-finish.ts, run-approval-wait.ts), so they read its storage and call back into it
 * without importing the object itself.
 */
import type { KeyScope } from "../pipeline/types.ts";
import type { RunEventHub } from "./run-event-hub.ts";
import type { RunGateway } from "./run-gateway.ts";
import type { RunStore } from "./run-store.ts";
import type { RunRecord, RunStatus } from "./run-types.ts";

/** A step's scope and the definitions the model is offered (each as JSON text), and when they were built. */
export interface StepTools {
  ok: true;
  scope: KeyScope;
  tools: string[];
  at: number;
}

/** What a finished run records besides its status. */
export type FinishFields = Partial<Pick<RunRecord, "answer" | "error" | "clientToolCalls" | "finishReason">>;

/** One Run object instance's storage and the parts of its work other modules call back into. */
export interface RunHost {
  readonly env: Env;
  readonly storage: DurableObjectStorage;
  readonly store: RunStore;
  readonly events: RunEventHub;
  /** Runs the model's calls of toolgate's own tools (the gateway's `serve`). */
  serve: RunGateway["serve"];
  /** The step's scope and tools, reused for RUN_ACCESS_TTL_MS. */
  open(record: RunRecord): Promise<StepTools | { ok: false; message: string }>;
  /** Ends the run with `status`. */
  finish(record: RunRecord, status: RunStatus, fields: FinishFields): Promise<RunRecord>;
  /** No call waits: the held results go into the transcript and the run goes on. */
  release(record: RunRecord): Promise<void>;
}

/**
 * The types the sandbox host's modules share (run-script.ts and the bridges it installs):
 * a run's limits, its answer, and the capability it calls tools through.
 */
import type { NestedCallResult } from "../../src/registry/types.ts";
import type { FuelBudget, FuelLimit } from "./fuel-meter.ts";

export interface ScriptLimits {
  /** Wall-clock budget of the whole run, tool calls included. */
  timeoutMs: number;
  memoryBytes: number;
  stackBytes: number;
  maxToolCalls: number;
  /** Characters of console output kept; the rest is counted and dropped. */
  maxLogChars: number;
  /**
   * CPU, in fuel units: `slice` for one synchronous stretch (workerd's clock does not move
   * while JavaScript runs, so no deadline can end a tight loop), `total` for the whole script.
   */
  fuel: FuelBudget;
  /** Fuel a stretch may use before the host yields to the event loop between promise jobs. */
  yieldFuel: number;
  /** The slice, in milliseconds of CPU, as the stop message tells the model. */
  sliceMs: number;
}

export type ScriptErrorKind = "syntax" | "exception" | "timeout" | "memory" | "stack" | "tool_call_limit" | "stalled";

export interface ScriptRun {
  ok: boolean;
  /** The script's return value (JSON), when it returned. */
  result?: unknown;
  /** `limit`, on a timeout: which budget ran out (the clock, the whole CPU budget, one slice). */
  error?: { kind: ScriptErrorKind; message: string; stack?: string; limit?: ScriptLimit };
  logs: string[];
  /** Console characters dropped past maxLogChars. */
  droppedLogChars: number;
  toolCalls: number;
}

/** Calls a tool for the script; the host's capability (ToolContext.callTool) with the signal bound. */
export type ScriptToolCall = (name: string, args: Record<string, unknown>) => Promise<NestedCallResult>;

/** The budget a timeout ran out of. */
export type ScriptLimit = "clock" | FuelLimit;

/** An error as the guest threw it, read out of QuickJS. */
export interface GuestError {
  name: string;
  message: string;
  stack?: string;
}

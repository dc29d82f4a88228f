/**
 * What a benchmark scenario is: one small async function that measures one thing against the
 * running bench Worker (or in-process) and returns rows for the table plus checks against its
 * target. scripts/bench/scenarios/index.ts lists them; adding a scenario is adding a file.
 */
import type { LoadClient } from "./load.ts";
import type { BuiltPeer } from "./peers.ts";

/** Knobs shared by every scenario; `--quick` shrinks them for a smoke run. */
export interface BenchSettings {
  /** Timed rounds per compared request; figures are medians over rounds. */
  rounds: number;
  roundMs: number;
  /** One untimed round per request before the timed ones (JIT, connections, caches). */
  warmupMs: number;
  /** Requests in flight during throughput rounds. */
  concurrency: number;
}

/**
 * Round length of scenarios no ratio target rides on (they explain or describe): 0.6 s, not the
 * full bench's 1 s, so the whole bench ends within issue 16's 4 minutes with a margin. Never
 * longer than the settings' own rounds (`--quick`).
 */
export const diagnosticRoundMs = (settings: BenchSettings): number => Math.min(settings.roundMs, 600);

export interface BenchContext {
  /** Absolute project root. */
  root: string;
  settings: BenchSettings;
  /**
   * Keep-alive client to the bench Worker (scripts/bench/worker.ts) on 127.0.0.1; it sends
   * `Authorization: Bearer <ADMIN_TOKEN>` unless a request sets its own.
   */
  client: LoadClient;
  /** The bench Worker's origin (http://127.0.0.1:port), for a scenario's own setup requests. */
  origin: string;
  /** An agent key made at start through POST /v1/keys (every toolset, a limit never reached). */
  agentKey: string;
  /** This run's ADMIN_TOKEN, for scenarios that drive the Worker with their own client. */
  adminToken: string;
  /** `--quick`: a smoke run that proves each scenario works rather than measuring it fully. */
  quick: boolean;
  /** The workerd process serving it, for CPU per request; undefined where /proc is missing. */
  serverPid: number | undefined;
  /** The MCP peers served beside it (scripts/bench/peers.ts), when a scenario needs them. */
  peers?: readonly (BuiltPeer & { client: LoadClient })[];
}

export interface Scenario {
  id: string;
  title: string;
  /** Whether the run must install, bundle and serve the MCP peers for it. */
  needsPeers?: boolean;
  run(ctx: BenchContext): Promise<ScenarioReport>;
}

/** A table column: `key` into each row's values, printed with `digits` decimals. */
export interface Column {
  key: string;
  header: string;
  digits: number;
}

export interface Row {
  label: string;
  /** Figures for the table's columns (medians, for measured rows). */
  values: Record<string, number>;
  note?: string;
  /** The per-round figures behind the medians; written to the JSON only. */
  perRound?: Record<string, number[]>;
}

/** A target from the issue, evaluated on this run's figures. */
export interface Check {
  label: string;
  target: string;
  /** The measured figure: the median over paired runs where it comes from several (paired-runs.ts). */
  actual: string;
  /** The runs' range behind a median ("0.81-0.97 over 5 runs"); absent for a single figure or a count. */
  spread?: string;
  pass: boolean;
  /**
   * A regression guard rather than a target: a miss makes the run exit non-zero, so CI's quick
   * bench fails on it. Only for a margin wide enough that a shared machine's noise cannot trip it.
   */
  guard?: boolean;
}

export interface ScenarioReport {
  /** One line on how it was measured, printed under the title. */
  method: string;
  columns: Column[];
  rows: Row[];
  checks: Check[];
}

/** The columns of every "route against a reference route" comparison, vs the reference named. */
export function versusColumns(reference: Reference): Column[] {
  return [
    { key: "rps", header: "req/s", digits: 0 },
    { key: "p50", header: "p50 ms", digits: 2 },
    { key: "p99", header: "p99 ms", digits: 2 },
    { key: versusKey(reference), header: `x ${reference}`, digits: 2 },
    { key: "cpuUs", header: "workerd CPU us/req", digits: 0 },
    // A bare twin's CPU is next to nothing, so a ratio to it says nothing.
    ...(reference === "bare" ? [] : [{ key: versusKey(reference, "cpu"), header: `CPU x ${reference}`, digits: 2 }]),
  ];
}

/** What a comparison is measured against: a bare twin route, the core pipeline, an API key. */
export type Reference = "bare" | "core" | "key";

/** The value key of the ratio to `reference` (`vsCore`), or of its CPU ratio (`cpuVsCore`). */
export function versusKey(reference: Reference, of: "rps" | "cpu" = "rps"): string {
  const name = `${reference.charAt(0).toUpperCase()}${reference.slice(1)}`;
  return of === "cpu" ? `cpuVs${name}` : `vs${name}`;
}

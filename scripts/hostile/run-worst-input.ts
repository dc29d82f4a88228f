/**
 * Runs one tool's worst input against a local Worker the way an attacker would send it, while
 * probing `GET /health` every 100 ms: what the call answered, how long it took, and how long
 * any other request had to wait meanwhile. Shared by the hostile suite
 * (test/scripts/hostile-tools.test.ts), which holds each run to its bound, and the bench's
 * `worst-inputs` scenario, which reports the figures.
 */
import { type BuiltWorstInput, WORST_INPUTS_PATH, type WorstInputsListing } from "./worst-inputs-wire.ts";

/** How often the probe asks, per the issue: every 100 ms. */
export const PROBE_EVERY_MS = 100;
/** The longest a probe may wait, unless the tool declares it holds the isolate (holdsIsolateMs). */
export const PROBE_BOUND_MS = 250;
/** A call must end within its deadline plus this. */
export const DEADLINE_SLACK_MS = 1_000;
/** Setup calls per request, under the Worker's MAX_TOOL_CALLS. */
const SETUP_BATCH = 50;

export interface WorstInputRun {
  tool: string;
  input: string;
  /** The call's round trip, ms. */
  durationMs: number;
  /** The deadline it is held to, ms. */
  deadlineMs: number;
  /** The call's result status (`ok`, `error`, `pending_approval`, ...) and error code. */
  status: string;
  errorCode: string | null;
  probes: number;
  probeP99Ms: number;
  probeMaxMs: number;
  /** The longest wait allowed: PROBE_BOUND_MS, or the tool's declared holdsIsolateMs. */
  probeBoundMs: number;
}

interface Target {
  origin: string;
  token: string;
  /** The Worker's DEFAULT_TIMEOUT_MS, for tools that set no timeoutMs. */
  defaultTimeoutMs: number;
}

/** The tools and their declared inputs, from the Worker's worst-inputs route. */
export async function listWorstInputs(origin: string): Promise<WorstInputsListing> {
  const response = await fetch(`${origin}${WORST_INPUTS_PATH}`);
  if (!response.ok) throw new Error(`worst inputs: ${response.status} ${await response.text()}`);
  return (await response.json()) as WorstInputsListing;
}

interface CallResult {
  status?: string;
  error_code?: string | null;
  message?: { content?: string };
}

/** A /v1/tool-calls body of OpenAI-shaped calls, built before any timing starts (it can be 30 MiB). */
function toolCallsBody(calls: { tool: string; args: Record<string, unknown> }[], idPrefix: string): string {
  return JSON.stringify({
    tool_calls: calls.map((call, i) => ({ id: `${idPrefix}_${i}`, type: "function", function: { name: call.tool, arguments: JSON.stringify(call.args) } })),
  });
}

async function sendToolCalls(target: Target, body: string): Promise<CallResult[]> {
  const response = await fetch(`${target.origin}/v1/tool-calls`, {
    method: "POST",
    headers: { authorization: `Bearer ${target.token}`, "content-type": "application/json" },
    body,
  });
  const text = await response.text();
  if (response.status !== 200) return [{ status: `http_${response.status}`, error_code: null, message: { content: text.slice(0, 300) } }];
  return (JSON.parse(text) as { results: CallResult[] }).results;
}

function toolCalls(target: Target, calls: { tool: string; args: Record<string, unknown> }[], idPrefix: string): Promise<CallResult[]> {
  return sendToolCalls(target, toolCallsBody(calls, idPrefix));
}

/** Probes /health every PROBE_EVERY_MS until stopped, recording how long each answer took. */
export function startProbing(origin: string): { stop(): Promise<number[]> } {
  const waits: number[] = [];
  const inFlight = new Set<Promise<void>>();
  const probe = () => {
    const sent = performance.now();
    const done = fetch(`${origin}/health`)
      .then((response) => response.arrayBuffer())
      .then(
        () => void waits.push(performance.now() - sent),
        // A probe that fails outright counts as waiting for ever.
        () => void waits.push(Number.POSITIVE_INFINITY),
      )
      .finally(() => inFlight.delete(done));
    inFlight.add(done);
  };
  const timer = setInterval(probe, PROBE_EVERY_MS);
  probe();
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(inFlight);
      return waits;
    },
  };
}

/** Consecutive quick answers that say the Worker is idle, and what counts as quick. */
const QUIET_PROBES = 5;
const QUIET_MS = 50;
/** The longest the suite waits for the Worker to go idle before it measures anyway. */
const QUIESCE_LIMIT_MS = 20_000;

/**
 * Waits until /health answers quickly several times in a row: the setup's own tail (the audit
 * consumer writing a thousand setup calls' records, local R2 settling a 10 MiB object) runs in
 * the same workerd, and would otherwise be charged to the hostile call that follows it.
 */
async function quiesce(origin: string): Promise<void> {
  const until = performance.now() + QUIESCE_LIMIT_MS;
  let quiet = 0;
  while (quiet < QUIET_PROBES && performance.now() < until) {
    const sent = performance.now();
    await (await fetch(`${origin}/health`)).arrayBuffer();
    quiet = performance.now() - sent <= QUIET_MS ? quiet + 1 : 0;
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
  }
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/**
 * Brings the Worker past its first requests (module start, the key's first lookup, the first
 * call through the pipeline), which are paid once per isolate and are not any tool's cost.
 */
export async function warmUp(target: Target): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await (await fetch(`${target.origin}/health`)).arrayBuffer();
    await toolCalls(target, [{ tool: "current_time", args: {} }], `warm_${i}`);
  }
}

/** Sets up and sends one worst input, probing the Worker while it runs. */
export async function runWorstInput(target: Target, tool: WorstInputsListing["tools"][number], index: number): Promise<WorstInputRun> {
  const declared = tool.inputs[index];
  if (declared === undefined) throw new Error(`${tool.name} has no worst input ${index}`);
  const response = await fetch(`${target.origin}${WORST_INPUTS_PATH}?tool=${encodeURIComponent(tool.name)}&input=${index}`);
  if (!response.ok) throw new Error(`worst input ${tool.name}#${index}: ${response.status} ${await response.text()}`);
  const built = (await response.json()) as BuiltWorstInput;
  for (let start = 0; start < built.setup.length; start += SETUP_BATCH) {
    const results = await toolCalls(target, built.setup.slice(start, start + SETUP_BATCH), `setup_${start}`);
    const failed = results.find((result) => result.status !== "ok");
    if (failed !== undefined) throw new Error(`setup of ${tool.name}#${index} failed: ${JSON.stringify(failed).slice(0, 500)}`);
  }
  await quiesce(target.origin);
  // Built first: serialising a huge body would stall this process, and the probes' timings with it.
  const body = toolCallsBody([{ tool: tool.name, args: built.args }], "hostile");
  const probing = startProbing(target.origin);
  const started = performance.now();
  // The probes stop whatever the call does, so a failed call never leaves them running.
  const answered: CallResult = await sendToolCalls(target, body).then(
    ([first]) => first ?? { status: "no_answer" },
    (error: unknown) => ({ status: `request_failed: ${String(error)}` }),
  );
  const durationMs = performance.now() - started;
  const waits = (await probing.stop()).sort((a, b) => a - b);
  return {
    tool: tool.name,
    input: declared.name,
    durationMs,
    deadlineMs: tool.timeoutMs ?? target.defaultTimeoutMs,
    status: answered.status ?? "unknown",
    errorCode: answered.error_code ?? null,
    probes: waits.length,
    probeP99Ms: percentile(waits, 99),
    probeMaxMs: waits.at(-1) ?? 0,
    probeBoundMs: declared.holdsIsolateMs ?? PROBE_BOUND_MS,
  };
}

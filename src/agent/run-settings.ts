/**
 * The limits of agent runs, from [vars] with defaults. A request may ask for less than these
 * (`max_turns`, ...), never more.
 */
/** A [vars] entry that must be a whole number of at least 1, or `fallback` when unset (schedule settings read theirs the same way). */
export const whole = (env: Env, name: string, fallback: number): number => {
  const raw: unknown = Reflect.get(env, name);
  if (typeof raw !== "string" || raw.trim() === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number of at least 1, got ${JSON.stringify(raw)}`);
  return n;
};

export interface RunSettings {
  /** Model turns per run (Hermes's default iteration budget is 90; the issue asks for 20). */
  maxTurns: number;
  /** Tool calls per run, over all its turns. */
  maxToolCalls: number;
  /** How long a run may last, approval waits included (ms). */
  deadlineMs: number;
  /** Total tokens per run, counted from the usage the upstream reports; unset means no budget. */
  tokenBudget: number | undefined;
  /** One model request's timeout (ms), each attempt. */
  modelTimeoutMs: number;
  /** Attempts per model request for 429 and 5xx. */
  modelAttempts: number;
  /** First wait between attempts (ms); doubles each time, Retry-After wins when longer. */
  modelBackoffMs: number;
}

/** The settings of runs under `env`. */
export function runSettings(env: Env): RunSettings {
  const budget: unknown = Reflect.get(env, "RUN_TOKEN_BUDGET");
  return {
    maxTurns: whole(env, "RUN_MAX_TURNS", 20),
    maxToolCalls: whole(env, "RUN_MAX_TOOL_CALLS", 100),
    deadlineMs: whole(env, "RUN_DEADLINE_MS", 3_600_000),
    tokenBudget: typeof budget === "string" && budget.trim() !== "" ? whole(env, "RUN_TOKEN_BUDGET", 0) : undefined,
    modelTimeoutMs: whole(env, "MODEL_TIMEOUT_MS", 120_000),
    modelAttempts: whole(env, "MODEL_MAX_ATTEMPTS", 4),
    modelBackoffMs: whole(env, "MODEL_BACKOFF_MS", 1_000),
  };
}

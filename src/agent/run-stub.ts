/** Routes a run id to its object: one Durable Object per run, addressed by name. */
export function runStub(env: Env, runId: string) {
  return env.RUNS.get(env.RUNS.idFromName(runId));
}

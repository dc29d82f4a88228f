/**
 * The schedule-firing scenario's parts inside the bench Worker. A firing is an alarm, not a
 * request, so two bench-only routes make each side of the comparison one request that starts
 * a run and returns once it has ended, with the same prompt and key:
 * - POST /__bench/schedules/{id}/fire: makes now the schedule's next firing time and runs its
 *   alarm (`fireNow`, on the bench's Schedule class), then waits for the firing's run;
 * - POST /__bench/runs/wait: POST /v1/runs through the full app with the request's body and
 *   Authorization, then waits for that run.
 * Both wait with the Run object's own `wait`, so the waiting costs each side the same.
 */
// tsconfig.node.json checks everything under scripts/ with Node's types only; this file runs
// in workerd and needs the Worker globals (Env, DurableObjectStorage) too.
/// <reference path="../../worker-configuration.d.ts" />
import { runStub } from "../../src/agent/run-stub.ts";
import { firingRunId } from "../../src/schedules/schedule-firing.ts";
import { ScheduleObject } from "../../src/schedules/schedule-object.ts";
import { ScheduleStore } from "../../src/schedules/schedule-store.ts";
import { RUN_WAIT_PATH, SCHEDULE_FIRE_PATH } from "./schedule-bench-paths.ts";

/** Each side's wait for its run, well above a 2-turn run against the in-isolate model. */
const WAIT_MS = 10_000;

/** The Schedule object of the bench Worker: the real one, plus a way to fire it now. */
export class BenchSchedule extends ScheduleObject {
  /** Makes now the next firing time and runs the alarm; answers the firing's run id. */
  async fireNow(): Promise<string | undefined> {
    const store = new ScheduleStore(this.ctx.storage);
    const record = await store.record();
    if (record === undefined) return undefined;
    const at = Date.now();
    await store.save({ ...record, nextFireAt: at });
    await this.alarm();
    return firingRunId(record.id, at);
  }
}

async function waited(env: Env, runId: string | undefined): Promise<Response> {
  if (runId === undefined) return new Response("no run", { status: 404 });
  const record = (await runStub(env, runId).wait(WAIT_MS)) as { status: string } | undefined;
  return Response.json({ id: runId, status: record?.status ?? "unknown" }, { status: record?.status === "completed" ? 200 : 500 });
}

/** Answers the two bench routes; undefined for any other request. */
export function serveScheduleBench(
  request: Request,
  env: Env,
  fullApp: { fetch: (request: Request, env: Env, ctx: ExecutionContext) => Response | Promise<Response> },
  ctx: ExecutionContext,
): Promise<Response> | undefined {
  // Method and a string test first: every measured request passes through here, and parsing each
  // one's URL (4-6 us in /mcp's profile) would be charged to the route it measures.
  if (request.method !== "POST" || !request.url.includes("/__bench/")) return undefined;
  const url = new URL(request.url);
  const fire = SCHEDULE_FIRE_PATH.exec(url.pathname)?.[1];
  if (fire !== undefined) {
    // biome-ignore lint/plugin/no-double-cast: the bench Worker exports BenchSchedule as Schedule; Env's type names src/index.ts's class, which has no fireNow.
    const stub = env.SCHEDULES.get(env.SCHEDULES.idFromName(fire)) as unknown as { fireNow(): Promise<string | undefined> };
    return stub.fireNow().then((runId) => waited(env, runId));
  }
  if (url.pathname !== RUN_WAIT_PATH) return undefined;
  return (async () => {
    const started = await fullApp.fetch(
      new Request(new URL("/v1/runs", url), { method: "POST", headers: request.headers, body: await request.text() }),
      env,
      ctx,
    );
    if (started.status !== 202) return started;
    return waited(env, ((await started.json()) as { id: string }).id);
  })();
}

/**
 * Tools made for the gateway tests. Each test file registers the ones it needs under its own
 * prefix (tools are module state shared by the tests of one file) and removes them after.
 */
import { z } from "zod";
import { ToolFailureError } from "../../src/errors/tool-failure.ts";
import { defineTool, registry } from "../../src/registry/registry.ts";
import type { ToolSpec } from "../../src/registry/types.ts";
import { STRAY_REJECTION_MARK } from "./test-env.ts";

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

/** A log of what handlers did, for ordering assertions. */
export class Trace {
  readonly events: string[] = [];
  running = 0;
  maxRunning = 0;
  enter(label: string): void {
    this.events.push(`start ${label}`);
    this.running += 1;
    this.maxRunning = Math.max(this.maxRunning, this.running);
  }
  leave(label: string): void {
    this.events.push(`end ${label}`);
    this.running -= 1;
  }
  index(event: string): number {
    return this.events.indexOf(event);
  }
}

/** The standard gateway test tools, named `${prefix}_<kind>`. */
export function gatewayTools(prefix: string, trace: Trace, failures: Map<string, number>): ToolSpec[] {
  const label = (tool: string, args: { label?: string | undefined }) => args.label ?? tool;
  return [
    defineTool({
      name: `${prefix}_sleep`,
      toolset: `${prefix}-set`,
      schema: z.object({ ms: z.number().int().min(0), label: z.string().optional() }),
      handler: async (args, { signal, callId }) => {
        trace.enter(label("sleep", args));
        await sleep(args.ms, signal);
        trace.leave(label("sleep", args));
        return { slept: args.ms, callId, label: args.label ?? null, aborted: signal.aborted };
      },
    }),
    defineTool({
      name: `${prefix}_flaky`,
      toolset: `${prefix}-set`,
      schema: z.object({ key: z.string(), failTimes: z.number().int().min(0), delayMs: z.number().int().min(0).default(0) }),
      handler: async ({ key, failTimes, delayMs }, { attempt }) => {
        if (delayMs > 0) await sleep(delayMs);
        const seen = failures.get(key) ?? 0;
        failures.set(key, seen + 1);
        if (seen < failTimes) throw Object.assign(new Error(`transient failure ${seen + 1}`), { retryable: true });
        return { key, attempt };
      },
    }),
    defineTool({
      name: `${prefix}_hang`,
      toolset: `${prefix}-set`,
      timeoutMs: 150,
      schema: z.object({ honourSignal: z.boolean().default(true) }),
      handler: ({ honourSignal }, { signal }) =>
        new Promise((_, reject) => {
          if (honourSignal)
            signal.addEventListener("abort", () => {
              trace.events.push("hang saw abort");
              reject(new Error("aborted"));
            });
        }),
    }),
    defineTool({
      name: `${prefix}_overrun`,
      toolset: `${prefix}-set`,
      // Far below the synchronous stretch below, on any machine.
      timeoutMs: 5,
      schema: z.object({ path: z.string().optional() }),
      writes: (args) => (typeof args.path === "string" ? [`workspace:${args.path}`] : []),
      handler: async () => {
        // An await first, so the call is past the executor's quick path, as any tool doing I/O is.
        await sleep(1);
        trace.events.push("overrun started");
        // Synchronous work no timer can interrupt: 2e8 additions take 60 ms or more on any CPU.
        let sum = 0;
        for (let i = 0; i < 2e8; i++) sum += i & 1;
        trace.events.push("overrun finished");
        return { sum };
      },
    }),
    defineTool({
      name: `${prefix}_broken`,
      toolset: `${prefix}-set`,
      schema: z.object({}),
      handler: () => {
        trace.events.push("broken ran");
        throw new Error("bad input for this record");
      },
    }),
    // Two tools calling one upstream host: its circuit breaker is shared, theirs are not.
    upstreamTool(`${prefix}_upstream`, `${prefix}-set`, trace),
    upstreamTool(`${prefix}_upstream2`, `${prefix}-set`, trace),
    defineTool({
      name: `${prefix}_late_throw`,
      toolset: `${prefix}-set`,
      schema: z.object({}),
      handler: () => {
        setTimeout(() => {
          throw new Error("thrown from a timer after the handler returned");
        }, 0);
        void Promise.reject(new Error(`${STRAY_REJECTION_MARK}: rejected after the handler returned`));
        return { returned: true };
      },
    }),
    defineTool({
      name: `${prefix}_typed_fail`,
      toolset: `${prefix}-set`,
      schema: z.object({}),
      handler: () => {
        throw new ToolFailureError({ kind: "upstream", name: `${prefix}_typed_fail`, status: 400, detail: "bad request" });
      },
    }),
  ];
}

function upstreamTool(name: string, toolset: string, trace: Trace): ToolSpec {
  return defineTool({
    name,
    toolset,
    timeoutMs: 5_000,
    schema: z.object({ path: z.string() }),
    handler: async ({ path }, { fetch }) => {
      trace.events.push(`fetch ${path}`);
      const res = await fetch(`http://upstream.test${path}`);
      return { status: res.status, body: await res.text() };
    },
  });
}

export function registerAll(specs: ToolSpec[]): () => void {
  for (const spec of specs) {
    const outcome = registry.register(spec);
    if (!outcome.ok) throw new Error(outcome.reason);
  }
  return () => {
    for (const spec of specs) registry.deregister(spec.name);
  };
}

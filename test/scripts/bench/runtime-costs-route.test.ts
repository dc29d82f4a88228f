/**
 * scripts/bench/runtime-costs-route.ts: the requests the runtime-costs scenario measures answer
 * the same small JSON in every mode, and bad input gets a 400 with a reason, never a throw.
 */
import { describe, expect, it } from "vitest";
import { RUNTIME_COST_MODES, RUNTIME_COSTS_PATH, serveRuntimeCosts } from "../../../scripts/bench/runtime-costs-route.ts";

const post = (query: string, body: string) => new Request(`http://127.0.0.1${RUNTIME_COSTS_PATH}${query}`, { method: "POST", body });

describe("serveRuntimeCosts", () => {
  it("leaves every other path to the bench Worker's apps", () => {
    expect(serveRuntimeCosts(new Request("http://127.0.0.1/v1/tool-calls", { method: "POST", body: "{}" }))).toBeUndefined();
    expect(serveRuntimeCosts(new Request(`http://127.0.0.1/x${RUNTIME_COSTS_PATH}`, { method: "POST", body: "{}" }))).toBeUndefined();
  });

  it("answers every mode with the same body", async () => {
    for (const mode of RUNTIME_COST_MODES) {
      const answer = await serveRuntimeCosts(post(`?mode=${mode}`, '{"a":1}'));
      expect(answer?.status, mode).toBe(200);
      expect(await answer?.json()).toEqual({ ok: true });
    }
  });

  it("refuses an unknown or missing mode and a body that is not JSON with a 400 that says why", async () => {
    for (const [query, body, reason] of [
      ["?mode=three-lines", "{}", /mode must be one of plain, one-line, two-lines, timer/],
      ["", "{}", /mode must be one of/],
      ["?mode=plain", "{not json", /must be JSON/],
    ] as const) {
      const answer = await serveRuntimeCosts(post(query, body));
      expect(answer?.status).toBe(400);
      expect(((await answer?.json()) as { error: string }).error).toMatch(reason);
    }
  });
});

import { describe, expect, it } from "vitest";
import { waitForOtherRequest } from "../../src/runtime/wait-for-other-request.ts";

const never = new Promise<number>(() => {});

describe("waitForOtherRequest", () => {
  it("answers with the other request's value when it comes in time", async () => {
    const later = new Promise<number>((resolve) => setTimeout(() => resolve(7), 10));
    expect(await waitForOtherRequest(later, 5_000)).toEqual({ settled: true, value: 7 });
  });

  it("gives up on its own timer when the other request never finishes", async () => {
    const started = Date.now();
    expect(await waitForOtherRequest(never, 50)).toEqual({ settled: false });
    expect(Date.now() - started).toBeGreaterThanOrEqual(40);
  });

  it("passes the other request's failure on", async () => {
    await expect(waitForOtherRequest(Promise.reject(new Error("boom")), 5_000)).rejects.toThrow("boom");
  });
});

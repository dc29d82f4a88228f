import { describe, expect, it } from "vitest";
import { CircuitBreaker } from "../../src/execution/circuit-breaker.ts";

const settings = { failureThreshold: 3, cooldownMs: 1_000 };

describe("CircuitBreaker", () => {
  it("stays closed below the threshold and resets on success", () => {
    const breaker = new CircuitBreaker();
    breaker.failed(settings, 0, false);
    breaker.failed(settings, 0, false);
    breaker.succeeded(false);
    breaker.failed(settings, 0, false);
    breaker.failed(settings, 0, false);
    expect(breaker.state(settings, 0)).toBe("closed");
    expect(breaker.admit(settings, 0)).toEqual({ admitted: true, probe: false });
  });

  it("opens at the threshold and says how long to wait", () => {
    const breaker = new CircuitBreaker();
    for (let i = 0; i < 3; i++) breaker.failed(settings, 100, false);
    expect(breaker.state(settings, 400)).toBe("open");
    expect(breaker.admit(settings, 400)).toEqual({ admitted: false, retryAfterMs: 700, failures: 3 });
  });

  it("goes half-open after the cooldown and admits exactly one probe", () => {
    const breaker = new CircuitBreaker();
    for (let i = 0; i < 3; i++) breaker.failed(settings, 0, false);
    expect(breaker.state(settings, 1_000)).toBe("half_open");
    expect(breaker.admit(settings, 1_000)).toEqual({ admitted: true, probe: true });
    expect(breaker.admit(settings, 1_001).admitted).toBe(false);
  });

  it("closes when the probe succeeds", () => {
    const breaker = new CircuitBreaker();
    for (let i = 0; i < 3; i++) breaker.failed(settings, 0, false);
    breaker.admit(settings, 1_000);
    breaker.succeeded(true);
    expect(breaker.state(settings, 1_000)).toBe("closed");
  });

  it("re-opens for a full cooldown when the probe fails", () => {
    const breaker = new CircuitBreaker();
    for (let i = 0; i < 3; i++) breaker.failed(settings, 0, false);
    breaker.admit(settings, 1_500);
    breaker.failed(settings, 1_500, true);
    expect(breaker.admit(settings, 2_000)).toEqual({ admitted: false, retryAfterMs: 500, failures: 4 });
  });

  it("lets only the probe close an open circuit, not a slow call admitted before it opened", () => {
    const breaker = new CircuitBreaker();
    for (let i = 0; i < 3; i++) breaker.failed(settings, 0, false);
    breaker.succeeded(false);
    expect(breaker.state(settings, 500)).toBe("open");
    expect(breaker.admit(settings, 1_000)).toEqual({ admitted: true, probe: true });
    breaker.released(false);
    expect(breaker.admit(settings, 1_001).admitted).toBe(false);
  });

  it("frees the probe slot when the probe ends without a verdict", () => {
    const breaker = new CircuitBreaker();
    for (let i = 0; i < 3; i++) breaker.failed(settings, 0, false);
    breaker.admit(settings, 1_000);
    breaker.released(true);
    expect(breaker.admit(settings, 1_001)).toEqual({ admitted: true, probe: true });
  });
});

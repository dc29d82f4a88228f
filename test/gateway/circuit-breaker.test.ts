import { describe, expect, it } from "vitest";
import { CircuitBreaker } from "../../src/gateway/circuit-breaker.ts";

const settings = { failureThreshold: 3, cooldownMs: 1_000 };

describe("CircuitBreaker", () => {
  it("stays closed below the threshold and resets on success", () => {
    const breaker = new CircuitBreaker();
    breaker.failed(settings, 0);
    breaker.failed(settings, 0);
    breaker.succeeded();
    breaker.failed(settings, 0);
    breaker.failed(settings, 0);
    expect(breaker.state(settings, 0)).toBe("closed");
    expect(breaker.admit(settings, 0)).toEqual({ admitted: true, probe: false });
  });

  it("opens at the threshold and says how long to wait", () => {
    const breaker = new CircuitBreaker();
    for (let i = 0; i < 3; i++) breaker.failed(settings, 100);
    expect(breaker.state(settings, 400)).toBe("open");
    expect(breaker.admit(settings, 400)).toEqual({ admitted: false, retryAfterMs: 700, failures: 3 });
  });

  it("goes half-open after the cooldown and admits exactly one probe", () => {
    const breaker = new CircuitBreaker();
    for (let i = 0; i < 3; i++) breaker.failed(settings, 0);
    expect(breaker.state(settings, 1_000)).toBe("half_open");
    expect(breaker.admit(settings, 1_000)).toEqual({ admitted: true, probe: true });
    expect(breaker.admit(settings, 1_001).admitted).toBe(false);
  });

  it("closes when the probe succeeds", () => {
    const breaker = new CircuitBreaker();
    for (let i = 0; i < 3; i++) breaker.failed(settings, 0);
    breaker.admit(settings, 1_000);
    breaker.succeeded();
    expect(breaker.state(settings, 1_000)).toBe("closed");
  });

  it("re-opens for a full cooldown when the probe fails", () => {
    const breaker = new CircuitBreaker();
    for (let i = 0; i < 3; i++) breaker.failed(settings, 0);
    breaker.admit(settings, 1_500);
    breaker.failed(settings, 1_500);
    expect(breaker.admit(settings, 2_000)).toEqual({ admitted: false, retryAfterMs: 500, failures: 4 });
  });

  it("frees the probe slot when the probe ends without a verdict", () => {
    const breaker = new CircuitBreaker();
    for (let i = 0; i < 3; i++) breaker.failed(settings, 0);
    breaker.admit(settings, 1_000);
    breaker.released();
    expect(breaker.admit(settings, 1_001)).toEqual({ admitted: true, probe: true });
  });
});

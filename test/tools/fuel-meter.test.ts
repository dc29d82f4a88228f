/**
 * The host half of execute_code's fuel meter against a real `fuel` global, spent by hand as the
 * metered wasm spends it: which budget a clean stop or a trap names. With a slice (50 ms) shorter
 * than the shortest timeout_ms (100 ms), only a script that awaits can run its whole budget out,
 * so the pipeline's tests reach the slice and this one proves the whole budget's account.
 */
import { describe, expect, it } from "vitest";
import { FuelMeter } from "../../tools/lib/fuel-meter.ts";

const fuelGlobal = () => new WebAssembly.Global({ value: "i32", mutable: true }, 0);

describe("FuelMeter", () => {
  it("stops at the slice when what is left of it would not last until the next poll", () => {
    const fuel = fuelGlobal();
    const meter = new FuelMeter(fuel, { slice: 100, total: 1_000 });
    expect(meter.enter()).toBeUndefined();
    expect(fuel.value).toBe(100);
    fuel.value = 70;
    expect(meter.poll()).toBeUndefined();
    fuel.value = 40;
    // 30 spent since the last poll; 40 left is less than twice that.
    expect(meter.poll()).toBe("slice");
    meter.leave();
    expect(meter.trapped).toBe(false);
  });

  it("names the whole budget when a later stretch traps with less of it left than of the slice", () => {
    const fuel = fuelGlobal();
    const meter = new FuelMeter(fuel, { slice: 100, total: 150 });
    meter.enter();
    fuel.value = 40;
    meter.leave();
    // The script awaited: a new stretch, with 90 of the whole budget left and a full slice.
    meter.newStretch();
    expect(meter.enter()).toBeUndefined();
    expect(fuel.value).toBe(90);
    // Native code ran the fuel out without a poll: the wasm trapped below zero.
    fuel.value = -1;
    meter.leave();
    expect(meter.trapped).toBe(true);
    expect(meter.total).toBe(150);
    expect(meter.trapLimit()).toBe("total");
  });

  it("refuses to enter once the whole budget is spent", () => {
    const fuel = fuelGlobal();
    const meter = new FuelMeter(fuel, { slice: 100, total: 100 });
    meter.enter();
    fuel.value = 0;
    meter.leave();
    meter.newStretch();
    expect(meter.enter()).toBe("total");
  });
});

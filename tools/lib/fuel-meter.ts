/**
 * The host half of the QuickJS fuel meter (scripts/meter-quickjs.ts writes the wasm half). The
 * metered wasm spends one unit of its `fuel` global per loop iteration and function call (and
 * per 32 bytes copied) and traps below zero. The host sets `fuel` to what is left of the run's
 * budgets before it enters wasm, and settles the account in every interrupt-handler poll and
 * on every return. So JavaScript, which polls often, is stopped cleanly by the handler, and
 * native work that never polls (one 16 MB `indexOf`) traps when the budget is gone.
 *
 * workerd's clock stands still during synchronous work, so fuel is the only measure of CPU a
 * stretch of script has: units are calibrated to milliseconds on the dev machine (docs/sandbox.md).
 */

/** What the meter allows, in fuel units. */
export interface FuelBudget {
  /** One synchronous stretch: from a return to the event loop to the next. */
  slice: number;
  /** The whole script. */
  total: number;
}

/** Which budget a stop or trap used up. */
export type FuelLimit = "slice" | "total";

/** The most an i32 holds: what the host leaves in `fuel` while it calls QuickJS itself. */
const UNMETERED = 0x7fff_ffff;

/** One run's account against one instance's `fuel` global. */
export class FuelMeter {
  /** What `fuel` was last set to, while the script runs; undefined while the host does. */
  private refilledTo: number | undefined;
  private stretchUsed = 0;
  private totalUsed = 0;
  /** Set once `fuel` was seen below zero: the wasm trapped, and its C state is unusable. */
  trapped = false;

  constructor(
    private readonly fuel: WebAssembly.Global,
    private readonly budget: FuelBudget,
  ) {}

  /** Fuel spent in the current stretch. */
  get stretch(): number {
    return this.stretchUsed;
  }

  /** Fuel spent by the whole run. */
  get total(): number {
    return this.totalUsed;
  }

  /** Before the host enters wasm to run the script: refills to what is left, or names the budget that is not. */
  enter(): FuelLimit | undefined {
    const exhausted = this.exhausted();
    if (exhausted === undefined) this.refill();
    return exhausted;
  }

  /**
   * From the interrupt handler (inside wasm): settles the account and refills, or names the
   * budget the script used up. After a trap the account stays empty, so whatever wasm still
   * runs (a host callback's error path) traps again instead of going on.
   */
  poll(): FuelLimit | undefined {
    // The host's own calls (the prelude, reading the result) poll too, and run unmetered.
    if (this.refilledTo === undefined) return undefined;
    const spent = this.settle();
    if (this.trapped) return this.trapLimit();
    // Stopped here, cleanly, when what is left would not last until the next poll (twice the
    // last interval's spend): otherwise an ordinary loop would run the fuel out between two
    // polls and trap, and a trap costs the instance.
    const exhausted = this.exhausted(2 * spent);
    if (exhausted === undefined) this.refill();
    return exhausted;
  }

  /** After wasm returned to the host: settles the account and leaves the host's own calls unmetered. */
  leave(): void {
    this.settle();
    if (this.trapped) return;
    this.refilledTo = undefined;
    this.fuel.value = UNMETERED;
  }

  /** The host returned to the event loop: the next stretch starts with a full slice. */
  newStretch(): void {
    this.stretchUsed = 0;
  }

  /** The budget a trap ran out of: the smaller room was the one refilled. */
  trapLimit(): FuelLimit {
    return this.budget.total - this.totalUsed <= this.budget.slice - this.stretchUsed ? "total" : "slice";
  }

  /** The budget with no more than `reserve` left, if any. */
  private exhausted(reserve = 0): FuelLimit | undefined {
    if (this.budget.total - this.totalUsed <= reserve) return "total";
    if (this.budget.slice - this.stretchUsed <= reserve) return "slice";
    return undefined;
  }

  private refill(): void {
    const room = Math.min(this.budget.slice - this.stretchUsed, this.budget.total - this.totalUsed);
    this.refilledTo = room;
    this.fuel.value = room;
  }

  /** Charges what was spent since the last refill, and returns it. */
  private settle(): number {
    if (this.refilledTo === undefined) return 0;
    const left = this.fuel.value as number;
    if (left < 0) this.trapped = true;
    const spent = this.refilledTo - Math.max(0, left);
    this.stretchUsed += spent;
    this.totalUsed += spent;
    this.refilledTo = Math.max(0, left);
    return spent;
  }
}

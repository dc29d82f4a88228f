/**
 * Writes tools/lib/quickjs-metered.wasm: the QuickJS release-sync wasm with a fuel meter, so
 * native work that never polls QuickJS's interrupt handler (a 16 MB `indexOf`, a spread of a
 * million elements) still ends within a budget the host sets. Every loop header and every
 * function entry subtracts one from a new exported mutable i32 global, `fuel`, and traps
 * (`unreachable`) once it is below zero. The host refills it (tools/lib/fuel-meter.ts).
 *
 * The rewrite is binaryen's: read, add the global and its export, wrap loop bodies and function
 * bodies, validate, write. Nothing else is optimised or reordered, so the metered module
 * behaves exactly as the original until the fuel runs out.
 *
 * Beside the .wasm it writes a stamp (the input's and output's SHA-256), so `npm run gen`
 * skips the rewrite (about two seconds) when nothing changed; `--check` always rewrites and
 * exits 1 when the committed file differs.
 *
 * @example
 * ```sh
 * node scripts/meter-quickjs.ts          # write the metered wasm if it is stale
 * node scripts/meter-quickjs.ts --check  # exit 1 if the committed one is stale (CI)
 * ```
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import binaryen from "binaryen";

const SOURCE = "node_modules/@jitl/quickjs-wasmfile-release-sync/dist/emscripten-module.wasm";
const OUT_FILE = "tools/lib/quickjs-metered.wasm";
const STAMP_FILE = "tools/lib/quickjs-metered.json";
/** Bumped whenever the instrumentation changes, so a stamp from an older rewrite is stale. */
const METER_VERSION = 3;
/** The exported global the host reads and refills; one unit per loop iteration or call. */
export const FUEL_GLOBAL = "fuel";
const SIZE_GLOBAL = "fuel_bulk_size";
/**
 * One unit per 32 bytes of memory.copy/fill: a memcpy moves bytes some 50 times faster than
 * QuickJS's byte loops spend units (measured: about 3 units per byte of `indexOf`), so this
 * keeps a copy no cheaper per millisecond than the loops the budget was calibrated on.
 */
const BYTES_PER_FUEL_SHIFT = 5;

/** Expression kinds whose children are listed by getExpressionInfo under these fields. */
const CHILD_FIELDS = [
  "children",
  "operands",
  "condition",
  "ifTrue",
  "ifFalse",
  "body",
  "ptr",
  "left",
  "right",
  "delta",
  "dest",
  "source",
  "size",
  "value",
] as const;

/**
 * The kinds the QuickJS build contains (MVP, sign-extension, bulk memory). A kind outside
 * this list stops the rewrite: a loop under it would go unmetered without anyone noticing.
 */
const KNOWN_KINDS = new Set([
  binaryen.BlockId,
  binaryen.IfId,
  binaryen.LoopId,
  binaryen.BreakId,
  binaryen.SwitchId,
  binaryen.CallId,
  binaryen.CallIndirectId,
  binaryen.LocalGetId,
  binaryen.LocalSetId,
  binaryen.GlobalGetId,
  binaryen.GlobalSetId,
  binaryen.LoadId,
  binaryen.StoreId,
  binaryen.ConstId,
  binaryen.UnaryId,
  binaryen.BinaryId,
  binaryen.SelectId,
  binaryen.DropId,
  binaryen.ReturnId,
  binaryen.NopId,
  binaryen.UnreachableId,
  binaryen.MemorySizeId,
  binaryen.MemoryGrowId,
  binaryen.MemoryCopyId,
  binaryen.MemoryFillId,
]);

/** A node's body or length, read and replaced in place. */
interface Accessors {
  getBody(expression: number): number;
  setBody(expression: number, body: number): void;
  getSize(expression: number): number;
  setSize(expression: number, size: number): void;
}

/**
 * binaryen.js's in-place accessors (its Loop, MemoryCopy, MemoryFill and Function helpers),
 * which its own type declarations leave out; typed here for the few this script calls.
 */
const nodes: {
  Loop: Pick<Accessors, "getBody" | "setBody">;
  MemoryCopy: Pick<Accessors, "getSize" | "setSize">;
  MemoryFill: Pick<Accessors, "getSize" | "setSize">;
  Function: Pick<Accessors, "getBody" | "setBody">;
} = {
  // Read by name: the declarations do not list them, so the compiler has nothing to check here.
  Loop: Reflect.get(binaryen, "Loop"),
  MemoryCopy: Reflect.get(binaryen, "MemoryCopy"),
  MemoryFill: Reflect.get(binaryen, "MemoryFill"),
  Function: Reflect.get(binaryen, "Function"),
};

/** Returns the metered module's bytes and how many loops and functions were instrumented. */
export function meterQuickJS(source: Uint8Array): { wasm: Uint8Array; loops: number; functions: number } {
  const module = binaryen.readBinary(source);
  try {
    // readBinary assumes MVP; these are what Emscripten built QuickJS with, plus the exported
    // mutable global the meter adds. Stated here so validation fails on anything newer.
    module.setFeatures(
      binaryen.Features.MutableGlobals |
        binaryen.Features.SignExt |
        binaryen.Features.BulkMemory |
        binaryen.Features.BulkMemoryOpt |
        binaryen.Features.NontrappingFPToInt,
    );
    // Starts full: Emscripten's start-up code runs before the host can set a budget.
    module.addGlobal(FUEL_GLOBAL, binaryen.i32, true, module.i32.const(0x7fff_ffff));
    module.addGlobalExport(FUEL_GLOBAL, FUEL_GLOBAL);
    module.addGlobal(SIZE_GLOBAL, binaryen.i32, true, module.i32.const(0));
    const fuel = () => module.global.get(FUEL_GLOBAL, binaryen.i32);
    // fuel -= cost; if (fuel < 0) unreachable. A fresh expression per site: binaryen trees are not shared.
    const charge = (cost: number) =>
      module.block(null, [
        module.global.set(FUEL_GLOBAL, module.i32.sub(fuel(), cost)),
        module.if(module.i32.lt_s(fuel(), module.i32.const(0)), module.unreachable()),
      ]);
    const metered = (body: number) => module.block(null, [charge(module.i32.const(1)), body], binaryen.getExpressionType(body));
    // memory.copy and memory.fill do a whole memcpy or memset in one instruction: charged by
    // their length, so a loop of 16 MB string copies costs what its bytes cost. The length is
    // parked in a global (wasm runs on one thread) to charge it and still hand it to the copy.
    const sizeCharged = (size: number) =>
      module.block(
        null,
        [
          module.global.set(SIZE_GLOBAL, size),
          charge(module.i32.shr_u(module.global.get(SIZE_GLOBAL, binaryen.i32), module.i32.const(BYTES_PER_FUEL_SHIFT))),
          module.global.get(SIZE_GLOBAL, binaryen.i32),
        ],
        binaryen.i32,
      );
    let loops = 0;
    const loopsIn = (root: number) => {
      const stack = [root];
      for (let expression = stack.pop(); expression !== undefined; expression = stack.pop()) {
        const id = binaryen.getExpressionId(expression);
        if (!KNOWN_KINDS.has(id)) throw new Error(`meter-quickjs: expression kind ${id} is not handled; extend KNOWN_KINDS and CHILD_FIELDS`);
        // binaryen.js has no info table for `unreachable` (it has no children anyway).
        if (id === binaryen.UnreachableId || id === binaryen.ConstId) continue;
        // A copy typed by its fields' names: each kind's info has other child fields.
        const info: Record<string, unknown> = { ...binaryen.getExpressionInfo(expression) };
        for (const field of CHILD_FIELDS) {
          const child = info[field];
          if (Array.isArray(child)) stack.push(...(child as number[]));
          else if (typeof child === "number" && child !== 0) stack.push(child);
        }
        if (id === binaryen.MemoryCopyId) nodes.MemoryCopy.setSize(expression, sizeCharged(nodes.MemoryCopy.getSize(expression)));
        if (id === binaryen.MemoryFillId) nodes.MemoryFill.setSize(expression, sizeCharged(nodes.MemoryFill.getSize(expression)));
        if (id === binaryen.LoopId) {
          nodes.Loop.setBody(expression, metered(nodes.Loop.getBody(expression)));
          loops += 1;
        }
      }
    };
    let functions = 0;
    for (let i = 0; i < module.getNumFunctions(); i++) {
      const fn = module.getFunctionByIndex(i);
      const { body } = binaryen.getFunctionInfo(fn);
      if (body === 0) continue; // an import
      loopsIn(body);
      nodes.Function.setBody(fn, metered(nodes.Function.getBody(fn)));
      functions += 1;
    }
    if (!module.validate()) throw new Error("meter-quickjs: the metered module does not validate");
    return { wasm: module.emitBinary(), loops, functions };
  } finally {
    module.dispose();
  }
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** The command line: `[--check] [--root <dir>]`. Returns the exit code. */
export function main(argv: readonly string[]): number {
  const check = argv.includes("--check");
  const rootAt = argv.indexOf("--root");
  const root = resolve(rootAt >= 0 ? (argv[rootAt + 1] ?? ".") : ".");
  const source = readFileSync(join(root, SOURCE));
  const outPath = join(root, OUT_FILE);
  const stampPath = join(root, STAMP_FILE);
  const current = existsSync(outPath) ? readFileSync(outPath) : undefined;
  const stamp = { meterVersion: METER_VERSION, source: sha256(source), output: current === undefined ? "" : sha256(current) };
  if (!check && existsSync(stampPath) && readFileSync(stampPath, "utf8") === `${JSON.stringify(stamp, null, 2)}\n`) return 0;
  const { wasm, loops, functions } = meterQuickJS(source);
  const fresh = current !== undefined && Buffer.compare(Buffer.from(wasm), current) === 0;
  if (check) {
    if (fresh) return 0;
    console.error(`meter-quickjs: ${OUT_FILE} is stale; run \`npm run gen\` and commit it`);
    return 1;
  }
  if (!fresh) writeFileSync(outPath, wasm);
  writeFileSync(stampPath, `${JSON.stringify({ ...stamp, output: sha256(wasm) }, null, 2)}\n`);
  console.log(`meter-quickjs: ${OUT_FILE} metered (${loops} loops, ${functions} functions)`);
  return 0;
}

if (import.meta.main) process.exitCode = main(process.argv.slice(2));

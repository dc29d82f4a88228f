/**
 * The isolate's QuickJS WebAssembly instances: a small pool, one instance per running script.
 * The release-sync variant: the smallest build, and a script's `await tools.x()` needs no
 * stack switching, because the host resumes the script through QuickJS's promise jobs
 * (run-script.ts) rather than by suspending wasm.
 *
 * The wasm is the fuel-metered copy (scripts/meter-quickjs.ts, tools/lib/fuel-meter.ts). A
 * script whose native work outruns its fuel traps, and a trap leaves that instance's C heap
 * mid-operation: the instance is dropped, never reused. So each running script holds an
 * instance of its own, leased from here and handed back when its run ended cleanly.
 *
 * workerd cannot compile WebAssembly from bytes at run time, so the .wasm is imported as a
 * module: wrangler and the vitest plugin compile it when the Worker loads; instances (and their
 * memories) are made here, by execute_code calls.
 */

import type { QuickJSWASMModule } from "quickjs-emscripten-core";
import wasmModule from "./quickjs-metered.wasm";

/** The size the build expects its memory to start at (its INITIAL_MEMORY), in 64 KiB pages. */
const INITIAL_PAGES = 256;

/**
 * The ceiling of one instance's memory. This, not QuickJS's own limit, bounds a script's total
 * allocation: the prebuilt wasm cannot measure its blocks (no malloc_usable_size under
 * Emscripten), so `setMemoryLimit` refuses only single allocations over the limit and never
 * adds them up. A memory whose `maximum` is ours makes the allocator's growth fail past it,
 * which QuickJS reports as "out of memory".
 */
export const WASM_MEMORY_BYTES = 24 * 1024 * 1024;

/**
 * Live instances at most: 3 x 24 MiB of wasm memory leaves a Worker's 128 MB room for
 * everything else. More scripts than this wait for an instance, within their deadline.
 */
export const MAX_INSTANCES = 3;

/** One instance: the QuickJS module over it, and its fuel global (fuel-meter.ts). */
export interface QuickJSInstance {
  module: QuickJSWASMModule;
  fuel: WebAssembly.Global;
  memory: WebAssembly.Memory;
}

/** An instance lent to one script. */
export interface QuickJSLease {
  instance: QuickJSInstance;
  /** Hands the instance back: reused when `sound`, dropped when the run trapped or would not dispose. */
  release(sound: boolean): void;
}

/** Lends instances to scripts, at most `maxInstances` live at once. */
export interface QuickJSPool {
  /** An instance, or undefined when none came free before `deadlineAt` or the signal aborted. */
  acquire(deadlineAt: number, signal: AbortSignal): Promise<QuickJSLease | undefined>;
}

/**
 * How often a script waiting for an instance looks again. Waiters poll with timers of their
 * own: workerd forbids one request's handler to touch another's timers or settle what it
 * waits on ("Cannot perform I/O on behalf of a different request"), so the script that hands
 * an instance back cannot wake the next one.
 */
const WAIT_POLL_MS = 5;

/** A pool of instances made by `instantiate` (a test can pass its own). */
export function createQuickJSPool({ maxInstances = MAX_INSTANCES, instantiate = instantiateQuickJS } = {}): QuickJSPool {
  const idle: QuickJSInstance[] = [];
  let live = 0;

  const lend = (instance: QuickJSInstance): QuickJSLease => {
    let released = false;
    return {
      instance,
      release(sound) {
        if (released) return;
        released = true;
        // A memory that grew keeps its size for the isolate's life: drop it to give that back.
        if (sound && instance.memory.buffer.byteLength <= INITIAL_PAGES * 65_536) idle.push(instance);
        else live -= 1;
      },
    };
  };

  const take = async (): Promise<QuickJSLease | undefined> => {
    const instance = idle.pop();
    if (instance !== undefined) return lend(instance);
    if (live >= maxInstances) return undefined;
    live += 1;
    try {
      return lend(await instantiate());
    } catch (error) {
      // A failed instantiation takes no place: the next script tries again.
      live -= 1;
      throw error;
    }
  };

  return {
    async acquire(deadlineAt, signal) {
      for (;;) {
        const lease = await take();
        if (lease !== undefined) return lease;
        if (signal.aborted || Date.now() >= deadlineAt) return undefined;
        await new Promise((resolve) => setTimeout(resolve, Math.min(WAIT_POLL_MS, Math.max(0, deadlineAt - Date.now()))));
      }
    },
  };
}

/** A new instance of the metered module, with its own memory. */
export async function instantiateQuickJS(): Promise<QuickJSInstance> {
  const memory = new WebAssembly.Memory({ initial: INITIAL_PAGES, maximum: WASM_MEMORY_BYTES / 65_536 });
  let fuel: WebAssembly.Global | undefined;
  // Imported at the first script, not at start-up, which every cold isolate pays (issue 33).
  const [{ default: RELEASE_SYNC }, { newQuickJSWASMModuleFromVariant, newVariant }] = await Promise.all([
    import("@jitl/quickjs-wasmfile-release-sync"),
    import("quickjs-emscripten-core"),
  ]);
  const module = await newQuickJSWASMModuleFromVariant(
    newVariant(RELEASE_SYNC, {
      wasmMemory: memory,
      emscriptenModule: {
        // Instantiated here rather than through the `wasmModule` option, to keep the instance's `fuel` export.
        async instantiateWasm(imports, onSuccess) {
          const instance = await WebAssembly.instantiate(wasmModule, imports);
          const exported = instance.exports.fuel;
          if (exported instanceof WebAssembly.Global) fuel = exported;
          onSuccess(instance);
          return instance.exports;
        },
      },
    }),
  );
  if (fuel === undefined) throw new Error("quickjs-metered.wasm exports no `fuel` global: run `npm run gen`");
  return { module, fuel, memory };
}

/** The isolate's pool, shared by its execute_code calls. */
export const quickJSPool: QuickJSPool = createQuickJSPool();

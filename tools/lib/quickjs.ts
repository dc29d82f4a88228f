/**
 * The QuickJS WebAssembly module, instantiated on first use and then shared by the isolate's
 * scripts (each script gets a runtime of its own). The release-sync variant: the smallest
 * build, and a script's `await tools.x()` needs no stack switching, because the host resumes
 * the script through QuickJS's promise jobs (run-script.ts) rather than by suspending wasm.
 *
 * workerd cannot compile WebAssembly from bytes at run time, so the .wasm is imported as a
 * module: wrangler and the vitest plugin compile it when the Worker loads; the instance (and
 * its memory) is only made here, by the first execute_code call. It is imported by file path,
 * not the package's `./wasm` export: wrangler picks a module's type by its path's extension,
 * and the export name has none.
 */

import RELEASE_SYNC from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from "quickjs-emscripten-core";
import wasmModule from "../../node_modules/@jitl/quickjs-wasmfile-release-sync/dist/emscripten-module.wasm";

/** The size the build expects its memory to start at (its INITIAL_MEMORY), in 64 KiB pages. */
const INITIAL_PAGES = 256;

/**
 * The ceiling of the instance's memory, shared by every script the isolate runs at once. This,
 * not QuickJS's own limit, is what bounds a script's total allocation: the prebuilt wasm cannot
 * measure its blocks (no malloc_usable_size under Emscripten), so `setMemoryLimit` refuses only
 * single allocations over the limit and never adds them up. A memory whose `maximum` is ours
 * makes the allocator's growth fail past it, which QuickJS reports as "out of memory".
 * 64 MiB leaves a Worker's 128 MB room for everything else.
 */
export const WASM_MEMORY_BYTES = 64 * 1024 * 1024;

let loading: Promise<QuickJSWASMModule> | undefined;

/** The isolate's QuickJS module, instantiated by the first caller. */
export function quickJS(): Promise<QuickJSWASMModule> {
  loading ??= newQuickJSWASMModuleFromVariant(
    newVariant(RELEASE_SYNC, { wasmModule, wasmMemory: async () => new WebAssembly.Memory({ initial: INITIAL_PAGES, maximum: WASM_MEMORY_BYTES / 65_536 }) }),
  ).catch((error: unknown) => {
    // A failed instantiation is not cached: the next script tries again.
    loading = undefined;
    throw error;
  });
  return loading;
}

/**
 * Drops the module after a script left it in doubt (a runtime that would not dispose): the
 * next script gets a fresh instance and fresh memory instead of a heap that may be corrupt.
 */
export function discardQuickJS(): void {
  loading = undefined;
}

/**
 * The TypeScript compiler API, loaded with `require`. `import ts from "typescript"` costs about
 * 250 ms more on Node 22: typescript.js has no "type" field, so the ESM loader first scans its
 * 9 MB for module syntax and then lexes it for named exports. The generator runs before every
 * test run and dev rebuild, so that is most of its runtime.
 */
import { createRequire, enableCompileCache } from "node:module";

// Compiling typescript.js is most of what is left (~280 ms); Node's on-disk compile cache (in
// the OS temp folder, keyed by file content) brings a warm run down to a fraction of that.
enableCompileCache();

export const ts: typeof import("typescript") = createRequire(import.meta.url)("typescript");

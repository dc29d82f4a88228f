/**
 * zod's classic API as the Worker gets it (src/bundle/zod.ts makes this the `z` namespace):
 * every export of zod's own, except those shadowed below.
 *
 * Explicit exports take precedence over `export *` (ECMAScript, ResolveExport), so each name
 * below replaces zod's and leaves the code behind it out of the bundle. zod is imported by its
 * file path, not `zod/...`: esbuild applies an alias to subpaths too, which would send
 * `zod/v4/...` back to src/bundle/zod.ts.
 */
export * from "../../node_modules/zod/v4/classic/external.js";

/**
 * A member left out of the Worker build. Any use throws, naming this file, so a new use fails
 * the first test that reaches it (tests run with the same alias) rather than reading undefined.
 */
function leftOut(name: string): never {
  const refuse = (): never => {
    throw new Error(`zod's ${name} is left out of the Worker bundle (src/bundle/zod-api.ts); drop it from the list there to use it`);
  };
  // Typed never on purpose (not a route's cast): reading a member of never does not compile, so
  // most uses fail in the typecheck before they can throw here.
  return new Proxy(refuse, { get: refuse, apply: refuse, construct: refuse, has: refuse }) as never;
}

export const locales = leftOut("locales");
export const core = leftOut("core");
export const compile = leftOut("compile");
export const withParser = leftOut("withParser");
export const INVALID = leftOut("INVALID");
export const ZodCompileAsyncError = leftOut("ZodCompileAsyncError");
export const ZodCompileUnsupportedError = leftOut("ZodCompileUnsupportedError");

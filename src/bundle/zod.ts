/**
 * The `zod` the Worker is built with (wrangler.toml `[alias]`, vitest.config.ts `resolve.alias`):
 * zod's classic API less the members nothing in the Worker uses and that would otherwise
 * dominate its bundle (zod-api.ts lists them).
 *
 * Why: @hono/zod-openapi passes the whole `z` namespace to `extendZodWithOpenApi(z)`, so the
 * bundler must keep every export of that namespace, used or not: `locales` (every language's
 * error messages, ~258 KiB minified), `core` (zod's internals as one object, the locales
 * again among them) and the ahead-of-time compiler (`compile`, ~29 KiB). Error messages stay
 * English: zod's classic schemas install the `en` locale themselves.
 *
 * Shaped like zod's own index: the API's names, and the same namespace as `z` and as the
 * default export. Types are zod's own: TypeScript does not follow the alias.
 */
import * as z from "./zod-api.ts";

export * from "./zod-api.ts";
export { z, z as default };

// typescript-eslint for the two promise rules only (issue 28). Biome formats and lints everything
// else, but its noFloatingPromises / noMisusedPromises cannot resolve the Workers types in
// worker-configuration.d.ts, so a floating KV `put`, D1 `run`, Queue `send` or Durable Object
// stub call goes unseen there. These rules read the real TypeScript program instead. Add no other
// rule here: one tool owns each concern.
import { defineConfig, globalIgnores } from "eslint/config";
import tseslint from "typescript-eslint";

export default defineConfig(
  // Generated code is rewritten by scripts/; fixtures are deliberately odd input for the codegen
  // tests; the rest is build output, vendored, or its own package (bench/).
  globalIgnores(["**/*.gen.ts", "test/fixtures/**", "assets/docs/viewer/**", ".wrangler/**", "dist/**", ".bench/**", "test-artifacts/**", "bench/**"]),
  {
    files: ["{src,tools,webhooks,plugins,apis,scripts,test}/**/*.{ts,tsx}"],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: {
        // Two programs, as in `npm run typecheck`: the Worker (workerd types) and the Node side
        // (scripts, test/scripts). A file is checked against the first program that holds it.
        project: ["./tsconfig.json", "./tsconfig.node.json"],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { "@typescript-eslint": tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
    },
  },
);

import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// Two projects: everything that ships in the Worker runs inside workerd against real local
// bindings; the build-time generator (scripts/) is a Node program, so its tests run in Node.
export default defineConfig({
  test: {
    // Pipeline tests provoke failures on purpose; print their logs only when a test fails.
    silent: "passed-only",
    projects: [
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings: { TOOLGATE_TEST: "1" },
            },
          }),
        ],
        test: {
          name: "worker",
          include: ["test/**/*.test.ts"],
          exclude: ["test/scripts/**"],
          setupFiles: ["./test/setup.ts"],
        },
      },
      {
        test: {
          name: "scripts",
          environment: "node",
          include: ["test/scripts/**/*.test.ts"],
        },
      },
    ],
  },
});

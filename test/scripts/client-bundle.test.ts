/**
 * `toolgate/client` bundles for a browser as it is: nothing in it reaches for a Node built-in or a
 * Worker-only module, so the one client serves Node, Workers and web pages (the workerd side is
 * test/client/create-client.test.ts).
 */

import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

describe("the client bundle", () => {
  it("builds for the browser platform from the client, openapi-fetch and eventsource-parser alone", async () => {
    const result = await build({
      entryPoints: [`${ROOT}src/client/index.ts`],
      bundle: true,
      write: false,
      format: "esm",
      platform: "browser",
      metafile: true,
      logLevel: "silent",
    });
    expect(result.errors).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    // eventsource-parser reads a run's events (followRun); it is plain code with no platform imports.
    const allowed = ["src/client/", "node_modules/openapi-fetch/", "node_modules/eventsource-parser/"];
    expect(inputs.filter((input) => !allowed.some((prefix) => input.startsWith(prefix)))).toEqual([]);
  }, 30_000);
});

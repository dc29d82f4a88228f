/**
 * The vendored API reference viewer (assets/docs/viewer/) is the file the page pins: its SHA-384
 * is the one /docs names in `integrity` (a different file would be refused by the browser), and
 * no older copy is left behind to be served.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DOCS_VIEWER_INTEGRITY, DOCS_VIEWER_PATH } from "../../src/http/docs/docs-viewer.ts";

const ASSETS = fileURLToPath(new URL("../../assets/", import.meta.url));

describe("the vendored docs viewer", () => {
  it("is the file /docs pins by hash", () => {
    const bytes = readFileSync(`${ASSETS}${DOCS_VIEWER_PATH.slice(1)}`);
    expect(`sha384-${createHash("sha384").update(bytes).digest("base64")}`).toBe(DOCS_VIEWER_INTEGRITY);
  });

  it("is the only file in the viewer's folder", () => {
    expect(readdirSync(`${ASSETS}docs/viewer`)).toEqual([DOCS_VIEWER_PATH.split("/").pop()]);
  });
});

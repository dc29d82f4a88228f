/** GET /docs: the reference page loads our own pinned viewer, under a policy allowing only our origin. */
import { describe, expect, it } from "vitest";
import { DOCS_VIEWER_INTEGRITY, DOCS_VIEWER_PATH } from "../../../src/http/docs/docs-viewer.ts";
import { api } from "../../support/api.ts";

describe("GET /docs", () => {
  it("loads the viewer from our own origin, pinned by its hash, and reads /openapi.json", async () => {
    const res = await api("/docs", { headers: { authorization: "" } });
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain(`<script src="${DOCS_VIEWER_PATH}" integrity="${DOCS_VIEWER_INTEGRITY}"></script>`);
    expect(page).toContain('data-url="/openapi.json"');
    // No script from anywhere else, and no inline script.
    expect(page.match(/<script[^>]*src="https?:/g)).toBeNull();
    expect(page.match(/<script[^>]*>[^<]+<\/script>/g)).toBeNull();
  });

  it("answers with a Content-Security-Policy that allows scripts and connections to our origin only", async () => {
    const policy = (await api("/docs")).headers.get("content-security-policy") ?? "";
    const directives = Object.fromEntries(policy.split(/;\s*/).map((d) => [d.split(" ")[0], d.split(" ").slice(1).join(" ")]));
    expect(directives).toMatchObject({ "default-src": "'none'", "script-src": "'self'", "connect-src": "'self'", "frame-ancestors": "'none'" });
    expect(policy).not.toMatch(/https?:|\*/);
  });
});

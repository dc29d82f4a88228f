import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { requestHost, requestOrigin } from "../../src/http/request-origin.ts";

/** What the Worker receives: the serialized form of whatever URL the client sent. */
const serialized = (url: string): string => new Request(url).url;

describe("requestOrigin and requestHost", () => {
  it.each([
    "https://gate.example.com/mcp",
    "http://localhost:9280/mcp/github?x=1",
    "HTTPS://Gate.Example.COM:443/mcp",
    "http://gate.example.com:80/mcp#frag",
    "http://[::1]:8787/mcp",
    "http://127.0.0.1:8787/mcp?next=/other/path@x",
    "https://user:secret@gate.example.com/mcp",
    "https://@gate.example.com/mcp",
    "http://xn--bcher-kva.example/mcp",
    "https://bücher.example/mcp",
    "https://gate.example.com",
  ])("agree with new URL() for %s", (raw) => {
    const url = serialized(raw);
    expect(requestOrigin(url)).toBe(new URL(url).origin);
    expect(requestHost(url)).toBe(new URL(url).host);
  });

  it("agree with new URL() for any http(s) URL", () => {
    fc.assert(
      fc.property(fc.webUrl({ validSchemes: ["http", "https"], withQueryParameters: true, withFragments: true }), (raw) => {
        const url = serialized(raw);
        expect([requestOrigin(url), requestHost(url)]).toEqual([new URL(url).origin, new URL(url).host]);
      }),
      { numRuns: 500 },
    );
  });
});

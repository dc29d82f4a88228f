import { describe, expect, it } from "vitest";
import { hostAllowed, rebindingRefusal } from "../../../src/mcp/http/allowed-hosts.ts";

describe("DNS-rebinding checks", () => {
  it("accepts loopback names on any port, configured or not", () => {
    for (const host of ["localhost", "127.0.0.1:8787", "[::1]:9000", "LOCALHOST:1"]) {
      expect(hostAllowed(host, undefined)).toBe(true);
      expect(hostAllowed(host, ["gw.example.com"])).toBe(true);
    }
  });

  it("accepts workers.dev names only while MCP_ALLOWED_HOSTS is unset", () => {
    expect(hostAllowed("toolgate.acme.workers.dev", undefined)).toBe(true);
    expect(hostAllowed("toolgate.acme.workers.dev", ["gw.example.com"])).toBe(false);
    expect(hostAllowed("evil.example.com", undefined)).toBe(false);
  });

  it("matches names, host:port and *.domain patterns", () => {
    const allowed = ["gw.example.com", "api.example.org:8443", "*.corp.example"];
    expect(hostAllowed("gw.example.com:443", allowed)).toBe(true);
    expect(hostAllowed("api.example.org:8443", allowed)).toBe(true);
    expect(hostAllowed("api.example.org", allowed)).toBe(false);
    expect(hostAllowed("mcp.corp.example", allowed)).toBe(true);
    expect(hostAllowed("corp.example.evil.com", allowed)).toBe(false);
  });

  it("refuses a foreign Origin even when the Host is fine, and a malformed one", () => {
    expect(rebindingRefusal("localhost:8787", "http://evil.example.com", undefined)).toContain("Origin 'http://evil.example.com'");
    expect(rebindingRefusal("localhost:8787", "null", undefined)).toContain("not a URL");
    expect(rebindingRefusal("localhost:8787", "http://localhost:3000", undefined)).toBeUndefined();
    expect(rebindingRefusal("evil.example.com", undefined, undefined)).toContain("Host 'evil.example.com'");
  });
});

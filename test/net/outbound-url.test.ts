import { describe, expect, it } from "vitest";
import { checkOutboundUrl, fetchOutbound, OutboundUrlError } from "../../src/net/outbound-url.ts";

const refused = (url: string, allow: string[] = []) => {
  const check = checkOutboundUrl(url, allow);
  return check.ok ? undefined : check.reason;
};

describe("checkOutboundUrl", () => {
  it.each(["https://api.github.com/repos/a/b", "http://example.com:8080/hook", "https://93.184.216.34/", "https://[2606:4700::6810:84e5]/"])(
    "lets the public URL %s through",
    (url) => {
      expect(refused(url)).toBeUndefined();
    },
  );

  it.each([
    ["http://127.0.0.1:9240/mcp", "loopback"],
    ["http://localhost/", "local"],
    ["http://api.localhost/", "local"],
    ["http://10.1.2.3/", "private"],
    ["http://172.20.0.1/", "private"],
    ["http://192.168.1.1/", "private"],
    ["http://169.254.169.254/latest/meta-data/", "link-local"],
    ["http://100.64.0.1/", "private"],
    ["http://0.0.0.0/", "reserved"],
    ["http://[::1]/", "IPv6"],
    ["http://[::]/", "IPv6"],
    ["http://[fe80::1]/", "IPv6"],
    ["http://[fd00::1]/", "IPv6"],
    ["http://[::ffff:127.0.0.1]/", "IPv6"],
    ["http://[::ffff:10.0.0.1]/", "IPv6"],
    ["http://[64:ff9b::a9fe:a9fe]/", "IPv6"],
    ["http://metadata.google.internal/", "private"],
    ["http://intranet/", "single-label"],
  ])("refuses %s", (url, word) => {
    expect(refused(url)).toContain(word);
  });

  it("sees through the spellings the URL parser normalises to loopback", () => {
    for (const url of ["http://0x7f.1/", "http://2130706433/", "http://0177.0.0.1/", "http://127.1/", "http://LOCALHOST./"]) {
      expect(refused(url), url).toBeDefined();
    }
  });

  it("refuses other schemes, credentials and garbage with a reason", () => {
    expect(refused("file:///etc/passwd")).toMatch(/only http and https/);
    expect(refused("ftp://example.com/")).toMatch(/only http and https/);
    expect(refused("https://user:pw@example.com/")).toMatch(/credentials/);
    expect(refused("not a url")).toMatch(/not an absolute URL/);
  });

  it("lets OUTBOUND_ALLOW entries through by host or host:port glob, and only those", () => {
    expect(refused("http://127.0.0.1:9240/mcp", ["127.0.0.1:9240"])).toBeUndefined();
    expect(refused("http://127.0.0.1:9241/mcp", ["127.0.0.1:9240"])).toContain("OUTBOUND_ALLOW");
    expect(refused("http://localhost:3001/", ["localhost"])).toBeUndefined();
    expect(refused("http://10.0.0.7/", ["10.0.0.*"])).toBeUndefined();
    expect(refused("http://127.0.0.1/", ["127.0.0.1:80"])).toBeUndefined();
  });
});

describe("fetchOutbound", () => {
  it("re-checks every redirect hop, so a public URL cannot bounce to a private one", async () => {
    const seen: string[] = [];
    const fetcher = async (url: string, init: RequestInit) => {
      seen.push(url);
      expect(init.redirect).toBe("manual");
      return new Response(null, { status: 302, headers: { location: "http://169.254.169.254/latest" } });
    };
    await expect(fetchOutbound("https://example.com/start", {}, [], fetcher)).rejects.toThrow(OutboundUrlError);
    expect(seen).toEqual(["https://example.com/start"]);
  });

  it("follows permitted redirects and stops after the limit", async () => {
    let n = 0;
    const loop = async () => new Response(null, { status: 307, headers: { location: `/next${++n}` } });
    await expect(fetchOutbound("https://example.com/", {}, [], loop)).rejects.toThrow(/more than 5 redirects/);
    const once = async (url: string) => (url.endsWith("/final") ? new Response("done") : new Response(null, { status: 301, headers: { location: "/final" } }));
    expect(await (await fetchOutbound("https://example.com/", {}, [], once)).text()).toBe("done");
  });

  it("refuses a private first URL without fetching it", async () => {
    let called = false;
    await expect(fetchOutbound("http://127.0.0.1/", {}, [], async () => ((called = true), new Response()))).rejects.toThrow(/OUTBOUND_ALLOW/);
    expect(called).toBe(false);
  });
});

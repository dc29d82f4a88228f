/**
 * Federation behaviour that needs a server we script (test/support/fake-mcp-server.ts, built
 * with the official SDK): name sanitising and the 64-character cut, include/exclude, collisions
 * that fail closed, pinned definitions that change (announced in-band with list_changed),
 * remote isError results, and the per-server breaker.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { remoteToolName } from "../../../src/mcp/federation/remote-tool-name.ts";
import { defineTool, registry } from "../../../src/registry/registry.ts";
import { LONG_TOOL_A, LONG_TOOL_B } from "../../support/fake-mcp-server.ts";
import { FAKE_MCP_HOST } from "../../support/test-env.ts";
import { waitForAuditRows } from "../../support/wait-for-audit-rows.ts";
import { addServer, fedApi, listedTools, runCall } from "./helpers.ts";

const NAMES_URL = `http://${FAKE_MCP_HOST}/names`;
const PINNED_URL = `http://${FAKE_MCP_HOST}/pinned`;

const script = (body: Record<string, unknown>) => fetch(`http://${FAKE_MCP_HOST}/control`, { method: "POST", body: JSON.stringify(body) });

beforeEach(async () => {
  await script({ reset: true });
});
afterEach(async () => {
  await script({ reset: true });
});

type Status = {
  tools: { name: string; remote_name: string; pin: { status: string } }[];
  problems: string[];
};

describe("names", () => {
  it("sanitises remote names to [A-Za-z0-9_-] and cuts long ones to 64 characters that stay distinct", async () => {
    const status = (await addServer({ name: "names", url: NAMES_URL, exclude: ["echo"] })) as Status;
    const names = status.tools.map((tool) => tool.name);
    expect(names).toContain("mcp__names__list_items_v2");
    const longA = remoteToolName("names", LONG_TOOL_A);
    const longB = remoteToolName("names", LONG_TOOL_B);
    expect(longA).toHaveLength(64);
    expect(longB).toHaveLength(64);
    expect(longA).not.toBe(longB);
    expect(names).toEqual(expect.arrayContaining([longA, longB]));
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });

  it("leaves out every tool of a group whose names sanitise alike, and reports it", async () => {
    const status = (await addServer({ name: "clash", url: NAMES_URL })) as Status;
    expect(status.tools.map((tool) => tool.remote_name)).not.toContain("read.file");
    expect(status.tools.map((tool) => tool.remote_name)).not.toContain("read file");
    expect(status.problems).toEqual([expect.stringContaining("'read.file', 'read file' all become 'mcp__clash__read_file'")]);
    expect(registry.has("mcp__clash__read_file")).toBe(false);
  });

  it("offers only included tools when include is given, even if exclude names them too", async () => {
    await addServer({ name: "picky", url: NAMES_URL, include: ["keep_*", "drop_me"], exclude: ["drop_me"] });
    expect(await listedTools("mcp-picky")).toEqual(["mcp__picky__drop_me", "mcp__picky__keep_me"]);
  });

  it("applies exclude globs when there is no include", async () => {
    await addServer({ name: "trimmed", url: NAMES_URL, exclude: ["read*", "*_me", "mcp*", "a*"] });
    expect(await listedTools("mcp-trimmed")).toEqual(["mcp__trimmed__echo", "mcp__trimmed__list_items_v2"]);
  });
});

describe("collisions", () => {
  it("never replaces a built-in tool: the remote one is refused and reported", async () => {
    const builtin = defineTool({ name: "mcp__fakenames__echo", toolset: "local-test", schema: z.object({}), handler: () => "the built-in" });
    expect(registry.register(builtin)).toMatchObject({ ok: true });
    try {
      const status = (await addServer({ name: "fakenames", url: NAMES_URL, include: ["echo", "keep_me"] })) as Status;
      expect(status.tools.map((tool) => tool.name)).toEqual(["mcp__fakenames__keep_me"]);
      expect(status.problems).toEqual([expect.stringContaining("built-in toolset 'local-test' already has")]);
      expect(registry.get("mcp__fakenames__echo")?.toolset).toBe("local-test");
      expect(await runCall("mcp__fakenames__echo", {})).toMatchObject({ status: "ok", message: { content: "the built-in" } });
    } finally {
      registry.deregister("mcp__fakenames__echo");
    }
  });

  it("never replaces another server's tool: the second server's is refused", async () => {
    // Server `a` tool `b__keep_me` and server `a__b` tool `keep_me` both make mcp__a__b__keep_me.
    await addServer({ name: "a__b", url: NAMES_URL, include: ["keep_me"] });
    expect(registry.get("mcp__a__b__keep_me")?.toolset).toBe("mcp-a__b");
    const second = (await addServer({ name: "a", url: NAMES_URL, include: ["b__keep_me", "keep_me"] })) as Status;
    expect(second.tools.map((tool) => tool.name)).toEqual(["mcp__a__keep_me"]);
    expect(second.problems).toEqual([expect.stringContaining("MCP server 'a__b' already has")]);
    expect(registry.get("mcp__a__b__keep_me")?.toolset).toBe("mcp-a__b");
  });
});

describe("pinning", () => {
  it("flags a changed definition announced by list_changed, audits it, and keeps the tool usable in warn mode", async () => {
    await addServer({ name: "warned", url: PINNED_URL });
    expect(await runCall("mcp__warned__mutate", {})).toMatchObject({ status: "ok", message: { content: "greet changed" } });

    // The list_changed that came with mutate's answer made the cached list stale: the next
    // request fetches it again and sees greet's new description.
    const list = (await (await fedApi("/v1/tools?toolset=mcp-warned")).json()) as {
      tools: { function: { name: string; description: string } }[];
      pin_changes?: unknown[];
    };
    expect(list.tools.find((t) => t.function.name === "mcp__warned__greet")?.function.description).toMatch(/changed at/);
    expect(list.pin_changes).toEqual([{ tool: "mcp__warned__greet", pin: expect.objectContaining({ status: "changed" }) }]);
    const detail = (await (await fedApi("/v1/tools/mcp__warned__greet")).json()) as { pin: { status: string; pinned_sha256: string; current_sha256: string } };
    expect(detail.pin.status).toBe("changed");
    expect(detail.pin.current_sha256).not.toBe(detail.pin.pinned_sha256);
    expect(await runCall("mcp__warned__greet", { name: "Ada" })).toMatchObject({ status: "ok", message: { content: "Hello, Ada!" } });

    const row = await waitForAuditRow("mcp__warned__greet", "pin_changed");
    expect(row).toMatchObject({ key_id: "federation", policy_rule: "pin:warn", status: "ok" });
  });

  it("blocks a changed tool when the server says so, until an admin accepts the new definition", async () => {
    await addServer({ name: "strict", url: PINNED_URL, pin: "block" });
    await script({ greetDescription: "Greets someone, and now also emails them" });
    expect((await fedApi("/v1/mcp-servers/strict/refresh", { method: "POST" })).status).toBe(200);

    expect(await listedTools("mcp-strict")).not.toContain("mcp__strict__greet");
    const blocked = await runCall("mcp__strict__greet", { name: "Ada" });
    expect(blocked).toMatchObject({ status: "error", error_code: "TOOL_UNAVAILABLE" });
    expect(JSON.parse(blocked.message.content).error).toContain("changed since it was pinned");
    const list = (await (await fedApi("/v1/tools?toolset=mcp-strict")).json()) as { pin_changes?: unknown[] };
    expect(list.pin_changes).toEqual([{ tool: "mcp__strict__greet", pin: expect.objectContaining({ status: "blocked" }) }]);

    const accepted = await fedApi("/v1/mcp-servers/strict/tools/greet/accept", { method: "POST" });
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toMatchObject({ tool: "greet", pin: { status: "pinned", current_sha256: null } });
    expect(await listedTools("mcp-strict")).toContain("mcp__strict__greet");
    expect(await runCall("mcp__strict__greet", { name: "Ada", times: "2" })).toMatchObject({ status: "ok", message: { content: "Hello, Ada!Hello, Ada!" } });
    expect(await waitForAuditRow("mcp__strict__greet", "pin_accepted")).toMatchObject({ key_id: "admin-token", status: "approved" });

    // Nothing left to accept.
    expect((await fedApi("/v1/mcp-servers/strict/tools/mcp__strict__greet/accept", { method: "POST" })).status).toBe(409);
  });
});

describe("hostile tool lists", () => {
  it("refuses tools whose schemas are 10,000 deep or hold 1,000,000 values as the server's problems, and registers the rest", async () => {
    const status = (await addServer({ name: "hostile", url: `http://${FAKE_MCP_HOST}/hostile` })) as Status;
    expect(status.tools.map((tool) => tool.remote_name).sort()).toEqual(["cycle", "plain"]);
    expect(status.problems).toEqual([
      expect.stringMatching(/^'deep' has an input schema nested deeper than 64 levels \(at properties\.a\.items\.items\..*\); not registered$/),
      "'wide' has an input schema of more than 20000 values; not registered",
    ]);
    // The listing every model reads still serialises, and the $ref cycle validates through zod's lazy import.
    expect(await listedTools("mcp-hostile")).toEqual(["mcp__hostile__cycle", "mcp__hostile__plain"]);
    expect(await runCall("mcp__hostile__cycle", { head: { value: 1, next: { value: 2 } } })).toMatchObject({ status: "ok", message: { content: "called" } });
    expect(await runCall("mcp__hostile__cycle", { head: { value: 1, next: { value: "two" } } })).toMatchObject({
      status: "error",
      error_code: "INVALID_ARGUMENTS",
    });
  });

  it("registers only the first 1,000 of 10,000 tools and says so", async () => {
    const status = (await addServer({ name: "many", url: `http://${FAKE_MCP_HOST}/many` })) as Status;
    expect(status.tools).toHaveLength(1_000);
    expect(status.problems).toEqual(["the server lists 10000 tools; only the first 1000 are considered, the other 9000 are not registered"]);
    expect(registry.has("mcp__many__tool_999")).toBe(true);
    expect(registry.has("mcp__many__tool_1000")).toBe(false);
  });
});

describe("remote failures", () => {
  it("maps an isError result to EXECUTION_FAILED with the server's text, credentials redacted", async () => {
    await addServer({ name: "failing", url: PINNED_URL, include: ["fail"] });
    const result = await runCall("mcp__failing__fail", {});
    expect(result).toMatchObject({ status: "error", error_code: "EXECUTION_FAILED" });
    const envelope = JSON.parse(result.message.content) as { error: string };
    expect(envelope.error).toContain("the widget is jammed");
    expect(envelope.error).not.toContain("sk-live-123456");
  });

  it("opens the server's breaker after 3 failures in a row, refuses calls during its 60 s cooldown, and closes after a successful probe", async () => {
    await addServer({ name: "flaky", url: PINNED_URL, include: ["greet"] });
    // One good call first: the server was reachable a moment ago, so availability (cached 30 s)
    // lets calls through and it is the breaker that must stop them.
    expect(await runCall("mcp__flaky__greet", { name: "x" })).toMatchObject({ status: "ok" });
    await script({ down: true });
    for (let i = 0; i < 3; i++)
      expect(await runCall("mcp__flaky__greet", { name: "x" })).toMatchObject({ status: "error", error_code: "UPSTREAM_ERROR", attempts: 1 });
    const paused = await runCall("mcp__flaky__greet", { name: "x" });
    expect(paused).toMatchObject({ status: "error", error_code: "TOOL_UNAVAILABLE" });
    expect(JSON.parse(paused.message.content)).toMatchObject({ retryable: true, error: expect.stringContaining("MCP server 'flaky' failed 3 times") });
    await script({ down: false });
    // Still open for its 60 s cooldown although the server is back.
    expect(await runCall("mcp__flaky__greet", { name: "x" })).toMatchObject({ error_code: "TOOL_UNAVAILABLE" });
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.now() + 61_000);
      // After the cooldown one probe call goes through; its success closes the circuit.
      expect(await runCall("mcp__flaky__greet", { name: "x" })).toMatchObject({ status: "ok" });
      expect(await runCall("mcp__flaky__greet", { name: "y" })).toMatchObject({ status: "ok", message: { content: "Hello, y!" } });
    } finally {
      vi.useRealTimers();
    }
  });
});

async function waitForAuditRow(tool: string, decision: string): Promise<Record<string, unknown> | undefined> {
  return (await waitForAuditRows("tool = ? AND policy_decision = ?", [tool, decision]))[0];
}

/**
 * The commit step of a multi-file patch (tools/lib/workspace/commit-files.ts) on the real local
 * R2 bucket: a file changed since it was read stops the commit before anything is written, and a
 * write refused by its condition puts back the files written before it. The race is made
 * deterministic by another writer that lands between the check and the writes (a real put,
 * run when the check has read that file).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { commitFiles } from "../../../tools/lib/workspace/commit-files.ts";
import { readStoredFile, type StoredFile, type Workspace } from "../../../tools/lib/workspace/workspace.ts";

const text = new TextEncoder();

/** A workspace of its own, with `files` stored, and what each looked like when read. */
async function workspace(files: Record<string, string>): Promise<{ ws: Workspace; read: Record<string, StoredFile> }> {
  const ws = { bucket: env.WORKSPACE, prefix: `commit-${crypto.randomUUID()}/` };
  const read: Record<string, StoredFile> = {};
  for (const [path, content] of Object.entries(files)) {
    await env.WORKSPACE.put(ws.prefix + path, content);
    const stored = await readStoredFile(ws, path, "patch");
    if (stored !== undefined) read[path] = stored;
  }
  return { ws, read };
}

const content = async (ws: Workspace, path: string) => (await env.WORKSPACE.get(ws.prefix + path))?.text() ?? null;

describe("commitFiles", () => {
  it("writes updates and creations and deletes last", async () => {
    const { ws, read } = await workspace({ "a.txt": "a", "gone.txt": "bye" });
    const result = await commitFiles(ws, [
      { path: "a.txt", before: read["a.txt"], after: text.encode("A") },
      { path: "new.txt", before: undefined, after: text.encode("new") },
      { path: "gone.txt", before: read["gone.txt"], after: undefined },
    ]);
    expect(result).toEqual({ ok: true });
    expect([await content(ws, "a.txt"), await content(ws, "new.txt"), await content(ws, "gone.txt")]).toEqual(["A", "new", null]);
  });

  it("writes nothing when a file changed after it was read", async () => {
    const { ws, read } = await workspace({ "a.txt": "a", "b.txt": "b" });
    await env.WORKSPACE.put(`${ws.prefix}b.txt`, "changed by another call");
    const result = await commitFiles(ws, [
      { path: "a.txt", before: read["a.txt"], after: text.encode("A") },
      { path: "b.txt", before: read["b.txt"], after: text.encode("B") },
    ]);
    expect(result).toMatchObject({ ok: false, path: "b.txt", restored: true });
    expect([await content(ws, "a.txt"), await content(ws, "b.txt")]).toEqual(["a", "changed by another call"]);
  });

  it("puts back the files it wrote when a later write is refused, and deletes nothing", async () => {
    const { ws, read } = await workspace({ "a.txt": "a", "b.txt": "b", "c.txt": "c" });
    // Another writer lands on b.txt right after the check has read it: the check passes, b's write is refused.
    const racing: Workspace = {
      prefix: ws.prefix,
      bucket: new Proxy(env.WORKSPACE, {
        get(target, name) {
          if (name === "head")
            return async (key: string) => {
              const head = await target.head(key);
              if (key.endsWith("b.txt")) await target.put(key, "the other writer's");
              return head;
            };
          const value: unknown = Reflect.get(target, name);
          return typeof value === "function" ? value.bind(target) : value;
        },
      }),
    };
    const result = await commitFiles(racing, [
      { path: "a.txt", before: read["a.txt"], after: text.encode("A") },
      { path: "new.txt", before: undefined, after: text.encode("new") },
      { path: "b.txt", before: read["b.txt"], after: text.encode("B") },
      { path: "c.txt", before: read["c.txt"], after: undefined },
    ]);
    expect(result).toMatchObject({ ok: false, path: "b.txt", restored: true });
    expect(result.ok === false && result.reason).toContain("changed while the patch was being written");
    expect([await content(ws, "a.txt"), await content(ws, "new.txt"), await content(ws, "b.txt"), await content(ws, "c.txt")]).toEqual([
      "a",
      null,
      "the other writer's",
      "c",
    ]);
  });
});

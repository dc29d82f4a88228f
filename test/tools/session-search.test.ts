/**
 * session_search over real runs (scripted model) and the real D1 FTS5 index: a key finds its own
 * finished runs by what the user wrote, a tool returned or the agent answered, with a snippet and
 * links; never another key's; a run whose `runs` row the retention cron deletes leaves the index;
 * a query full of FTS5 syntax is searched as text, never an error.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { deleteExpiredRuns } from "../../src/agent/run-retention.ts";
import { ftsQueryOf, MAX_QUERY_TERMS } from "../../src/agent/run-search.ts";
import { callTools, type Key, only } from "../approvals/support.ts";
import { createKey } from "../support/create-key.ts";
import { marker, scriptModel } from "../support/model-script.ts";
import { runUntil, startRun } from "../support/runs.ts";
import { openaiCall } from "../support/tool-calls.ts";

const FINISHED = ["completed", "failed", "limit_reached", "cancelled"];
let nextCall = 0;

interface SearchBody {
  count: number;
  results: { run_id: string; snippet: string; link: string; api: string; status: string }[];
  error?: string;
}

async function search(key: Key, args: Record<string, unknown>): Promise<{ status: string; body: SearchBody }> {
  const result = only(await callTools(key, "search-s", [openaiCall(`ss${nextCall++}`, "session_search", args)]));
  return { status: result.status, body: JSON.parse(result.message.content) as SearchBody };
}

/** A finished run of `key`'s: the user says `input`, echo returns `echoed`, the agent answers `answer`. */
async function finishedRun(key: Key, input: string, echoed: string, answer: string): Promise<string> {
  const script = await scriptModel([{ tool_calls: [{ id: "e1", name: "echo", arguments: JSON.stringify({ text: echoed }) }] }, { content: answer }]);
  const { id } = await startRun({ input: `${marker(script)} ${input}` }, { authorization: `Bearer ${key.key}` });
  expect((await runUntil(id, FINISHED)).status).toBe("completed");
  return id;
}

describe("session_search", () => {
  it("finds the key's own runs by user message, tool result or answer, with a snippet and links; never another key's", async () => {
    const alice = await createKey({ name: `ss-alice-${crypto.randomUUID()}`, role: "agent" });
    const bob = await createKey({ name: `ss-bob-${crypto.randomUUID()}`, role: "agent" });
    const mine = await finishedRun(alice, "plan the walrus migration", "kelp inventory", "The walrus moves on Tuesday.");
    const theirs = await finishedRun(bob, "plan the walrus migration too", "kelp elsewhere", "Bob's walrus stays.");

    for (const query of ["walrus migration", "kelp", "Tuesday"]) {
      const { status, body } = await search(alice, { query });
      expect(status, query).toBe("ok");
      expect(
        body.results.map((r) => r.run_id),
        query,
      ).toEqual([mine]);
    }
    const hit = (await search(alice, { query: "kelp" })).body.results[0];
    expect(hit?.snippet).toContain("[kelp]");
    expect(hit?.api).toBe(`/v1/runs/${mine}`);
    expect(hit?.link).toMatch(new RegExp(`/chat/runs/${mine}$`));
    expect((await search(bob, { query: "walrus" })).body.results.map((r) => r.run_id)).toEqual([theirs]);
    expect((await search(alice, { query: "walrus elsewhere" })).body).toMatchObject({ count: 0, results: [] });
  });

  it("searches FTS5 syntax and SQL as plain text: no error, no other key's rows, bounded results", async () => {
    const key = await createKey({ name: `ss-hostile-${crypto.randomUUID()}`, role: "agent" });
    await finishedRun(key, 'the "quoted" NEAR(thing) * deploy', "ok", "done");
    const hostile = ['NEAR("a" "b")', "deploy*", "a OR b", "- deploy", "col:deploy", "'); DROP TABLE runs; --", '"quoted"', "^deploy", "AND", 'deploy"'];
    for (const query of hostile) {
      const { status, body } = await search(key, { query, limit: 10 });
      expect(status, query).toBe("ok");
      expect(body.results.length, query).toBeLessThanOrEqual(10);
    }
    for (const query of ['"', "*", "((((", "- ^ :"]) expect((await search(key, { query })).body.error, query).toContain("no word");
    expect((await search(key, { query: '"quoted" NEAR(thing)' })).body.count).toBe(1);
    // Nothing to search for is the caller's mistake, said as such.
    expect((await search(key, { query: "!!! ---" })).body.error).toContain("no word");
    for (const args of [{ query: "" }, { query: "x".repeat(501) }, { query: "x", limit: 11 }, { query: "x", limit: 0 }]) {
      const result = only(await callTools(key, "search-s", [openaiCall(`ss${nextCall++}`, "session_search", args)]));
      expect(result.status).toBe("error");
      expect(JSON.parse(result.message.content)).toMatchObject({ error_code: "INVALID_ARGUMENTS" });
    }
  });

  it("forgets a run once retention deletes its runs row", async () => {
    const key = await createKey({ name: `ss-retention-${crypto.randomUUID()}`, role: "agent" });
    const id = await finishedRun(key, "the narwhal ledger", "tusk", "filed");
    expect((await search(key, { query: "narwhal" })).body.count).toBe(1);
    // The run as if it had finished long ago: its row and its document carry its last change.
    await env.DB.batch([
      env.DB.prepare("UPDATE runs SET updated_at = 0 WHERE id = ?").bind(id),
      env.DB.prepare("UPDATE run_search_docs SET updated_at = 0 WHERE run_id = ?").bind(id),
    ]);
    await deleteExpiredRuns(env.DB, 30, Date.now());
    expect((await search(key, { query: "narwhal" })).body.count).toBe(0);
    const left = await env.DB.prepare("SELECT COUNT(*) AS n FROM run_search_docs WHERE run_id = ?").bind(id).first<{ n: number }>();
    expect(left?.n).toBe(0);
  });

  it("quotes each word, doubles inner quotes, and keeps at most MAX_QUERY_TERMS words", () => {
    expect(ftsQueryOf('say "hi" NEAR(x)')).toBe('"say" """hi""" "NEAR(x)"');
    expect(ftsQueryOf("* - ^ :")).toBeUndefined();
    expect(ftsQueryOf(Array.from({ length: 30 }, (_, i) => `w${i}`).join(" "))?.split(" ")).toHaveLength(MAX_QUERY_TERMS);
  });
});

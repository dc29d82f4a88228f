/**
 * How concurrent requests share one federation sync. A request that finds a sync under way waits
 * for it on timers of its own instead of awaiting the syncing request's promise: on workerd,
 * awaiting that promise could resume the waiter in the other request's I/O context, and reading
 * its own body then failed ("Cannot perform I/O on behalf of a different request").
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { Federation, SYNC_WAIT_MAX_MS } from "../../../src/mcp/federation/federation.ts";

/** The test env whose KV `list` answers with `answers`, in order, then with the real KV. */
function envListing(answers: Promise<KVNamespaceListResult<unknown>>[]): { env: Env; lists: () => number } {
  let lists = 0;
  const kv = env.KV;
  const KV = {
    list: (options?: KVNamespaceListOptions) => {
      lists += 1;
      return answers.shift() ?? kv.list(options);
    },
    get: kv.get.bind(kv),
  } as KVNamespace;
  return { env: { ...env, KV } as Env, lists: () => lists };
}

const EMPTY_LIST: KVNamespaceListResult<unknown> = { keys: [], list_complete: true, cacheStatus: null };

/** "settled" if `promise` settles within `ms` of real time, else "pending". */
function within(promise: Promise<unknown>, ms: number): Promise<"settled" | "pending"> {
  return Promise.race([promise.then(() => "settled" as const), new Promise<"pending">((resolve) => setTimeout(() => resolve("pending"), ms))]);
}

describe("Federation.ensure under concurrent requests", () => {
  it("runs one sync for requests that arrive while it is under way, and lets each go once it ends", async () => {
    const gate = Promise.withResolvers<KVNamespaceListResult<unknown>>();
    const { env: listing, lists } = envListing([gate.promise]);
    const federation = new Federation(() => 1_000_000);
    const first = federation.ensure(listing);
    const second = federation.ensure(listing);
    expect(await within(second, 50)).toBe("pending");
    gate.resolve(EMPTY_LIST);
    expect(await within(Promise.all([first, second]), 1_000)).toBe("settled");
    expect(lists()).toBe(1);
  });

  it("does not hold later requests on a sync whose request never finished (its promise never settles), and syncs again", async () => {
    let now = 1_000_000;
    const never = new Promise<KVNamespaceListResult<unknown>>(() => undefined);
    const { env: listing, lists } = envListing([never]);
    const federation = new Federation(() => now);
    void federation.ensure(listing);
    const waiting = federation.ensure(listing);
    expect(await within(waiting, 50)).toBe("pending");
    now += SYNC_WAIT_MAX_MS;
    expect(await within(waiting, 1_000)).toBe("settled");
    await federation.ensure(listing);
    expect(lists()).toBe(2);
  });
});

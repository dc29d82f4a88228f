/**
 * Where a client's answer to a server-to-client request (sampling, elicitation) meets the call
 * that asked. The server is stateless: the question goes out on the SSE stream of a tools/call
 * in one isolate, and the client POSTs its answer as a new request, which any isolate may get.
 * One object per request id (`idFromName(id)`) is the meeting point: the asking call waits on
 * it, the answering request delivers to it, whichever arrives first.
 *
 * Only the key that asked may answer: an answer from another key is refused.
 */
import { DurableObject } from "cloudflare:workers";
import type { RpcError } from "../server/json-rpc.ts";

/** What the client answered: its `result`, or its `error`. */
export interface ClientReply {
  result?: unknown;
  error?: RpcError;
}

/** Storage key of an answer that arrived before its asker started waiting (docs/storage.md). */
export const EARLY_REPLY_KEY = "reply";

interface EarlyReply {
  keyId: string;
  reply: ClientReply;
}

/** How long an answer nobody waited for is kept before the object deletes it. */
const EARLY_REPLY_TTL_MS = 120_000;

export class McpReplies extends DurableObject<Env> {
  #waiter: { keyId: string; resolve: (reply: ClientReply | undefined) => void } | undefined;

  /** Waits for the answer from `keyId`'s client; undefined after `timeoutMs` without one. */
  async wait(keyId: string, timeoutMs: number): Promise<ClientReply | undefined> {
    const early = await this.ctx.storage.get<EarlyReply>(EARLY_REPLY_KEY);
    if (early !== undefined) {
      await this.ctx.storage.delete(EARLY_REPLY_KEY);
      return early.keyId === keyId ? early.reply : undefined;
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(undefined), timeoutMs);
      const finish = (reply: ClientReply | undefined) => {
        clearTimeout(timer);
        this.#waiter = undefined;
        resolve(reply);
      };
      this.#waiter = { keyId, resolve: finish };
    });
  }

  /** Hands `keyId`'s answer to the waiting call; false when another key asked. */
  async deliver(keyId: string, reply: ClientReply): Promise<boolean> {
    const waiter = this.#waiter;
    if (waiter !== undefined) {
      if (waiter.keyId !== keyId) return false;
      waiter.resolve(reply);
      return true;
    }
    // The answer outran the asker's wait call: keep it for a while (the alarm removes it).
    await this.ctx.storage.put<EarlyReply>(EARLY_REPLY_KEY, { keyId, reply });
    await this.ctx.storage.setAlarm(Date.now() + EARLY_REPLY_TTL_MS);
    return true;
  }

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }
}

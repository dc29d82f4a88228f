/**
 * The MemoryStore object's RPC contract, as types only: the tool, the HTTP route and the MCP
 * resource import this and the stub, never the object's code.
 */
import type { ChangeResult, MemoryChange, MemoryTarget } from "./memory-entries.ts";

/** One store as every reader sees it: its entries in order, the characters used and the budget. */
export interface MemoryStoreView {
  target: MemoryTarget;
  entries: string[];
  chars: number;
  limit: number;
}

/** Both stores of one key. */
export interface MemorySnapshot {
  memory: MemoryStoreView;
  user: MemoryStoreView;
}

/** A change's outcome (without the entries, which `store` carries) and the store after it. */
export type MemoryAnswer = (Exclude<ChangeResult, { ok: true }> | { ok: true; changed: boolean; message: string }) & { store: MemoryStoreView };

/** The MemoryStore object's RPC methods (the class implements this). */
export interface MemoryApi {
  read(): Promise<MemorySnapshot>;
  change(target: MemoryTarget, changes: MemoryChange[]): Promise<MemoryAnswer>;
}

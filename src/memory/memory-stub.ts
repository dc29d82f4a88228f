/** The one place that turns an API key's id into its MemoryStore object (one object per key). */
import type { MemoryApi } from "./memory-api.ts";

/** The key's memory object (created on first use), typed as the class's own interface. */
export function memoryStub(env: Env, keyId: string): MemoryApi {
  return env.MEMORY.get(env.MEMORY.idFromName(keyId)) as MemoryApi;
}

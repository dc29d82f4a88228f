/**
 * Stands in for workerd's `cloudflare:workers` while scripts/gen-client.ts loads the app in
 * Node: the routes' modules import the Durable Object and entrypoint base classes and `env`
 * (the OAuth provider library extends WorkerEntrypoint), and only their declarations run when the
 * OpenAPI document is made (no object is ever constructed).
 */
export class DurableObject {
  constructor(
    protected readonly ctx: unknown,
    protected readonly env: unknown,
  ) {}
}

export class WorkerEntrypoint {
  constructor(
    protected readonly ctx: unknown,
    protected readonly env: unknown,
  ) {}
}

export const env = {};

/**
 * Stands in for workerd's `cloudflare:workers` while scripts/gen-client.ts loads the app in
 * Node: the routes' modules import the Durable Object base class and `env`, and only their
 * declarations run when the OpenAPI document is made (no object is ever constructed).
 */
export class DurableObject {
  constructor(
    protected readonly ctx: unknown,
    protected readonly env: unknown,
  ) {}
}

export const env = {};

/**
 * A closed-loop load generator: `concurrency` workers each send one request, wait for the
 * answer, and send the next, over keep-alive connections, until the round's time is up. Every
 * latency is measured on the client with process.hrtime. Only loopback targets are accepted,
 * and a round stops on its own at its deadline or its request cap, whichever comes first.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { Pool } from "undici";

export interface RequestSpec {
  method: "GET" | "POST" | "DELETE";
  /** Path and query, such as `/v1/tools?toolset=bench`. */
  path: string;
  body?: string;
  /** Extra request headers (the bench Worker picks the pipeline by one, see requests.ts). */
  headers?: Readonly<Record<string, string>>;
}

export interface RoundOptions {
  concurrency: number;
  durationMs: number;
  /** A safety bound on requests per round, whatever the duration. */
  maxRequests?: number;
}

export interface RoundResult {
  requests: number;
  elapsedMs: number;
  /** Client-side latencies in milliseconds, in completion order. */
  latenciesMs: Float64Array;
}

const DEFAULT_MAX_REQUESTS = 500_000;
/** How long close() lets in-flight requests finish before it drops their connections. */
const CLOSE_GRACE_MS = 2_000;

/** Refuses anything but 127.0.0.1, so a misconfigured URL can never load someone else's host. */
function assertLoopback(origin: URL): void {
  if (origin.hostname !== "127.0.0.1") throw new Error(`bench: refusing to send load to ${origin.host}; only 127.0.0.1 is allowed`);
}

/** A keep-alive connection pool to one loopback origin, sized to the largest concurrency used. */
export class LoadClient {
  readonly #pool: Pool;
  readonly #headers: Readonly<Record<string, string>>;
  #closing: Promise<void> | undefined;

  /** `headers` go with every request (the bench's Authorization, say). */
  constructor(origin: URL, connections: number, headers: Readonly<Record<string, string>> = {}) {
    assertLoopback(origin);
    this.#pool = new Pool(origin.origin, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
    this.#headers = headers;
  }

  /** Sends one request and returns the status and body (for checks, not for timing). */
  async send(spec: RequestSpec): Promise<{ status: number; body: string }> {
    const { statusCode, body } = await this.#pool.request(this.#requestOptions(spec));
    return { status: statusCode, body: await body.text() };
  }

  /** Runs one timed round; a non-2xx answer fails the round, since its timing would be meaningless. */
  async round(spec: RequestSpec, { concurrency, durationMs, maxRequests = DEFAULT_MAX_REQUESTS }: RoundOptions): Promise<RoundResult> {
    const latencies = new Float64Array(maxRequests);
    const options = this.#requestOptions(spec);
    let issued = 0;
    let done = 0;
    const started = process.hrtime.bigint();
    const deadline = started + BigInt(Math.round(durationMs * 1e6));
    const worker = async (): Promise<void> => {
      while (issued < maxRequests && process.hrtime.bigint() < deadline) {
        issued += 1;
        const t0 = process.hrtime.bigint();
        const { statusCode, body } = await this.#pool.request(options);
        await body.dump({ limit: Number.POSITIVE_INFINITY });
        const t1 = process.hrtime.bigint();
        if (statusCode < 200 || statusCode > 299) throw new Error(`bench: ${spec.method} ${spec.path} answered ${statusCode}`);
        latencies[done] = Number(t1 - t0) / 1e6;
        done += 1;
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
    return { requests: done, elapsedMs, latenciesMs: latencies.slice(0, done) };
  }

  #requestOptions(spec: RequestSpec) {
    const headers = { ...(spec.body === undefined ? {} : { "content-type": "application/json" }), ...this.#headers, ...spec.headers };
    return { method: spec.method, path: spec.path, headers, ...(spec.body === undefined ? {} : { body: spec.body }) };
  }

  /**
   * Closes the pool: in-flight requests get `graceMs` to finish, then their connections are
   * dropped (a wedged server would otherwise hold close() forever). Idempotent, and it never
   * rejects: it runs in cleanup, after a watchdog or a failed scenario, where an error would
   * hide the report (undici rejects a second close or a close after destroy with
   * ClientDestroyedError).
   */
  close(graceMs = CLOSE_GRACE_MS): Promise<void> {
    this.#closing ??= this.#shutDown(graceMs);
    return this.#closing;
  }

  async #shutDown(graceMs: number): Promise<void> {
    if (this.#pool.destroyed) return;
    const closed = this.#pool.close().then(
      () => true,
      () => false,
    );
    const finished = await Promise.race([closed, sleep(graceMs, false, { ref: false })]);
    if (finished || this.#pool.destroyed) return;
    // Requests still running are failed by the destroy; their scenario has been given up on.
    await this.#pool.destroy().catch(() => undefined);
  }
}

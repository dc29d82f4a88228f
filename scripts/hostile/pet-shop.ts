/**
 * The example OpenAPI source's API (apis/petstore.ts, https://petstore.example/v1) answered inside
 * the bench Worker, for the hostile suite: its tools' worst inputs must reach a call and its
 * answer, not the outside network, which this machine does not have and a test must not use.
 * Every read answers the worst an API may send: 8 MiB of JSON, over the 5 MiB a result reads
 * (api-response.ts); every write answers 201 with an empty object. Served by wrapping the global
 * fetch, as the scripted model is (scripts/bench/scripted-model.ts); other hosts go through.
 */
const ORIGIN = "https://petstore.example/";
const ANSWER_BYTES = 8 * 1024 * 1024;

export function installPetShop(): void {
  const real = globalThis.fetch;
  let huge: string | undefined;
  globalThis.fetch = async function petShopFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith(ORIGIN)) return real(input, init);
    const request = new Request(input, init);
    await request.body?.cancel();
    const json = { "content-type": "application/json" };
    if (request.method !== "GET" && request.method !== "HEAD") return new Response("{}", { status: 201, headers: json });
    // Built at the first read, not at start-up, and kept: one string, sent to every read.
    huge ??= `[${'"pet",'.repeat(Math.floor(ANSWER_BYTES / 6))}"pet"]`;
    return new Response(huge, { headers: json });
  };
}

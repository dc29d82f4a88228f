/**
 * Fetches a runtime source's spec: through the SSRF guard at every redirect hop, within a
 * deadline, and never past the spec size cap (the rest of the body is not downloaded). Returns
 * the text and its SHA-256, which pins the spec.
 */
import { loadConfig } from "../config/config.ts";
import { bytesToHex } from "../crypto/encoding.ts";
import { fetchOutbound, OutboundUrlError } from "../net/outbound-url.ts";
import { readTextCapped } from "../net/read-capped.ts";
import { MAX_SPEC_CHARS } from "./max-spec-chars.ts";

/** A spec server slower than this is reported, not waited for: the admin's request is waiting. */
const SPEC_FETCH_TIMEOUT_MS = 20_000;

export type FetchedSpec = { ok: true; text: string; sha256: string } | { ok: false; reason: string };

export async function fetchSpec(env: Env, url: string): Promise<FetchedSpec> {
  let response: Response;
  try {
    response = await fetchOutbound(
      url,
      { headers: { accept: "application/json, application/yaml, text/yaml, */*;q=0.5" }, signal: AbortSignal.timeout(SPEC_FETCH_TIMEOUT_MS) },
      loadConfig(env).outboundAllow,
    );
  } catch (error) {
    if (error instanceof OutboundUrlError) return { ok: false, reason: `the spec URL is refused: ${error.message}` };
    const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
    return {
      ok: false,
      reason: timedOut ? `the spec did not arrive within ${SPEC_FETCH_TIMEOUT_MS / 1000} s` : `the spec could not be fetched: ${String(error)}`,
    };
  }
  if (!response.ok) {
    await response.body?.cancel();
    return { ok: false, reason: `the spec URL answered HTTP ${response.status}` };
  }
  // UTF-8 bytes are at least as many as characters, so this cap never refuses a spec loadSpec would take.
  const body = await readTextCapped(response, MAX_SPEC_CHARS * 4);
  if (body.cut || body.text.length > MAX_SPEC_CHARS) {
    return { ok: false, reason: `the spec is larger than ${MAX_SPEC_CHARS.toLocaleString("en")} characters, the most toolgate converts` };
  }
  return { ok: true, text: body.text, sha256: await specSha256(body.text) };
}

/** WebCrypto here, not src/crypto/sha256.ts: a spec is megabytes, where the native digest wins. */
export async function specSha256(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return bytesToHex(digest);
}

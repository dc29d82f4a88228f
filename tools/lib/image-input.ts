/**
 * The image vision_analyze hands the model: read from a URL (through the SSRF guard at every
 * redirect, lib/checked-fetch.ts) or from the caller's workspace, never more than
 * MAX_IMAGE_BYTES of it, and judged by its first bytes. The declared Content-Type is not
 * trusted: a server calls an HTML error page `image/png` as readily as a model names a text
 * file `chart.png`, and the model endpoint would fail on it, or read it as something it is not.
 */
import { ToolFailureError } from "../../src/errors/tool-failure.ts";
import { capStream } from "../../src/net/read-capped.ts";
import type { ToolContext } from "../../src/registry/types.ts";
import { checkedFetch } from "./checked-fetch.ts";
import type { Pacer } from "./workspace/pacer.ts";
import { fileNotFound, formatBytes, openWorkspace } from "./workspace/workspace.ts";
import { normalizePath } from "./workspace/workspace-path.ts";

/** The largest image sent: OpenAI's and most providers' per-image limits are higher, base64 adds a third. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

export type ImageType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

export interface ImageInput {
  bytes: Uint8Array;
  mediaType: ImageType;
  /** The URL or workspace path it came from. */
  source: string;
}

const ascii = (bytes: Uint8Array, from: number, text: string): boolean => [...text].every((c, i) => bytes[from + i] === c.charCodeAt(0));

/** The image type the bytes' signature names, or undefined when they are none of the four. */
export function sniffImage(bytes: Uint8Array): ImageType | undefined {
  if ([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((b, i) => bytes[i] === b)) return "image/png";
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  if (ascii(bytes, 0, "GIF87a") || ascii(bytes, 0, "GIF89a")) return "image/gif";
  if (ascii(bytes, 0, "RIFF") && ascii(bytes, 8, "WEBP")) return "image/webp";
  return undefined;
}

function refuse(tool: string, field: string, message: string): ToolFailureError {
  return new ToolFailureError({ kind: "invalid_arguments", name: tool, issues: [{ path: field, message }] });
}

const tooBig = (tool: string, field: string, source: string, size: string) =>
  refuse(tool, field, `${source} is ${size}, over the ${formatBytes(MAX_IMAGE_BYTES)} image limit; give a smaller or scaled-down image.`);

const sizeOf = (bytes: number) => `${formatBytes(bytes)} (${bytes.toLocaleString("en-US")} bytes)`;

/** The image at `url`, at most MAX_IMAGE_BYTES read of it. */
async function fromUrl(ctx: ToolContext, url: string): Promise<{ bytes: Uint8Array; declared: string }> {
  const response = await checkedFetch(
    ctx,
    url,
    { headers: { accept: "image/png,image/jpeg,image/gif,image/webp;q=0.9,*/*;q=0.1" } },
    { field: "image_url", follow: true },
  );
  if (!response.ok) {
    await response.body?.cancel();
    throw new ToolFailureError({ kind: "upstream", name: ctx.toolName, status: response.status, detail: `${url} answered ${response.status}, not an image` });
  }
  const declared = response.headers.get("content-type") ?? "none";
  const length = Number(response.headers.get("content-length") ?? "0");
  if (length > MAX_IMAGE_BYTES) {
    await response.body?.cancel();
    throw tooBig(ctx.toolName, "image_url", url, sizeOf(length));
  }
  if (response.body === null) return { bytes: new Uint8Array(0), declared };
  // One byte past the cap tells "too big" from "exactly the cap"; the rest is never downloaded.
  const capped = capStream(response.body, MAX_IMAGE_BYTES + 1);
  const bytes = new Uint8Array(await new Response(capped.stream).arrayBuffer());
  if (capped.cut) throw tooBig(ctx.toolName, "image_url", url, `more than ${formatBytes(MAX_IMAGE_BYTES)}`);
  return { bytes, declared };
}

/**
 * The image a call names (exactly one of `url`, `path`), or a tool error to answer: a missing
 * workspace file, with similar names. Refuses, as INVALID_ARGUMENTS naming the field, a private
 * URL, an image over the cap (before its body is read when its size is known) and bytes that
 * are not PNG, JPEG, GIF or WebP.
 */
export async function loadImage(ctx: ToolContext, url: string | undefined, path: string | undefined): Promise<ImageInput | { answer: string }> {
  let bytes: Uint8Array;
  let declared: string | undefined;
  let source: string;
  const field = url === undefined ? "path" : "image_url";
  if (url !== undefined) {
    source = url;
    ({ bytes, declared } = await fromUrl(ctx, url));
  } else {
    source = normalizePath(path ?? "", ctx.toolName);
    const ws = openWorkspace(ctx);
    const object = await ws.bucket.get(ws.prefix + source);
    if (object === null) {
      const { error, ...extra } = await fileNotFound(ws, source);
      return { answer: JSON.stringify({ error, ...extra }) };
    }
    if (object.size > MAX_IMAGE_BYTES) {
      await object.body.cancel();
      throw tooBig(ctx.toolName, field, source, sizeOf(object.size));
    }
    bytes = new Uint8Array(await object.arrayBuffer());
  }
  const mediaType = sniffImage(bytes);
  if (mediaType === undefined) {
    const head = [...bytes.subarray(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join(" ");
    throw refuse(
      ctx.toolName,
      field,
      `${source} is not a PNG, JPEG, GIF or WebP image: its first bytes are ${head === "" ? "none (it is empty)" : head}${declared === undefined ? "" : ` (declared Content-Type: ${declared.slice(0, 80)})`}.`,
    );
  }
  return { bytes, mediaType, source };
}

/** Bytes base64-encoded a slice at a time (STYLE 13): one `btoa` of 5 MiB is a long synchronous stretch. */
export async function toBase64(bytes: Uint8Array, pacer: Pacer): Promise<string> {
  const parts: string[] = [];
  // A multiple of 3, so no slice but the last is padded; 8,192 arguments per fromCharCode stay far under the call stack's limit.
  const CHUNK = 3 * 8192;
  for (let from = 0; from < bytes.length; from += CHUNK) {
    parts.push(btoa(String.fromCharCode(...bytes.subarray(from, from + CHUNK))));
    await pacer.step(CHUNK);
  }
  return parts.join("");
}

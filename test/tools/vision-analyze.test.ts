/**
 * vision_analyze through /v1/tool-calls with MODEL_VISION set, against the scripted model
 * (test/support/model-server.ts): the image reaches the model as an image_url data: part and its
 * answer comes back; images that are not images, too big, or on a private address are refused
 * before the model is asked; without MODEL_VISION the tool is unavailable and says why.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.ts";
import { workspacePrefix } from "../../src/storage/workspace-keys.ts";
import { createKey } from "../support/create-key.ts";
import { testParts } from "../support/dispatch.ts";
import { marker, scriptModel, sentToModel } from "../support/model-script.ts";
import { openaiCall } from "../support/tool-calls.ts";
import { PIXEL_PNG, WEB_HOST } from "../support/web-stub.ts";

const app = createApp(testParts);
const VISION_ENV = { ...env, MODEL_VISION: "true" } as Env;

interface Result {
  status: string;
  error_code: string | null;
  message: { content: string };
}

/** One vision_analyze call as a new agent key, under `environment`; the key's id and the result. */
async function analyze(args: Record<string, unknown>, seed?: { path: string; bytes: Uint8Array | string }, environment: Env = VISION_ENV) {
  const key = await createKey({ name: `vision-${crypto.randomUUID().slice(0, 8)}`, role: "agent" });
  if (seed !== undefined) await env.WORKSPACE.put(workspacePrefix("key", key.id, "") + seed.path, seed.bytes);
  const ctx = createExecutionContext();
  const response = await app.request(
    "/v1/tool-calls",
    {
      method: "POST",
      headers: { authorization: `Bearer ${key.key}`, "content-type": "application/json" },
      body: JSON.stringify({ tool_calls: [openaiCall("c-vision", "vision_analyze", args)] }),
    },
    environment,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  expect(response.status).toBe(200);
  const [result] = ((await response.json()) as { results: Result[] }).results;
  if (result === undefined) throw new Error("no result");
  return { result, body: JSON.parse(result.message.content) as Record<string, unknown> };
}

const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

describe("vision_analyze", () => {
  it("sends a workspace image to the model as an image_url data: part and returns its answer", async () => {
    const id = await scriptModel([{ content: "A single white pixel." }]);
    const question = `${marker(id)} What is in this image?`;
    const { result, body } = await analyze({ path: "shots/pixel.png", question }, { path: "shots/pixel.png", bytes: PIXEL_PNG });
    expect(result.status, result.message.content).toBe("ok");
    expect(body).toMatchObject({
      answer: "A single white pixel.",
      model: "scripted-model",
      image: { source: "shots/pixel.png", media_type: "image/png", bytes: PIXEL_PNG.length },
    });
    const { requests } = await sentToModel(id);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: question },
          { type: "image_url", image_url: { url: `data:image/png;base64,${base64(PIXEL_PNG)}` } },
        ],
      },
    ]);
    expect(requests[0]?.tools).toBeUndefined();
  });

  it("reads an image from a public URL", async () => {
    const id = await scriptModel([{ content: "A pixel from the web." }]);
    const { result, body } = await analyze({ image_url: `http://${WEB_HOST}/pixel.png`, question: `${marker(id)} Describe it.` });
    expect(result.status, result.message.content).toBe("ok");
    expect(body).toMatchObject({ answer: "A pixel from the web.", image: { source: `http://${WEB_HOST}/pixel.png`, media_type: "image/png" } });
  });

  it("refuses bytes that are not an image, whatever their name or Content-Type, without asking the model", async () => {
    const id = await scriptModel([{ content: "never" }]);
    const declared = await analyze({ image_url: `http://${WEB_HOST}/image.png`, question: `${marker(id)} What?` });
    expect(declared.result.error_code).toBe("INVALID_ARGUMENTS");
    expect(declared.body.issues).toEqual([
      expect.objectContaining({
        path: "image_url",
        message: expect.stringMatching(
          /is not a PNG, JPEG, GIF or WebP image: its first bytes are 89 50 4e 47 00 00 00 00 \(declared Content-Type: image\/png\)/,
        ),
      }),
    ]);
    const named = await analyze({ path: "chart.png", question: `${marker(id)} What?` }, { path: "chart.png", bytes: "<html>not a chart</html>" });
    expect(named.result.error_code).toBe("INVALID_ARGUMENTS");
    expect(named.body.issues).toEqual([
      expect.objectContaining({ path: "path", message: expect.stringContaining("chart.png is not a PNG, JPEG, GIF or WebP image") }),
    ]);
    expect((await sentToModel(id)).requests).toHaveLength(0);
  });

  it("refuses an image over 5 MiB, from the workspace before reading it and from a URL without reading past the cap", async () => {
    const over = new Uint8Array(5 * 1024 * 1024 + 1);
    over.set(PIXEL_PNG);
    const file = await analyze({ path: "big.png", question: "What?" }, { path: "big.png", bytes: over });
    expect(file.result.error_code).toBe("INVALID_ARGUMENTS");
    expect(file.body.issues).toEqual([
      expect.objectContaining({ path: "path", message: expect.stringContaining("is 5.0 MB (5,242,881 bytes), over the 5.0 MB image limit") }),
    ]);
    const streamed = await analyze({ image_url: `http://${WEB_HOST}/huge.gif`, question: "What?" });
    expect(streamed.result.error_code).toBe("INVALID_ARGUMENTS");
    expect(streamed.body.issues).toEqual([expect.objectContaining({ path: "image_url", message: expect.stringContaining("is more than 5.0 MB") })]);
  });

  it("refuses private, loopback and link-local URLs through the SSRF guard", async () => {
    for (const url of ["http://127.0.0.1:8080/a.png", "http://[::1]/a.png", "http://169.254.169.254/latest/a.png", "http://printer.local/a.png"]) {
      const { result, body } = await analyze({ image_url: url, question: "What?" });
      expect(result.error_code, url).toBe("INVALID_ARGUMENTS");
      expect(body.issues, url).toEqual([
        expect.objectContaining({ path: "image_url", message: expect.stringContaining("only public http(s) URLs can be fetched") }),
      ]);
    }
  });

  it("wants exactly one of image_url and path", async () => {
    const neither = await analyze({ question: "What?" });
    expect(neither.result.error_code).toBe("INVALID_ARGUMENTS");
    expect(neither.body.issues).toEqual([
      expect.objectContaining({ path: "image_url", message: expect.stringContaining("give the image as image_url or path") }),
    ]);
    const both = await analyze({ image_url: `http://${WEB_HOST}/pixel.png`, path: "a.png", question: "What?" });
    expect(both.body.issues).toEqual([expect.objectContaining({ path: "path", message: expect.stringContaining("not both") })]);
  });

  it("is unavailable without MODEL_VISION, saying which variable to set", async () => {
    const { result, body } = await analyze({ path: "shots/pixel.png", question: "What?" }, { path: "shots/pixel.png", bytes: PIXEL_PNG }, env);
    expect(result.error_code).toBe("TOOL_UNAVAILABLE");
    expect(String(body.error)).toContain("MODEL_VISION");
  });
});

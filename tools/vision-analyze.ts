/**
 * vision_analyze (Hermes's name): asks the configured model (MODEL_BASE_URL, MODEL_NAME) a
 * question about an image given as a URL or a workspace file, sent as an OpenAI-style
 * `image_url` content part holding a `data:` URL, so the model endpoint never fetches anything
 * itself (lib/image-input.ts reads and checks the image).
 *
 * Whether a model accepts images cannot be asked of an OpenAI-compatible endpoint (its model
 * list says nothing of it), so the operator says so: the tool is unavailable until MODEL_VISION
 * is `true`, and its reason names the variable. An env requirement rather than a cached check,
 * so setting the variable takes effect on the next request.
 */
import { z } from "zod";
import { MODEL_VARIABLES, resolveModel } from "../src/agent/model-config.ts";
import { runSettings } from "../src/agent/run-settings.ts";
import { ToolFailureError } from "../src/errors/tool-failure.ts";
import { registry } from "../src/registry/registry.ts";
import { toolError } from "../src/registry/tool-result.ts";
import type { ToolContext } from "../src/registry/types.ts";
import { loadImage, MAX_IMAGE_BYTES, toBase64 } from "./lib/image-input.ts";
import { pacerOf } from "./lib/workspace/pacer.ts";
import { formatBytes } from "./lib/workspace/workspace.ts";
import { fileResource, MAX_PATH_BYTES } from "./lib/workspace/workspace-path.ts";

const NAME = "vision_analyze";
const MAX_QUESTION_CHARS = 4_000;
/** The model reads a large image slowly; the run's own MODEL_TIMEOUT_MS bounds each attempt within this. */
const TIMEOUT_MS = 90_000;

const schema = () =>
  z
    .object({
      image_url: z
        .url({ protocol: /^https?$/, error: "must be an absolute http or https URL, such as https://example.com/chart.png" })
        .optional()
        .describe("The image's public http(s) URL; private, loopback and link-local addresses are refused. Give this or `path`."),
      path: z
        .string()
        .min(1)
        .max(MAX_PATH_BYTES)
        .optional()
        .describe("A workspace file holding the image, such as 'screenshots/login.png'. Give this or `image_url`."),
      question: z
        .string()
        .min(1)
        .max(MAX_QUESTION_CHARS)
        .describe(`What to find out about the image, such as 'What error does this dialog show?'. At most ${MAX_QUESTION_CHARS} characters.`),
    })
    .superRefine((args, issues) => {
      if ((args.image_url === undefined) === (args.path === undefined)) {
        const message = args.path === undefined ? "give the image as image_url or path" : "give image_url or path, not both";
        issues.addIssue({ code: "custom", path: [args.path === undefined ? "image_url" : "path"], input: args.image_url, message });
      }
    });

/** Why the model's answer failed, said so the model can act on it. */
function modelFailed(code: string, message: string): ToolFailureError {
  const hint = code === "MODEL_REFUSED" ? " If the model does not accept images, the operator should unset MODEL_VISION." : "";
  return new ToolFailureError({ kind: "handler_threw", name: NAME, detail: `the model could not answer (${code}): ${message}.${hint}`, retryable: false });
}

async function handler({ image_url: url, path, question }: z.output<ReturnType<typeof schema>>, ctx: ToolContext) {
  const target = resolveModel(ctx.env, undefined, ctx.keyId);
  if ("kind" in target) throw new ToolFailureError({ kind: "unavailable", name: NAME, reason: `no usable model (${target.kind})` });
  const image = await loadImage(ctx, url, path);
  if ("answer" in image) return image.answer;
  const data = await toBase64(image.bytes, pacerOf(ctx));
  // Joined as text, not serialised from an object: the base64 needs no escaping, and a 7 MB
  // string through JSON.stringify is one more long synchronous pass.
  const message = `{"role":"user","content":[{"type":"text","text":${JSON.stringify(question)}},{"type":"image_url","image_url":{"url":"data:${image.mediaType};base64,${data}"}}]}`;
  const settings = runSettings(ctx.env);
  // Imported on first use, as run-step.ts does: the client brings the `openai` package.
  const { callModel } = await import("../src/agent/model-client.ts");
  const answer = await callModel(
    target,
    { messages: [message], tools: [] },
    {
      deadlineAt: ctx.deadlineAt,
      timeoutMs: settings.modelTimeoutMs,
      attempts: settings.modelAttempts,
      backoffMs: settings.modelBackoffMs,
      signal: ctx.signal,
      stream: false,
    },
  );
  if (!answer.ok) throw modelFailed(answer.code, answer.message);
  const text = typeof answer.message.content === "string" ? answer.message.content.trim() : "";
  if (text === "") return toolError("The model answered without text; ask a more specific question.", { model: target.model });
  return {
    answer: text,
    model: target.model,
    image: { source: image.source, media_type: image.mediaType, bytes: image.bytes.length },
    ...(answer.usage === undefined ? {} : { usage: answer.usage }),
  };
}

registry.register({
  name: NAME,
  toolset: "vision",
  emoji: "👁️",
  // MODEL_VISION is how the operator says the model accepts images (see above).
  requiresEnv: [...MODEL_VARIABLES, "MODEL_VISION"],
  check: (env) => {
    const value = String(Reflect.get(env, "MODEL_VISION")).trim().toLowerCase();
    if (value !== "true") throw new Error(`MODEL_VISION is '${value}'; set it to 'true' when the model (MODEL_NAME) accepts image input, or unset it`);
    return true;
  },
  timeoutMs: TIMEOUT_MS,
  // Only a workspace image is a resource of the batch; a URL orders after nothing.
  reads: (args) => (typeof args.path === "string" ? fileResource(args) : []),
  schema,
  description:
    `Asks the configured vision model a question about an image: a public http(s) URL (image_url) or a workspace file (path). ` +
    `PNG, JPEG, GIF or WebP (judged by the file's bytes), at most ${formatBytes(MAX_IMAGE_BYTES)}. Returns the model's answer, the model's name and the image's type and size.`,
  example: { path: "screenshots/login.png", question: "What does the error message in this screenshot say?" },
  worstInputs: [
    {
      name: "a workspace image of exactly 5 MiB (GIF magic, then text): read, base64-encoded a slice at a time and sent",
      setup: () => [{ tool: "write_file", args: { path: "worst/vision-max.gif", content: `GIF89a${"x".repeat(MAX_IMAGE_BYTES - 6)}` } }],
      args: () => ({ path: "worst/vision-max.gif", question: "q".repeat(MAX_QUESTION_CHARS) }),
    },
    {
      name: "a workspace file one byte over the 5 MiB image cap, refused before its body is read",
      setup: () => [{ tool: "write_file", args: { path: "worst/vision-over.gif", content: `GIF89a${"x".repeat(MAX_IMAGE_BYTES - 5)}` } }],
      args: () => ({ path: "worst/vision-over.gif", question: "What is this?" }),
    },
    {
      name: "an image_url on the cloud metadata address, refused by the SSRF guard",
      args: () => ({ image_url: "http://169.254.169.254/latest/meta-data/image.png", question: "What is this?" }),
    },
  ],
  handler,
});

/**
 * The pet shop example (apis/specs/petstore.yaml): how an API becomes a toolset at build time.
 * `npm run gen` converts the spec into src/openapi-sources/apis.gen.ts, and the Worker registers
 * its operations as the `api-petstore` toolset (`petstore__listPets`, ...).
 *
 * Its tools stay unavailable until PETSTORE_TOKEN is set (`wrangler secret put PETSTORE_TOKEN`):
 * petstore.example is a reserved name (RFC 2606) that no one answers, so an example that is not
 * configured must not offer tools that could only fail. To use this file for a real API, point
 * `base_url` at it and name its token's secret; to add another API, add a file beside this one.
 *
 * Reads need no approval; creating and deleting pets and placing orders wait for a person (the
 * default for every method but GET, HEAD and OPTIONS), except replacing a pet's notes, which
 * the override below lets through.
 */
import type { OpenApiSourceInput } from "../src/openapi-sources/source-config.ts";

export default {
  name: "petstore",
  spec: { file: "specs/petstore.yaml" },
  base_url: "https://petstore.example/v1",
  auth: { type: "bearer", token: { secret: "PETSTORE_TOKEN" } },
  approval: { "path:PUT /pets/*/notes": "never" },
  timeout_ms: 15_000,
} satisfies OpenApiSourceInput;

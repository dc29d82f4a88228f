/**
 * The official Petstore examples (@readme/oas-examples), in Swagger 2.0, OpenAPI 3.0 and 3.1:
 * specs nobody here wrote, added as runtime sources and called through the full pipeline against
 * a stand-in that checks every request against the same spec with openapi-backend
 * (test/support/oas-examples-host.ts). A request the spec forbids would be a violation.
 */
import { afterEach, describe, expect, it } from "vitest";
import { api } from "../support/api.ts";
import { json } from "../support/json.ts";
import { openaiCall } from "../support/tool-calls.ts";

const OAS = "http://oas.upstream.test";

interface Status {
  tools: string[];
  pinned: { spec_version: string; problems: string[] };
}
interface CallResults {
  results: { status: string; error_code: string | null; message: { content: string } }[];
}

afterEach(async () => {
  expect(await (await fetch(`${OAS}/__violations`)).json()).toEqual([]);
});

const VERSIONS = [
  { version: "2.0", name: "pets20" },
  { version: "3.0", name: "pets30" },
  { version: "3.1", name: "pets31" },
];

describe.each(VERSIONS)("the Petstore example in $version", ({ version, name }) => {
  it("becomes tools whose calls the spec accepts", async () => {
    const added = await api("/v1/openapi-sources", {
      body: {
        name,
        spec: { url: `${OAS}/spec/${version}/petstore.json` },
        base_url: `${OAS}/${version}/petstore.json`,
        // Writes would wait for a person by default; this test calls them straight away.
        approval: { "*": "never" },
      },
    });
    expect(added.status).toBe(201);
    const status = await json<Status>(added);
    expect(status.pinned.spec_version.startsWith(version === "2.0" ? "2.0" : version)).toBe(true);
    expect(status.tools).toEqual(
      expect.arrayContaining([`${name}__addPet`, `${name}__findPetsByStatus`, `${name}__getPetById`, `${name}__deletePet`, `${name}__loginUser`]),
    );

    const answer = await api("/v1/tool-calls", {
      body: {
        tool_calls: [
          openaiCall("find", `${name}__findPetsByStatus`, { status: ["available", "sold"] }),
          openaiCall("get", `${name}__getPetById`, { petId: 10 }),
          openaiCall("add", `${name}__addPet`, { body: { name: "doggie", photoUrls: ["https://example.com/d.png"], status: "available" } }),
          openaiCall("login", `${name}__loginUser`, { username: "ann", password: "secret" }),
          openaiCall("delete", `${name}__deletePet`, { petId: 10, api_key: "k" }),
        ],
      },
    });
    expect(answer.status).toBe(200);
    const results = (await json<CallResults>(answer)).results;
    // The example declares only error answers for addPet (405) and deletePet (400, 404), so the
    // stand-in gives those: each comes back as a structured error carrying the API's status.
    expect(results.map((result) => [result.status, result.error_code])).toEqual([
      ["ok", null],
      ["ok", null],
      ["error", "UPSTREAM_ERROR"],
      ["ok", null],
      ["error", "UPSTREAM_ERROR"],
    ]);
    expect(results[2]?.message.content).toContain("HTTP 405");
    expect(results[4]?.message.content).toContain("HTTP 400");
  });

  it("refuses arguments the spec refuses before anything is sent", async () => {
    const answer = await api("/v1/tool-calls", { body: { tool_calls: [openaiCall("bad", `${name}__getPetById`, { petId: "not a number" })] } });
    const [result] = (await json<CallResults>(answer)).results;
    expect(result?.status).toBe("error");
    expect(result?.error_code).toBe("INVALID_ARGUMENTS");
  });
});

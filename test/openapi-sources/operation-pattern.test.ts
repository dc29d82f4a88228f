/** The patterns include, exclude and approval name operations by: operationId globs, `tag:` and `path:`. */
import { describe, expect, it } from "vitest";
import { compileOperationPattern, compileOperationSelection, type OperationRef } from "../../src/openapi-sources/operation-pattern.ts";

const getPet: OperationRef = { operationId: "pets/get", method: "get", path: "/pets/{petId}", tags: ["pets", "read"] };
const deletePet: OperationRef = { operationId: "pets/delete", method: "delete", path: "/pets/{petId}", tags: ["pets"] };
const anonymous: OperationRef = { method: "post", path: "/pets", tags: [] };

const matches = (pattern: string, operation: OperationRef) => compileOperationPattern(pattern)(operation);

describe("compileOperationPattern", () => {
  it("matches a bare pattern against the operationId only, as a glob", () => {
    expect(matches("pets/get", getPet)).toBe(true);
    expect(matches("pets/*", deletePet)).toBe(true);
    expect(matches("pets/get", deletePet)).toBe(false);
    expect(matches("*", anonymous)).toBe(false);
  });

  it("matches tag: against any of the operation's tags", () => {
    expect(matches("tag:read", getPet)).toBe(true);
    expect(matches("tag:pe*", deletePet)).toBe(true);
    expect(matches("tag:read", deletePet)).toBe(false);
    expect(matches("tag:*", anonymous)).toBe(false);
  });

  it("matches path: with a method (any case) or without one", () => {
    expect(matches("path:GET /pets/*", getPet)).toBe(true);
    expect(matches("path:get /pets/*", getPet)).toBe(true);
    expect(matches("path:GET /pets/*", deletePet)).toBe(false);
    expect(matches("path:/pets/*", deletePet)).toBe(true);
    expect(matches("path:/pets", anonymous)).toBe(true);
    expect(matches("path:/pets", getPet)).toBe(false);
  });
});

describe("compileOperationSelection", () => {
  it("takes every operation without include, minus what exclude names", () => {
    const selected = compileOperationSelection(undefined, ["path:DELETE *"]);
    expect([getPet, deletePet, anonymous].map(selected)).toEqual([true, false, true]);
  });

  it("takes only what include names, and an empty include takes nothing", () => {
    expect([getPet, deletePet, anonymous].map(compileOperationSelection(["tag:read", "path:POST /pets"]))).toEqual([true, false, true]);
    expect([getPet, deletePet, anonymous].map(compileOperationSelection([]))).toEqual([false, false, false]);
  });
});

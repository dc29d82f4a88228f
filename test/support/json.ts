import { expect } from "vitest";

/** A response's JSON body, failing the test unless the response says it is JSON. */
export async function json<T = Record<string, unknown>>(response: Response): Promise<T> {
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  return (await response.json()) as T;
}

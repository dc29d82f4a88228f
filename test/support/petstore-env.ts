/** What the pet shop stand-in (petstore-stub.ts, in Node) shares with the tests in workerd. */

export const PETSTORE_HOST = "petstore.test";
/** Where apis/petstore.ts points its build-time tools (a reserved name, RFC 2606), answered by the same stand-in. */
export const BUILD_TIME_PETSTORE_HOST = "petstore.example";
export const PETSTORE_CLIENT = { id: "pet-client", secret: "pet-secret" };

export interface LoggedRequest {
  method: string;
  /** The path below the scenario, query included, as it arrived (not decoded). */
  target: string;
  headers: Record<string, string>;
  body: string;
  at: number;
  /** What openapi-backend refused, when it did. */
  violation?: unknown;
}

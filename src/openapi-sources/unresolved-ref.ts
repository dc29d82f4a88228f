/**
 * The marker of a `$ref` conversion does not follow, apart from resolve-spec-refs.ts so the
 * modules that only read the marker never load the ref parser at start-up (issue 33).
 */

/** The key a marker object holds in place of a `$ref` that is not followed; its value says which and why. */
export const UNRESOLVED_REF = "x-toolgate-unresolved-ref";

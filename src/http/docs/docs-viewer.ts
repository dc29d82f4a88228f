/**
 * The API reference viewer `/docs` loads: the standalone browser bundle of
 * `@scalar/api-reference` (MIT), vendored by scripts/vendor-docs-viewer.ts into
 * assets/docs/viewer/ and served by Workers static assets from our own origin. The version is in
 * the file name, so a new version is a new URL; the page also names the file's SHA-384 (SRI),
 * and test/scripts/docs-viewer-pin.test.ts checks the committed file against it.
 */
export const DOCS_VIEWER_VERSION = "1.72.1";
export const DOCS_VIEWER_PATH = `/docs/viewer/scalar-api-reference-${DOCS_VIEWER_VERSION}.js`;
export const DOCS_VIEWER_INTEGRITY = "sha384-U11tb2XnKvmwt8RlTvnwUnYgrN+ur4Xyh9htLhjajWNR/Oyl5AX5DEz00qRmlrmK";

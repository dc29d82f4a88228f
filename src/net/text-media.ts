/** Which response media types a tool reads as text, rather than reporting as binary by type and size. */

/** JSON and its `+json` kin, XML, text, forms, scripts, NDJSON, and no type given. */
export function isTextMedia(contentType: string): boolean {
  return contentType === "" || /^text\/|^application\/([\w.-]+\+)?(json|xml)\b|^application\/(javascript|x-www-form-urlencoded|x-ndjson)\b/.test(contentType);
}

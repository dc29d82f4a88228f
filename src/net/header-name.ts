/** A header name as RFC 9110 §5.1 allows it: a token. Every configured header name is checked against it. */
export const HEADER_NAME_PATTERN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

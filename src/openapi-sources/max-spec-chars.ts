/** How big a spec toolgate converts, apart from load-spec.ts so fetching one never loads the YAML parser (start-up, issue 33). */

/**
 * The longest spec text accepted, in UTF-16 code units (JavaScript string length). GitHub's
 * REST description (api.github.com.json, 13.0 MB, ~1,200 operations) and its Enterprise Cloud
 * variant (14.1 MB) are the largest real specs we know of and fit; a 20 MB spec is refused.
 * The trade-off: at run time the whole text, its parsed form and the copies conversion makes
 * live at once in one isolate's 128 MB; parsing GitHub's spec alone takes tens of megabytes of
 * heap, so a limit much past this would leave no room for the requests the isolate serves
 * meanwhile. A larger spec can still be trimmed to the operations wanted and committed.
 */
export const MAX_SPEC_CHARS = 16 * 1024 * 1024;

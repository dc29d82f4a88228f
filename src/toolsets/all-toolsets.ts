/**
 * The names that stand for every registered tool. Their own module, free of runtime imports, so
 * the build-time generator can refuse a toolset that takes one of them (it would be shadowed).
 */
export const ALL_TOOLSETS: ReadonlySet<string> = new Set(["all", "*"]);

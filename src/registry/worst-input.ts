/**
 * A tool's declared worst inputs (ToolSpec.worstInputs): what the hostile suite
 * (test/scripts/hostile-tools.test.ts) sends while it probes the isolate.
 */

/** One hostile input at a tool's caps (ToolSpec.worstInputs). */
export interface WorstInput {
  /** What the input tries, as a sentence: "replace_all of 'a' with 'ab' over 300,000 matches". */
  name: string;
  /**
   * Calls made first, as the same key and through the same pipeline, to put in place the state
   * the input works on (the file a patch edits). Built only when the suite asks for them.
   */
  setup?: () => readonly WorstInputCall[];
  /** The hostile call's arguments, as a model would send them; built only when the suite asks. */
  args: () => Record<string, unknown>;
  /**
   * Set only by a tool that holds the isolate by design: the longest, in ms, any other request
   * may wait behind one synchronous stretch of it. Documented with the tool; the default is none.
   */
  holdsIsolateMs?: number;
}

/** A tool call the hostile suite makes to set up a worst input. */
export interface WorstInputCall {
  tool: string;
  args: Record<string, unknown>;
}

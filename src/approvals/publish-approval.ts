/** The Session object's write of an approval's D1 index row (approval-index.ts). */

import { writeApprovalIndex } from "./approval-index.ts";
import type { ApprovalRow } from "./approval-row.ts";

/** Writes the index row; a failure is logged and healed by the row's next change. */
export async function publishApproval(db: D1Database, row: ApprovalRow): Promise<void> {
  try {
    await writeApprovalIndex(db, row);
  } catch (error) {
    console.error(`approval ${row.id}: D1 index write failed (version ${row.version}): ${String(error)}`);
  }
}

/** What the fake upstream's inboxes kept (test/support/upstream.ts: POST /inbox/<name>), read from a test. */

export interface InboxMessage {
  headers: Record<string, string>;
  body: string;
}

/** The requests inbox `name` has kept so far, oldest first. */
export async function readInbox(name: string): Promise<InboxMessage[]> {
  return (await (await fetch(`http://upstream.test/inbox/${name}`)).json()) as InboxMessage[];
}

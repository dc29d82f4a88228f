/** A minimal Chrome DevTools Protocol session over a V8 inspector's WebSocket (workerd's). */

export interface InspectorSession {
  send(method: string, params?: object): Promise<unknown>;
  close(): void;
}

/**
 * Opens a session on `url`; each `send` resolves with its command's result.
 *
 * @example
 * const session = await connectInspector(target.webSocketDebuggerUrl);
 * await session.send("Profiler.enable");
 */
export async function connectInspector(url: string): Promise<InspectorSession> {
  const socket = new WebSocket(url);
  await new Promise((ok, fail) => {
    socket.addEventListener("open", ok, { once: true });
    socket.addEventListener("error", fail, { once: true });
  });
  let next = 1;
  const waiting = new Map<number, (result: unknown) => void>();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result);
  });
  return {
    send(method, params = {}) {
      const id = next++;
      socket.send(JSON.stringify({ id, method, params }));
      return new Promise((ok) => waiting.set(id, ok));
    },
    close: () => socket.close(),
  };
}

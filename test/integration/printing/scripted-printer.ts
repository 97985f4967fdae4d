import net from 'node:net';

export interface ScriptedConnection {
  bytes: Buffer;
  openedAt: number;
  /** When the client's end of the job (its FIN) arrived. */
  endedAt?: number;
}

export interface ScriptedPrinter {
  port: number;
  connections: ScriptedConnection[];
  /** Most connections open at once, counting each from accept to the client's end of job. */
  maxConcurrent: number;
  close(): Promise<void>;
}

/**
 * A loopback TCP server whose answer to each DLE EOT query is scripted, for the cases the virtual
 * printer does not play: status that changes mid-job, or a printer that stops answering.
 * `answer(k)` gets the index of the query on the server (0, 1, 2... across connections).
 */
export async function startScriptedPrinter(
  answer: (queryIndex: number) => number | undefined,
  answerDelayMs = 0,
  /** Never closes its side after the client's end of job, as some printers do. */
  keepOpen = false,
): Promise<ScriptedPrinter> {
  const connections: ScriptedConnection[] = [];
  const sockets = new Set<net.Socket>();
  let queries = 0;
  let open = 0;
  const state = { maxConcurrent: 0 };
  const server = net.createServer({ allowHalfOpen: keepOpen }, (socket) => {
    const connection: ScriptedConnection = { bytes: Buffer.alloc(0), openedAt: Date.now() };
    connections.push(connection);
    sockets.add(socket);
    open++;
    state.maxConcurrent = Math.max(state.maxConcurrent, open);
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      connection.bytes = Buffer.concat([connection.bytes, chunk]);
      for (let i = 0; i + 2 < chunk.length; i++) {
        if (chunk[i] !== 0x10 || chunk[i + 1] !== 0x04) continue;
        const byte = answer(queries++);
        if (byte !== undefined) setTimeout(() => socket.write(Buffer.from([byte])), answerDelayMs);
      }
    });
    const ended = (): void => {
      if (connection.endedAt !== undefined) return;
      open--;
      connection.endedAt = Date.now();
    };
    socket.on('end', () => {
      ended();
      if (!keepOpen) socket.end();
    });
    socket.on('close', () => {
      ended();
      sockets.delete(socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections,
    get maxConcurrent() {
      return state.maxConcurrent;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

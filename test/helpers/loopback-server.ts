// Real HTTP servers on loopback standing in for third parties (APIs, webhook receivers).
import { once } from "node:events";
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface LoopbackServer {
  server: Server;
  port: number;
  /** http://127.0.0.1:<port> */
  url: string;
  close(): void;
}

export async function startLoopbackServer(handler: RequestListener, host = "127.0.0.1"): Promise<LoopbackServer> {
  const server = createServer(handler);
  server.listen(0, host);
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    url: `http://${host}:${port}`,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

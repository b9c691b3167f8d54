import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { answerClientErrors } from "./client-errors.js";

let server: Server | undefined;
afterEach(() => {
  server?.closeAllConnections();
  server?.close();
});

async function listening() {
  server = createServer((_req, res) => res.end("ok"));
  answerClientErrors(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return (server.address() as AddressInfo).port;
}

/** Sends raw bytes and returns everything the server writes before it closes. */
async function exchange(port: number, bytes: string): Promise<string> {
  const socket = connect(port, "127.0.0.1");
  await once(socket, "connect");
  const chunks: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => chunks.push(chunk));
  socket.on("error", () => {});
  socket.write(bytes);
  await once(socket, "close");
  return Buffer.concat(chunks).toString();
}

describe("answerClientErrors", () => {
  it("answers a request line over Node's header limit with 431 and { error, code }", async () => {
    const port = await listening();
    const res = await fetch(`http://127.0.0.1:${port}/api/flows/${"x".repeat(20_000)}`);
    expect(res.status).toBe(431);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({
      error: "The request line and headers are too large",
      code: "headers_too_large",
    });
  });

  it("answers a malformed request with 400 and { error, code }, and still serves good ones", async () => {
    const port = await listening();
    const answer = await exchange(port, "NOT HTTP AT ALL\r\n\r\n");
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toEqual({
      error: "The request is not valid HTTP",
      code: "malformed_request",
    });
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe("ok");
  });
});

// Requests Node's HTTP parser refuses before Express sees them (a request line or headers over
// its 16 KB limit, a malformed request) get the API's error body too, not a bare status line.
import { STATUS_CODES, type Server } from "node:http";
import type { Duplex } from "node:stream";

const REFUSALS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, "headers_too_large", "The request line and headers are too large"],
  ERR_HTTP_REQUEST_TIMEOUT: [408, "request_timeout", "The request was not received in time"],
};
const MALFORMED: [number, string, string] = [400, "malformed_request", "The request is not valid HTTP"];

/** Answers the parser's refusals of `server` with `{ error, code }` and closes the connection. */
export function answerClientErrors(server: Server): void {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A connection the client reset, or one already answered, has no one left to tell.
    if (error.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    const [status, code, message] = REFUSALS[error.code ?? ""] ?? MALFORMED;
    const body = JSON.stringify({ error: message, code });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        "Content-Type: application/json; charset=utf-8\r\n" +
        "X-Content-Type-Options: nosniff\r\n" +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  });
}

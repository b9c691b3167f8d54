// A gRPC proxy on loopback (HTTP/2 without TLS) in front of Temporal's frontend, to play a call
// whose outcome the client cannot know: breakNextStart() lets the next StartWorkflowExecution
// through to Temporal (which starts the workflow), then answers the client `UNKNOWN: transport
// error`, as a connection reset mid-call does, and from then on answers every call UNAVAILABLE
// (Temporal unreachable) until restore().
import { once } from "node:events";
import http2, { type IncomingHttpHeaders, type ServerHttp2Stream } from "node:http2";
import type { AddressInfo } from "node:net";

const GRPC_UNKNOWN = 2;
const GRPC_UNAVAILABLE = 14;

export interface GrpcProxy {
  /** host:port of the proxy. */
  address: string;
  /** The next workflow start reaches Temporal, its answer does not: an outage follows. */
  breakNextStart(): void;
  /** Whether a start was broken. */
  broke(): boolean;
  /** Calls pass again. */
  restore(): void;
  close(): Promise<void>;
}

/** A gRPC answer with no message: the status in the headers, nothing after (trailers-only). */
function answerStatus(stream: ServerHttp2Stream, code: number, message: string) {
  if (stream.destroyed || stream.headersSent) return;
  stream.respond(
    { ":status": 200, "content-type": "application/grpc", "grpc-status": String(code), "grpc-message": message },
    { endStream: true },
  );
}

/** The request's headers as the proxy sends them on (HTTP/2 sets the connection's own). */
const forwardedHeaders = (headers: IncomingHttpHeaders) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => name !== ":scheme" && name !== ":authority"));

export async function startGrpcProxy(target: string): Promise<GrpcProxy> {
  const upstream = http2.connect(`http://${target}`);
  upstream.on("error", () => undefined);
  let breakStart = false;
  let outage = false;
  let broke = false;

  /** Relays the upstream answer to the client: headers, messages, trailers. */
  function relay(stream: ServerHttp2Stream, request: http2.ClientHttp2Stream) {
    let trailers: http2.OutgoingHttpHeaders = {};
    request.on("response", (headers) => {
      // A status already in the headers: a trailers-only answer.
      const only = headers["grpc-status"] !== undefined;
      if (!stream.destroyed) stream.respond(headers, only ? { endStream: true } : { waitForTrailers: true });
    });
    request.on("data", (chunk: Buffer) => {
      if (!stream.destroyed && !stream.writableEnded) stream.write(chunk);
    });
    request.on("trailers", (headers) => {
      trailers = headers;
    });
    request.on("end", () => {
      if (!stream.destroyed && !stream.writableEnded) stream.end();
    });
    stream.on("wantTrailers", () => stream.sendTrailers(trailers));
  }

  const server = http2.createServer();
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  server.on("stream", (stream, headers) => {
    stream.on("error", () => undefined);
    if (outage) return answerStatus(stream, GRPC_UNAVAILABLE, "Temporal is unreachable (the proxy's outage)");
    const request = upstream.request(forwardedHeaders(headers));
    request.on("error", () => answerStatus(stream, GRPC_UNAVAILABLE, "upstream failed"));
    stream.pipe(request);
    const breaking = breakStart && String(headers[":path"]).endsWith("/StartWorkflowExecution");
    if (!breaking) return relay(stream, request);
    breakStart = false;
    // Temporal carries the start out; its answer is lost, and Temporal is gone from now on.
    request.resume();
    request.on("close", () => {
      outage = true;
      broke = true;
      answerStatus(stream, GRPC_UNKNOWN, "transport error");
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    breakNextStart() {
      breakStart = true;
    },
    broke: () => broke,
    restore() {
      outage = false;
    },
    async close() {
      upstream.close();
      const closed = once(server, "close");
      server.close();
      for (const session of sessions) session.destroy();
      await closed;
    },
  };
}

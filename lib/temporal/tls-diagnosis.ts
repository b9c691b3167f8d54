// Why Temporal cannot be reached, when the reason is TLS: the client only retries and times out,
// so readiness and a process that fails to start make a handshake of their own to tell.
import net from "node:net";
import tls from "node:tls";
import type { TLSConfig } from "@temporalio/client";
import { readTemporalCredentials, temporalTlsEnabled, type TemporalConnectionConfig } from "./credentials.js";

const HTTP2_PREFACE = Buffer.concat([
  Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
  // An empty SETTINGS frame: a gRPC server answers with its own.
  Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]),
]);

function splitAddress(address: string): { host: string; port: number } {
  const at = address.lastIndexOf(":");
  return { host: address.slice(0, at).replace(/^\[|\]$/g, ""), port: Number(address.slice(at + 1)) };
}

/** Connects over TCP, then runs `handshake` on the socket; undefined when TCP itself fails. */
function overTcp(
  address: string,
  timeoutMs: number,
  handshake: (socket: net.Socket, settle: (reason: string | undefined) => void) => void,
): Promise<string | undefined> {
  const { host, port } = splitAddress(address);
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const timer = setTimeout(() => settle(undefined), timeoutMs);
    function settle(reason: string | undefined) {
      clearTimeout(timer);
      socket.destroy();
      resolve(reason);
    }
    socket.once("error", () => settle(undefined));
    socket.once("connect", () => {
      socket.removeAllListeners("error");
      handshake(socket, settle);
    });
  });
}

/** OpenSSL's reason alone ("wrong version number"), not its error stack and source file. */
function tlsErrorReason(error: Error & { reason?: string; code?: string }): string {
  if (error.code === "ERR_SSL_WRONG_VERSION_NUMBER") return "the server does not speak TLS (wrong version number)";
  return error.reason ?? error.message.split("\n")[0]!.trim();
}

/** A TLS handshake as the connection makes it, then an HTTP/2 exchange (a rejected client certificate shows only then). */
async function tlsHandshakeFailure(config: TemporalConnectionConfig, timeoutMs: number): Promise<string | undefined> {
  let tlsConfig: TLSConfig | false;
  try {
    tlsConfig = readTemporalCredentials(config).tls;
  } catch (error) {
    // A file gone or broken since the start: that is the reason.
    return (error as Error).message;
  }
  const { host } = splitAddress(config.TEMPORAL_ADDRESS);
  const serverName = (tlsConfig && tlsConfig.serverNameOverride) || host;
  return overTcp(config.TEMPORAL_ADDRESS, timeoutMs, (socket, settle) => {
    const secure = tls.connect({
      socket,
      servername: net.isIP(serverName) ? undefined : serverName,
      ALPNProtocols: ["h2"],
      ...(tlsConfig && tlsConfig.serverRootCACertificate ? { ca: Buffer.from(tlsConfig.serverRootCACertificate) } : {}),
      ...(tlsConfig && tlsConfig.clientCertPair
        ? { cert: Buffer.from(tlsConfig.clientCertPair.crt), key: Buffer.from(tlsConfig.clientCertPair.key) }
        : {}),
      checkServerIdentity: (_name, certificate) => tls.checkServerIdentity(serverName, certificate),
    });
    const failed = (reason: string) =>
      settle(`TLS handshake with ${config.TEMPORAL_ADDRESS} failed: ${reason} (TEMPORAL_TLS_* settings)`);
    secure.once("error", (error) => failed(tlsErrorReason(error)));
    // An alert (a refused client certificate) arrives as an error just after the close.
    secure.once("close", () =>
      setImmediate(() => failed("the server closed the connection (a refused client certificate?)")),
    );
    secure.once("secureConnect", () => secure.write(HTTP2_PREFACE));
    secure.once("data", () => {
      secure.removeAllListeners("close");
      settle(undefined);
    });
  });
}

/** Whether a server that a plain connection cannot use answers a TLS handshake. */
function plainClientOfTlsServer(config: TemporalConnectionConfig, timeoutMs: number): Promise<string | undefined> {
  return overTcp(config.TEMPORAL_ADDRESS, timeoutMs, (socket, settle) => {
    const secure = tls.connect({ socket, rejectUnauthorized: false, ALPNProtocols: ["h2"] });
    secure.once("error", () => settle(undefined));
    secure.once("secureConnect", () =>
      settle(
        `Temporal at ${config.TEMPORAL_ADDRESS} speaks TLS: set TEMPORAL_TLS=true (and TEMPORAL_TLS_CA if its CA is private)`,
      ),
    );
  });
}

/**
 * Why Temporal cannot be used, when the reason is TLS: a handshake that fails (an unknown CA, a
 * name the certificate lacks, a client certificate the server refuses, a server without TLS), or
 * a TLS server reached without TLS. Undefined when TLS is not the problem (or cannot be told).
 */
export async function diagnoseTemporalTls(
  config: TemporalConnectionConfig,
  timeoutMs = 2000,
): Promise<string | undefined> {
  return temporalTlsEnabled(config)
    ? tlsHandshakeFailure(config, timeoutMs)
    : plainClientOfTlsServer(config, timeoutMs);
}

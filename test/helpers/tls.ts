// TLS for tests, made at test time (no key is ever committed): certificate authorities and
// certificates from the machine's openssl, and a TLS-terminating proxy on loopback in front of
// the test run's (plain) Temporal dev server, which then stands in for a Temporal with TLS or mTLS.
import { execFileSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import tls from "node:tls";

export interface IssuedCertificate {
  /** PEM file of the certificate. */
  cert: string;
  /** PEM file of its private key. */
  key: string;
  serialNumber: string;
}

export interface TestCertificateAuthority {
  /** PEM file of the CA's certificate. */
  cert: string;
  /** A certificate for loopback (127.0.0.1, ::1, localhost and `names`), fit for a server and a client. */
  issue(label: string, names?: string[]): IssuedCertificate;
}

const openssl = (args: string[]) => execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });

/** A directory of certificates for one test file; remove() deletes it and every key in it. */
export function testCertificates() {
  const dir = mkdtempSync(path.join(tmpdir(), "svc-tls-"));
  const file = (name: string) => path.join(dir, name);
  let serial = 0;

  function authority(label: string): TestCertificateAuthority {
    const caKey = file(`${label}-ca.key`);
    const caCert = file(`${label}-ca.pem`);
    openssl(
      ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2"].concat(
        ["-keyout", caKey, "-out", caCert, "-subj", `/CN=${label} test CA`],
        ["-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
      ),
    );
    return {
      cert: caCert,
      issue(name, names = []) {
        const key = file(`${label}-${name}.key`);
        const cert = file(`${label}-${name}.pem`);
        const request = file(`${label}-${name}.csr`);
        const extensions = file(`${label}-${name}.ext`);
        const dns = ["localhost", ...names].map((n) => `DNS:${n}`).join(",");
        writeFileSync(
          extensions,
          `subjectAltName=${dns},IP:127.0.0.1,IP:::1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth,clientAuth\n`,
        );
        openssl(
          ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key].concat([
            "-out",
            request,
            "-subj",
            `/CN=${name}`,
          ]),
        );
        const serialNumber = (++serial).toString(16).padStart(2, "0").toUpperCase();
        openssl(
          ["x509", "-req", "-in", request, "-CA", caCert, "-CAkey", caKey, "-days", "2"].concat([
            "-set_serial",
            `0x${serialNumber}`,
            "-extfile",
            extensions,
            "-out",
            cert,
          ]),
        );
        return { cert, key, serialNumber };
      },
    };
  }

  return { dir, file, authority, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface TlsProxy {
  /** 127.0.0.1:<port> */
  address: string;
  /** Serial numbers of the client certificates of the connections it accepted, in order. */
  clientSerials: string[];
  close(): Promise<void>;
}

/**
 * TLS on loopback in front of `target` (host:port of a plain gRPC server), with `server` as its
 * certificate; with `clientCa`, only clients with a certificate that CA signed get through (mTLS).
 */
export async function startTlsProxy(options: {
  target: string;
  server: IssuedCertificate;
  clientCa?: string;
}): Promise<TlsProxy> {
  const [host, port] = [options.target.slice(0, options.target.lastIndexOf(":")), options.target.split(":").pop()];
  const clientSerials: string[] = [];
  const sockets = new Set<net.Socket>();
  const proxy = tls.createServer(
    {
      cert: readFileSync(options.server.cert),
      key: readFileSync(options.server.key),
      ALPNProtocols: ["h2"],
      ...(options.clientCa ? { ca: readFileSync(options.clientCa), requestCert: true, rejectUnauthorized: true } : {}),
    },
    (secure) => {
      const serial = secure.getPeerCertificate().serialNumber;
      if (serial) clientSerials.push(serial.toUpperCase());
      const upstream = net.connect({ host, port: Number(port) });
      for (const socket of [secure, upstream]) {
        sockets.add(socket);
        socket.on("error", () => undefined);
        socket.on("close", () => {
          secure.destroy();
          upstream.destroy();
          sockets.delete(socket);
        });
      }
      secure.pipe(upstream).pipe(secure);
    },
  );
  proxy.on("tlsClientError", () => undefined);
  proxy.listen(0, "127.0.0.1");
  await once(proxy, "listening");
  return {
    address: `127.0.0.1:${(proxy.address() as net.AddressInfo).port}`,
    clientSerials,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}

// The certificates of a local Temporal cluster with mutual TLS, made with the machine's openssl: a
// CA of its own, a server certificate for the frontend (localhost, 127.0.0.1) and one client
// certificate that the API, the workers and the server's own system worker present. P-256 keys;
// the CA's key is deleted once it has signed both, so nothing else can be signed with it. The
// folder is private (0700, keys 0600) and never committed (.data/ or a test's scratch folder).
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { findOnPath, run } from "./process.js";

export interface ClusterCertificates {
  dir: string;
  /** The CA that signed both certificates: what clients and the server trust. */
  caFile: string;
  serverCertFile: string;
  serverKeyFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  /** The name the server certificate is issued to (also valid: 127.0.0.1). */
  serverName: string;
}

export const CLUSTER_SERVER_NAME = "localhost";
const VALID_DAYS = "30";

// Our own config, not the system's: its default extensions would mark every certificate a CA.
const OPENSSL_CONFIG = `[req]
distinguished_name = dn
prompt = no
[dn]
CN = svc
[ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[server]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:${CLUSTER_SERVER_NAME},IP:127.0.0.1
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[client]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = clientAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
`;

const EC_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

function locateOpenssl(env: NodeJS.ProcessEnv): string {
  const openssl = findOnPath("openssl", env.PATH);
  if (!openssl) throw new Error("openssl not found on PATH: install it (Debian: apt-get install openssl)");
  return openssl;
}

/** A key and a certificate for `commonName`, signed by the CA with the extensions of `section`. */
async function signLeaf(
  openssl: string,
  dir: string,
  name: string,
  commonName: string,
  section: "server" | "client",
): Promise<void> {
  const config = path.join(dir, "openssl.cnf");
  const csr = path.join(dir, `${name}.csr`);
  const key = path.join(dir, `${name}.key`);
  await run(openssl, [
    "req",
    "-new",
    "-config",
    config,
    ...EC_KEY,
    "-keyout",
    key,
    "-out",
    csr,
    "-subj",
    `/CN=${commonName}`,
  ]);
  await run(openssl, [
    "x509",
    "-req",
    "-in",
    csr,
    "-CA",
    path.join(dir, "ca.pem"),
    "-CAkey",
    path.join(dir, "ca.key"),
    "-set_serial",
    `0x${randomBytes(12).toString("hex")}`,
    "-days",
    VALID_DAYS,
    "-extfile",
    config,
    "-extensions",
    section,
    "-out",
    path.join(dir, `${name}.pem`),
  ]);
  chmodSync(key, 0o600);
  rmSync(csr);
}

/** Makes (again) the CA, the server's and the client's certificates in `dir`. */
export async function makeClusterCertificates(
  dir: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ClusterCertificates> {
  const openssl = locateOpenssl(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const config = path.join(dir, "openssl.cnf");
  writeFileSync(config, OPENSSL_CONFIG);
  const caKey = path.join(dir, "ca.key");
  try {
    await run(openssl, [
      "req",
      "-x509",
      "-config",
      config,
      "-extensions",
      "ca",
      ...EC_KEY,
      "-keyout",
      caKey,
      "-out",
      path.join(dir, "ca.pem"),
      "-days",
      VALID_DAYS,
      "-subj",
      "/CN=svc local cluster CA",
    ]);
    await signLeaf(openssl, dir, "server", CLUSTER_SERVER_NAME, "server");
    await signLeaf(openssl, dir, "client", "svc", "client");
  } finally {
    rmSync(caKey, { force: true });
    rmSync(config, { force: true });
  }
  return {
    dir,
    caFile: path.join(dir, "ca.pem"),
    serverCertFile: path.join(dir, "server.pem"),
    serverKeyFile: path.join(dir, "server.key"),
    clientCertFile: path.join(dir, "client.pem"),
    clientKeyFile: path.join(dir, "client.key"),
    serverName: CLUSTER_SERVER_NAME,
  };
}

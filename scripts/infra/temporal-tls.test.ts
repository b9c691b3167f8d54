import { X509Certificate, createPrivateKey } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeClusterCertificates } from "./temporal-tls.js";

describe("a local cluster's certificates", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "svc-cluster-tls-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("are a CA, a server certificate for localhost and 127.0.0.1 and a client certificate, both signed by it", async () => {
    const made = await makeClusterCertificates(path.join(dir, "tls"));
    const read = (file: string) => new X509Certificate(readFileSync(file));
    const [ca, server, client] = [made.caFile, made.serverCertFile, made.clientCertFile].map(read) as [
      X509Certificate,
      X509Certificate,
      X509Certificate,
    ];
    expect(ca.ca).toBe(true);
    for (const leaf of [server, client]) {
      expect(leaf.ca).toBe(false);
      expect(leaf.checkIssued(ca)).toBe(true);
      expect(leaf.verify(ca.publicKey)).toBe(true);
    }
    expect(server.checkHost("localhost")).toBe("localhost");
    expect(server.checkIP("127.0.0.1")).toBe("127.0.0.1");
    expect(server.keyUsage).toContain("1.3.6.1.5.5.7.3.1"); // serverAuth
    expect(client.keyUsage).toContain("1.3.6.1.5.5.7.3.2"); // clientAuth
    // Each key matches its certificate.
    expect(server.checkPrivateKey(createPrivateKey(readFileSync(made.serverKeyFile)))).toBe(true);
    expect(client.checkPrivateKey(createPrivateKey(readFileSync(made.clientKeyFile)))).toBe(true);
  });

  it("keeps the keys private and leaves no CA key to sign anything else", async () => {
    const made = await makeClusterCertificates(path.join(dir, "private"));
    expect(statSync(made.dir).mode & 0o777).toBe(0o700);
    for (const key of [made.serverKeyFile, made.clientKeyFile]) expect(statSync(key).mode & 0o777).toBe(0o600);
    expect(existsSync(path.join(made.dir, "ca.key"))).toBe(false);
  });
});

// Real connections over TLS and mTLS: a TLS proxy on loopback (test/helpers/tls.ts) in front of the
// test run's Temporal dev server, with certificates made for this file.
import { copyFileSync, writeFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { testCertificates, startTlsProxy, type TlsProxy } from "../../test/helpers/tls.js";
import { waitFor } from "../../scripts/infra/process.js";
import { createWorker } from "../../worker/worker.js";
import { createDataConverter } from "../../core/engine/data-converter.js";
import { createActivities } from "../../worker/activities/index.js";
import { testConfig, testPrisma } from "../../test/helpers/context.js";
import { testRegistry } from "../../test/helpers/runs.js";
import { systemClock } from "../clock.js";
import { createLogger } from "../logger.js";
import {
  connectTemporalClient,
  connectTemporalWorker,
  lazyTemporalClient,
  renewWorkerConnection,
} from "./connection.js";
import { diagnoseTemporalTls } from "./tls-diagnosis.js";

const certificates = testCertificates();
const ca = certificates.authority("server");
const clientCa = certificates.authority("clients");
const strangerCa = certificates.authority("stranger");
let mtls: TlsProxy;

beforeAll(async () => {
  mtls = await startTlsProxy({
    target: inject("temporalAddress"),
    server: ca.issue("frontend"),
    clientCa: clientCa.cert,
  });
});
afterAll(async () => {
  await mtls?.close();
  certificates.remove();
});

/** The settings of a process that connects through the mTLS proxy with `client`. */
const mtlsConfig = (client: { cert: string; key: string }, extra: Record<string, string> = {}) =>
  testConfig({
    TEMPORAL_ADDRESS: mtls.address,
    TEMPORAL_TLS_CA: ca.cert,
    TEMPORAL_TLS_CERT: client.cert,
    TEMPORAL_TLS_KEY: client.key,
    ...extra,
  });

describe("connections to a Temporal with mTLS", () => {
  it("connect a client and a worker with the client certificate, and use them", async () => {
    const client = clientCa.issue("api");
    const config = mtlsConfig(client);
    const connection = await connectTemporalClient(config);
    const native = await connectTemporalWorker(config);
    try {
      const described = await connection.workflowService.describeNamespace({ namespace: "default" });
      expect(described.namespaceInfo?.name).toBe("default");
      const system = await native.workflowService.getSystemInfo({});
      expect(system.serverVersion).toBeTruthy();
      // Both presented the certificate: the proxy let them through only with it.
      expect(mtls.clientSerials.filter((serial) => serial === client.serialNumber).length).toBeGreaterThanOrEqual(2);
    } finally {
      await connection.close();
      await native.close();
    }
  });

  it("name TLS as the reason when the server refuses the client certificate", async () => {
    const config = mtlsConfig(strangerCa.issue("intruder"));
    expect(await diagnoseTemporalTls(config)).toMatch(
      new RegExp(`^TLS handshake with ${mtls.address} failed: .*certificate`),
    );
  });

  it("name TLS as the reason when the server's certificate is not from the trusted CA", async () => {
    const config = mtlsConfig(clientCa.issue("api-2"), { TEMPORAL_TLS_CA: strangerCa.cert });
    expect(await diagnoseTemporalTls(config)).toMatch(/^TLS handshake with .* failed: .*(certificate|issuer)/i);
  });

  it("name TLS when one side only speaks it", async () => {
    const plainServer = testConfig({ TEMPORAL_TLS: "true" });
    expect(await diagnoseTemporalTls(plainServer)).toMatch(/^TLS handshake with .* failed/);
    const plainClient = testConfig({ TEMPORAL_ADDRESS: mtls.address });
    expect(await diagnoseTemporalTls(plainClient)).toMatch(/speaks TLS: set TEMPORAL_TLS=true/);
    // And says nothing when TLS is not the problem.
    expect(await diagnoseTemporalTls(testConfig())).toBeUndefined();
  });

  it("give a client connection renewed certificate files at its next handshake, without a restart", async () => {
    const files = { cert: certificates.file("api.pem"), key: certificates.file("api.key") };
    const refused = strangerCa.issue("expired-stand-in");
    const renewed = clientCa.issue("api-renewed");
    copyFileSync(refused.cert, files.cert);
    copyFileSync(refused.key, files.key);
    const connection = lazyTemporalClient(mtlsConfig(files, { TEMPORAL_CREDENTIALS_RELOAD_INTERVAL: "1s" }));
    const describe = () =>
      connection.withDeadline(Date.now() + 2000, () =>
        connection.workflowService.describeNamespace({ namespace: "default" }),
      );
    try {
      await expect(describe()).rejects.toThrow();
      copyFileSync(renewed.key, files.key);
      copyFileSync(renewed.cert, files.cert);
      await waitFor(
        "the same connection to get through with the renewed certificate",
        () =>
          describe().then(
            () => true,
            () => false,
          ),
        {
          timeoutMs: 30_000,
          intervalMs: 500,
        },
      );
      expect(mtls.clientSerials).toContain(renewed.serialNumber);
    } finally {
      await connection.close();
    }
  });

  it("stop following a client connection's credential files once it is closed", async () => {
    // With an API key beside TLS files the connection cannot take renewed TLS files: it says so
    // each time they change, for as long as it follows them.
    const files = { cert: certificates.file("closing.pem"), key: certificates.file("closing.key") };
    const first = clientCa.issue("closing-1");
    copyFileSync(first.cert, files.cert);
    copyFileSync(first.key, files.key);
    const apiKeyFile = certificates.file("closing-api-key");
    writeFileSync(apiKeyFile, "not-a-real-key");
    const warnings: string[] = [];
    const lines = new Writable({
      write(chunk: Buffer, _encoding, done) {
        const line = JSON.parse(chunk.toString()) as { level: number; msg: string };
        if (line.level === 40) warnings.push(line.msg);
        done();
      },
    });
    const log = createLogger(testConfig({ LOG_LEVEL: "info" }), "closing-test", lines);
    const connection = lazyTemporalClient(
      mtlsConfig(files, { TEMPORAL_CREDENTIALS_RELOAD_INTERVAL: "1s", TEMPORAL_API_KEY_FILE: apiKeyFile }),
      {},
      log,
    );
    const renew = (name: string) => {
      const issued = clientCa.issue(name);
      copyFileSync(issued.cert, files.cert);
      copyFileSync(issued.key, files.key);
    };
    renew("closing-2");
    await expect.poll(() => warnings.length, { timeout: 10_000 }).toBe(1);
    expect(warnings[0]).toMatch(/TLS files changed/);
    await connection.close();
    renew("closing-3");
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(warnings).toHaveLength(1);
  });

  it("reconnect a running worker with renewed certificate files, without a restart", async () => {
    const first = clientCa.issue("worker-1");
    const renewed = clientCa.issue("worker-2");
    const files = { cert: certificates.file("worker.pem"), key: certificates.file("worker.key") };
    copyFileSync(first.cert, files.cert);
    copyFileSync(first.key, files.key);
    const config = mtlsConfig(files, { TEMPORAL_CREDENTIALS_RELOAD_INTERVAL: "1s" });
    const connection = await connectTemporalWorker(config);
    const worker = await createWorker({
      connection,
      namespace: "default",
      taskQueue: `tls-${randomUUID()}`,
      activities: createActivities({ prisma: testPrisma(), clock: systemClock, nodes: testRegistry(), config }),
      dataConverter: createDataConverter(config),
      workflowBundle: { codePath: inject("workflowBundlePath") },
      shutdownGraceTime: "1 second",
    });
    const stopRenewal = renewWorkerConnection(config, worker, { log: createLogger(config, "test") });
    const running = worker.run();
    try {
      copyFileSync(renewed.key, files.key);
      copyFileSync(renewed.cert, files.cert);
      await waitFor(
        "the worker to reconnect with the renewed certificate",
        async () => worker.connection !== connection,
        {
          timeoutMs: 20_000,
          intervalMs: 100,
        },
      );
      await waitFor("a connection with it", async () => mtls.clientSerials.includes(renewed.serialNumber), {
        timeoutMs: 20_000,
        intervalMs: 100,
      });
      expect(worker.getState()).toBe("RUNNING");
    } finally {
      stopRenewal();
      worker.shutdown();
      await running;
      await worker.connection?.close();
    }
  });
});

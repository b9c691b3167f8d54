// The embedded clusters: the tools' one (pg_ctl) adopts a cluster of its data directory left
// running on the port it holds; npm start's one (a child process it supervises) stops such a
// cluster and takes its port; a port held by anything else is refused by name.
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { prepareEmbeddedPostgres, startEmbeddedPostgres, type EmbeddedPostgres } from "./postgres.js";
import { freePort, stopChild } from "./process.js";

describe("embedded PostgreSQL on a configured port", () => {
  const scratch = mkdtempSync(path.join(os.tmpdir(), "svc-postgres-test-"));
  // Traversable, not listable: the cluster may run as another OS user (root runs it as postgres).
  chmodSync(scratch, 0o711);
  const clusters: EmbeddedPostgres[] = [];
  afterAll(async () => {
    for (const cluster of clusters) await cluster.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("adopts its own cluster left running on that port, and refuses the port to another", async () => {
    const port = await freePort();
    const options = { dir: path.join(scratch, "one"), database: "svc_one", port };
    const first = await startEmbeddedPostgres(options);
    clusters.push(first);

    // Started again over the same data directory while the first still runs: the same server.
    const again = await startEmbeddedPostgres(options);
    expect([again.port, again.url]).toEqual([port, first.url]);
    const client = new pg.Client({ connectionString: again.url });
    await client.connect();
    try {
      expect((await client.query<{ n: number }>("SELECT 1 AS n")).rows).toEqual([{ n: 1 }]);
    } finally {
      await client.end();
    }

    await expect(startEmbeddedPostgres({ dir: path.join(scratch, "two"), database: "svc_two", port })).rejects.toThrow(
      `The embedded PostgreSQL cannot listen on 127.0.0.1:${port}: port ${port} is already in use (set EMBEDDED_POSTGRES_PORT to a free port)`,
    );
  }, 120_000);

  it("starts a benchmark's cluster with the server settings it names, and refuses one a shell would read", async () => {
    const options = {
      dir: path.join(scratch, "settings"),
      database: "svc_settings",
      settings: { shared_preload_libraries: "pg_stat_statements" },
    };
    const server = await startEmbeddedPostgres(options);
    clusters.push(server);
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      const shown = await client.query<{ shared_preload_libraries: string }>("SHOW shared_preload_libraries");
      expect(shown.rows[0]?.shared_preload_libraries).toBe("pg_stat_statements");
    } finally {
      await client.end();
    }

    await expect(
      startEmbeddedPostgres({ dir: path.join(scratch, "bad"), database: "svc_bad", settings: { work_mem: "1MB; rm" } }),
    ).rejects.toThrow("Invalid setting: work_mem");
  }, 120_000);

  it("runs npm start's cluster as a child, after stopping one of its directory left running, on that port", async () => {
    const options = { dir: path.join(scratch, "three"), database: "svc_three" };
    const left = await startEmbeddedPostgres(options);
    clusters.push(left);

    const lines: string[] = [];
    const supervised = await prepareEmbeddedPostgres({ ...options, say: (line) => lines.push(line) });
    expect(lines).toEqual([`stopping the embedded PostgreSQL left running on port ${left.port}`]);
    expect(supervised.port).toBe(left.port);
    const child = supervised.spawn();
    try {
      await supervised.ready(() => (child.exitCode !== null ? `exited: ${supervised.logTail()}` : undefined));
      const client = new pg.Client({ connectionString: supervised.url });
      await client.connect();
      try {
        expect((await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]?.pid).toBeGreaterThan(0);
      } finally {
        await client.end();
      }
    } finally {
      await stopChild(child, 20_000, "SIGINT");
    }
    expect(child.signalCode ?? child.exitCode).toBe(0);
  }, 120_000);
});

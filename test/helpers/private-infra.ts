// A Temporal dev server and a PostgreSQL cluster of a test's own, to stop and start again in
// the middle of runs (the run's shared ones must stay up for the other test files).
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "../../scripts/infra/postgres.js";
import { applyMigrations } from "../../scripts/infra/prisma-cli.js";
import { freePort } from "../../scripts/infra/process.js";
import {
  locateTemporalCli,
  serviceSearchAttributes,
  startTemporalDevServer,
  type TemporalDevServer,
} from "../../scripts/infra/temporal.js";

function scratchDir(prefix: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  // Traversable, not listable: the PostgreSQL cluster inside may belong to another OS user.
  chmodSync(dir, 0o711);
  return dir;
}

/** A dev server on its own SQLite file and port: a restart keeps its history and address. */
export async function startPrivateTemporal() {
  const dir = scratchDir("svc-temporal-private-");
  const options = {
    cli: await locateTemporalCli(),
    port: await freePort(),
    uiPort: false as const,
    dbFile: path.join(dir, "temporal.db"),
    searchAttributes: serviceSearchAttributes,
  };
  let server: TemporalDevServer | undefined = await startTemporalDevServer(options);
  const address = server.address;
  return {
    address,
    async stop() {
      await server?.stop();
      server = undefined;
    },
    async start() {
      server ??= await startTemporalDevServer(options);
    },
    async restart() {
      await this.stop();
      await this.start();
    },
    /** SIGKILL, as the out-of-memory killer would: no shutdown, only what SQLite had committed. */
    async kill() {
      const child = server?.process;
      server = undefined;
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      // Its own process group (detached): the server and anything it started.
      process.kill(-child.pid!, "SIGKILL");
      await exited;
    },
    async close() {
      await this.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A migrated database on a cluster of its own: stopped and started again on the same port. */
export async function startPrivatePostgres() {
  const dir = scratchDir("svc-postgres-private-");
  const options = { dir: path.join(dir, "postgres"), database: "svc_private" };
  let cluster: EmbeddedPostgres | undefined = await startEmbeddedPostgres(options);
  const { url, port } = cluster;
  await applyMigrations(url);
  return {
    url,
    async stop() {
      await cluster?.stop();
      cluster = undefined;
    },
    async start() {
      cluster ??= await startEmbeddedPostgres({ ...options, port });
    },
    async close() {
      await this.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

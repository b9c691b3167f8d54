// BENCH_TEMPORAL=cluster: a benchmark's Temporal is the production one instead of the dev server,
// the real server (scripts/infra/temporal-cluster.ts) with mTLS, on a PostgreSQL cluster of its
// own, so that its database's CPU is told apart from the service's.
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startEmbeddedPostgres } from "../../scripts/infra/postgres.js";
import { startTemporalCluster } from "../../scripts/infra/temporal-cluster.js";
import { locateTemporalServer } from "../../scripts/infra/temporal-server.js";
import { postmasterCpuSeconds } from "./process-cpu.js";

/** Whether the benchmark runs on the production Temporal (BENCH_TEMPORAL=cluster). */
export const benchOnCluster = () => process.env.BENCH_TEMPORAL === "cluster";

/** The server with its databases on a PostgreSQL of its own; `cpu()` reads that PostgreSQL's CPU seconds. */
export async function benchClusterTemporal() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "svc-bench-cluster-"));
  chmodSync(dir, 0o711);
  const postgres = await startEmbeddedPostgres({ dir: path.join(dir, "postgres"), database: "temporal_admin" });
  try {
    const binaries = await locateTemporalServer(process.env, (line) => process.stdout.write(`${line}\n`));
    const cluster = await startTemporalCluster({
      binaries,
      dir: path.join(dir, "temporal"),
      postgresUrl: postgres.url,
    });
    const postmaster = Number(
      readFileSync(path.join(dir, "postgres", "pgdata", "postmaster.pid"), "utf8").split("\n")[0],
    );
    return {
      address: cluster.address,
      clientEnv: cluster.clientEnv,
      process: { pid: cluster.process()!.pid },
      /** The CPU seconds of Temporal's own PostgreSQL. */
      cpu: () => postmasterCpuSeconds(postmaster),
      async stop() {
        await cluster.stop();
        await postgres.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await postgres.stop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

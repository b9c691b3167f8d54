// What every benchmark stack starts from: a Temporal dev server with the service's search
// attributes registered (or with BENCH_TEMPORAL=cluster the production server, over mTLS), and
// the benchmark's user.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { newUserSchema } from "../../core/users/users.schema.js";
import { newKeyRingEntry } from "../../lib/crypto/key-ring.js";
import { locateTemporalCli, serviceSearchAttributes, startTemporalDevServer } from "../../scripts/infra/temporal.js";
import { benchClusterTemporal, benchOnCluster } from "./cluster-temporal.js";

/**
 * The dev server as `npm start` runs it: persisting to a SQLite file with the same settings (an
 * in-memory server skipped the store's writes and measured a Temporal that loses every run when
 * it dies). The file is in a scratch folder removed with the server.
 */
export async function benchTemporal() {
  if (benchOnCluster()) return benchClusterTemporal();
  const dir = mkdtempSync(path.join(os.tmpdir(), "svc-bench-temporal-"));
  const server = await startTemporalDevServer({
    cli: await locateTemporalCli(),
    uiPort: false,
    dbFile: path.join(dir, "temporal.db"),
    searchAttributes: serviceSearchAttributes,
  }).catch((error: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  return {
    ...server,
    /** The settings that reach it besides TEMPORAL_ADDRESS (none: plain gRPC). */
    clientEnv: {} as Record<string, string>,
    /** CPU seconds of the PostgreSQL that holds its data, when it has one (not SQLite). */
    cpu: undefined as (() => number) | undefined,
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** SVC_ENCRYPTION_KEY of a benchmark's processes, as npm start always has one: payloads are sealed. */
export const benchEncryptionKey = newKeyRingEntry("bench", randomBytes(32));

export const benchUser = newUserSchema.parse({
  email: "bench@example.com",
  password: "bench-password-1",
  name: "B",
  workspace: "B",
});

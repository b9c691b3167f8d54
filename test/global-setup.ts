// One Temporal dev server and one fresh PostgreSQL database for the whole test run, shared by
// every test file through vitest's provide/inject.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { bundleWorkflowCode } from "@temporalio/worker";
import type { TestProject } from "vitest/node";
import { dropDatabase, ensureDatabase, startEmbeddedPostgres } from "../scripts/infra/postgres.js";
import { applyMigrations } from "../scripts/infra/prisma-cli.js";
import { locateTemporalCli, serviceSearchAttributes, startTemporalDevServer } from "../scripts/infra/temporal.js";
import { locateTemporalTestServer } from "../scripts/infra/temporal-test-server.js";
import { failureConverterPath } from "../core/engine/data-converter.js";
import { preloadedWorkflowModules } from "../core/engine/workflow-bundle.js";
import { workflowsPath } from "../worker/worker.js";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    temporalAddress: string;
    workflowBundlePath: string;
    /** Launcher of Temporal's time-skipping test server (test/helpers/time-skipping.ts). */
    temporalTestServer: string;
  }
}

const log = (line: string) => process.stdout.write(`[test setup] ${line}\n`);

export default async function setup(project: TestProject) {
  const started = Date.now();
  const scratch = mkdtempSync(path.join(os.tmpdir(), "svc-test-"));
  // Traversable, not listable: the PostgreSQL cluster inside may belong to another OS user.
  chmodSync(scratch, 0o711);
  const teardown: Array<() => Promise<void>> = [async () => rmSync(scratch, { recursive: true, force: true })];
  const cleanup = async () => {
    for (const step of teardown.reverse()) await step().catch((error: Error) => log(`teardown: ${error.message}`));
  };

  try {
    // TEST_DATABASE_URL (an admin URL to an existing server) gets a fresh database per run;
    // otherwise a private cluster from the machine's PostgreSQL binaries.
    const database = `svc_test_${Date.now().toString(36)}_${process.pid}`;
    // allSettled: a failure must not leave a sibling still starting when the teardown runs.
    const [databaseUrl, temporal, bundle, temporalTestServer] = settled(
      await Promise.allSettled([
        (async () => {
          if (process.env.TEST_DATABASE_URL) {
            const admin = process.env.TEST_DATABASE_URL;
            await ensureDatabase(admin, database);
            teardown.push(() => dropDatabase(admin, database));
            const url = new URL(admin);
            url.pathname = `/${database}`;
            return url.toString();
          }
          const postgres = await startEmbeddedPostgres({ dir: path.join(scratch, "postgres"), database });
          teardown.push(postgres.stop);
          return postgres.url;
        })().then(async (url) => {
          await applyMigrations(url);
          return url;
        }),
        (async () => {
          const cli = await locateTemporalCli(process.env, log);
          const server = await startTemporalDevServer({
            cli,
            uiPort: false,
            searchAttributes: serviceSearchAttributes,
          });
          teardown.push(server.stop);
          return server;
        })(),
        bundleWorkflowCode({
          workflowsPath,
          failureConverterPath,
          preloadModules: preloadedWorkflowModules(workflowsPath),
          logger: quietBundlerLogger,
        }),
        locateTemporalTestServer(process.env, log),
      ] as const),
    );

    const workflowBundlePath = path.join(scratch, "workflow-bundle.js");
    writeFileSync(workflowBundlePath, bundle.code);

    project.provide("databaseUrl", databaseUrl);
    project.provide("temporalAddress", temporal.address);
    project.provide("workflowBundlePath", workflowBundlePath);
    project.provide("temporalTestServer", temporalTestServer);
    log(`PostgreSQL, Temporal (${temporal.address}) and workflow bundle ready in ${Date.now() - started} ms`);
  } catch (error) {
    await cleanup();
    throw error;
  }
  return cleanup;
}

function settled<T extends readonly unknown[]>(results: { [K in keyof T]: PromiseSettledResult<T[K]> }): T {
  const failure = results.find((result) => result.status === "rejected");
  if (failure) throw (failure as PromiseRejectedResult).reason;
  return results.map((result) => (result as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

const quietBundlerLogger = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => log(`bundler: ${message}`),
  error: (message: string) => log(`bundler: ${message}`),
  log: () => undefined,
};

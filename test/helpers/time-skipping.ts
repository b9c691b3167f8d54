// Temporal's time-skipping test server (scripts/infra/temporal-test-server.ts), for tests whose
// durable timers span minutes to days: the server jumps its clock to the next timer whenever
// every workflow waits and a client awaits a result (or calls `sleep`), so they pass in seconds.
import type { DataConverter } from "@temporalio/common";
import { TestWorkflowEnvironment } from "@temporalio/testing";
import { inject } from "vitest";
import { ensureSearchAttributes } from "../../core/engine/search-attributes.js";

/**
 * A test server of the caller's own (one per test file), with the search attributes runs carry;
 * its client decodes with `dataConverter`, the one the test's API and worker use.
 */
export async function startTimeSkippingServer(dataConverter: DataConverter): Promise<TestWorkflowEnvironment> {
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: "existing-path", path: inject("temporalTestServer") } },
    client: { dataConverter },
  });
  // The test server refuses unknown search attributes (and cannot list them: all are added).
  await ensureSearchAttributes(env.connection, env.namespace ?? "default");
  return env;
}

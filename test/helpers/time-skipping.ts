// Temporal's time-skipping test server (scripts/infra/temporal-test-server.ts), for tests whose
// durable timers span minutes to days: the server jumps its clock to the next timer whenever
// every workflow waits and a client awaits a result (or calls `sleep`), so they pass in seconds.
import proto from "@temporalio/proto";
import { TestWorkflowEnvironment } from "@temporalio/testing";
import { inject } from "vitest";
import { SEARCH_ATTRIBUTES } from "../../core/contracts/run-flow.js";

const KEYWORD = proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;

/** A test server of the caller's own (one per test file), with the search attributes runs carry. */
export async function startTimeSkippingServer(): Promise<TestWorkflowEnvironment> {
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: "existing-path", path: inject("temporalTestServer") } },
  });
  // The test server refuses unknown search attributes and, unlike a real server, cannot list
  // them (ensureSearchAttributes' first call): they are added directly.
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? "default",
    searchAttributes: Object.fromEntries(Object.values(SEARCH_ATTRIBUTES).map((name) => [name, KEYWORD])),
  });
  return env;
}

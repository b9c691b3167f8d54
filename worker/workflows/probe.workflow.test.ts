import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import type { Client } from "@temporalio/client";
import { testPrisma, testTemporalClient, withWorker, testSeal } from "../../test/helpers/context.js";
import { probe } from "./probe.workflow.js";

describe("probe workflow (real worker, dev server and database)", () => {
  let client: Client | undefined;
  afterAll(async () => {
    await client?.connection.close();
  });

  it("runs its activity on the worker, which writes a row that the test reads back", async () => {
    client = await testTemporalClient();
    const message = `probe ${randomUUID()}`;

    const result = await withWorker(({ taskQueue }) =>
      client!.workflow.execute(probe, { taskQueue, workflowId: `probe-${randomUUID()}`, args: [{ message }] }),
    );

    const row = await testPrisma().logEntry.findUnique({ where: { id: BigInt(result.logEntryId) } });
    expect(row).toMatchObject({ level: "info" });
    // Stored sealed (run payloads at rest), read back as written.
    expect(row!.message).not.toContain(message);
    expect([testSeal.openText(row!.message), testSeal.open(row!.data)]).toEqual([message, { source: "probe" }]);
  });
});

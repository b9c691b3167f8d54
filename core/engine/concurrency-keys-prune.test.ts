// The pruning of idle concurrency keys' counter rows, on the real database: old rows with nothing
// held or gated go in bounded batches, rows holding a slot or touched lately stay, and a start of a
// key stays counted whether it comes after the prune or races it.
import { describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import type { PrismaClient } from "../../lib/db.js";
import { testPrisma } from "../../test/helpers/context.js";
import { makeTestApps } from "../../test/helpers/identity.js";
import { purgeExpired } from "../maintenance.js";
import { freeDbSlots, pruneIdleConcurrencyKeys, slotKeyHash, takeDbSlot } from "./concurrency-slots.js";

const DAY = 86_400_000;
const appFor = makeTestApps();

interface KeyRow {
  held: number;
  gated: number;
  touched_at: Date;
}

/** A counter row as a start and an end would leave it, touched `daysAgo` days ago. */
async function seedKey(flowId: string, key: string, counts: { held?: number; gated?: number }, daysAgo: number) {
  const touched = new Date(Date.now() - daysAgo * DAY);
  await testPrisma().$executeRaw`
    INSERT INTO concurrency_keys (flow_id, key_hash, held, gated, touched_at)
    VALUES (${flowId}, ${slotKeyHash(key)}, ${counts.held ?? 0}, ${counts.gated ?? 0}, ${touched})`;
}

async function keyRow(flowId: string, key: string): Promise<KeyRow | undefined> {
  const rows = await testPrisma().$queryRaw<KeyRow[]>`
    SELECT held, gated, touched_at FROM concurrency_keys WHERE flow_id = ${flowId} AND key_hash = ${slotKeyHash(key)}`;
  return rows[0];
}

const flowIdOf = (name: string) => `flw_prune_${name}_${randomUUID().slice(0, 8)}`;
const dayAgo = () => new Date(Date.now() - DAY);

describe("pruneIdleConcurrencyKeys", () => {
  it("deletes old rows with nothing held or gated, and keeps held, gated, slotted and recent ones", async () => {
    const flowId = flowIdOf("mix");
    await seedKey(flowId, "old-empty", {}, 2);
    await seedKey(flowId, "old-held", { held: 1 }, 2);
    await seedKey(flowId, "old-gated", { gated: 1 }, 2);
    await seedKey(flowId, "recent-empty", {}, 0.5);
    // Counts at zero but a slot row left: kept, so that the slot's end finds its counter.
    await seedKey(flowId, "old-slotted", {}, 2);
    await testPrisma().$executeRaw`
      INSERT INTO concurrency_slots (run_id, flow_id, key_hash, in_db)
      VALUES (${`run_prune_${randomUUID()}`}, ${flowId}, ${slotKeyHash("old-slotted")}, true)`;

    expect(await pruneIdleConcurrencyKeys(testPrisma(), dayAgo())).toBeGreaterThanOrEqual(1);

    expect(await keyRow(flowId, "old-empty")).toBeUndefined();
    for (const key of ["old-held", "old-gated", "recent-empty", "old-slotted"]) {
      expect(await keyRow(flowId, key), key).toBeDefined();
    }
  });

  it("a start after the prune takes a slot and recreates the row; its end touches the row, which stays", async () => {
    const flowId = flowIdOf("again");
    await seedKey(flowId, "acme", {}, 3);
    await pruneIdleConcurrencyKeys(testPrisma(), dayAgo());
    expect(await keyRow(flowId, "acme")).toBeUndefined();

    const runId = `run_prune_${randomUUID()}`;
    expect(await takeDbSlot(testPrisma(), { runId, flowId, key: "acme", limit: 1 })).toBe(true);
    expect(await keyRow(flowId, "acme")).toMatchObject({ held: 1, gated: 0 });
    // The limit is counted on the new row: a second start of the key does not take a slot.
    const second = { runId: `run_prune_${randomUUID()}`, flowId, key: "acme", limit: 1 };
    expect(await takeDbSlot(testPrisma(), second)).toBe(false);

    await freeDbSlots(testPrisma(), [runId, second.runId]);
    const ended = await keyRow(flowId, "acme");
    expect(ended).toMatchObject({ held: 0, gated: 0 });
    expect(Date.now() - ended!.touched_at.getTime()).toBeLessThan(DAY / 2);
    await pruneIdleConcurrencyKeys(testPrisma(), dayAgo());
    expect(await keyRow(flowId, "acme")).toBeDefined();
  });

  it("a start whose transaction holds the key's row is skipped by a prune running meanwhile", async () => {
    const flowId = flowIdOf("start-first");
    await seedKey(flowId, "acme", {}, 2);
    const slot = { runId: `run_prune_${randomUUID()}`, flowId, key: "acme", limit: 1 };
    let pruning: Promise<number> | undefined;
    await testPrisma().$transaction(async (tx) => {
      expect(await takeDbSlot(tx as unknown as PrismaClient, slot)).toBe(true);
      // The prune meets the row locked by the uncommitted start: it must not delete it then or after.
      pruning = pruneIdleConcurrencyKeys(testPrisma(), dayAgo());
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    await pruning;
    expect(await keyRow(flowId, "acme")).toMatchObject({ held: 1, gated: 0 });
    await freeDbSlots(testPrisma(), [slot.runId]);
  });

  it("a start meeting a prune's uncommitted delete of its key's row waits and inserts the row again", async () => {
    const flowId = flowIdOf("prune-first");
    await seedKey(flowId, "acme", {}, 2);
    const slot = { runId: `run_prune_${randomUUID()}`, flowId, key: "acme", limit: 1 };
    let starting: Promise<boolean> | undefined;
    await testPrisma().$transaction(async (tx) => {
      expect(await pruneIdleConcurrencyKeys(tx, dayAgo())).toBeGreaterThanOrEqual(1);
      starting = takeDbSlot(testPrisma(), slot);
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    expect(await starting).toBe(true);
    expect(await keyRow(flowId, "acme")).toMatchObject({ held: 1, gated: 0 });
    await freeDbSlots(testPrisma(), [slot.runId]);
  });

  it("starts racing prunes of their keys' rows stay counted, with their slot rows", async () => {
    const flowId = flowIdOf("race");
    const keys = Array.from({ length: 20 }, (_, i) => `customer-${i}`);
    for (const key of keys) await seedKey(flowId, key, {}, 2);
    const runIds = keys.map(() => `run_prune_${randomUUID()}`);

    const taken = await Promise.all([
      ...keys.map((key, i) => takeDbSlot(testPrisma(), { runId: runIds[i]!, flowId, key, limit: 1 })),
      pruneIdleConcurrencyKeys(testPrisma(), dayAgo()),
      pruneIdleConcurrencyKeys(testPrisma(), dayAgo(), { batch: 3, batches: 10 }),
    ]);

    expect(taken.slice(0, keys.length)).toEqual(keys.map(() => true));
    for (const key of keys) expect(await keyRow(flowId, key), key).toMatchObject({ held: 1, gated: 0 });
    const slots = await testPrisma().concurrencySlot.count({ where: { flowId, runId: { in: runIds } } });
    expect(slots).toBe(keys.length);
    await freeDbSlots(testPrisma(), runIds);
  });

  it("deletes in bounded batches, leaving the rest to the next pass", async () => {
    const flowId = flowIdOf("batches");
    for (let i = 0; i < 5; i++) await seedKey(flowId, `k${i}`, {}, 5000 + i);
    // Only these five are this old: the other tests' rows are out of the cutoff.
    const cutoff = new Date(Date.now() - 4000 * DAY);
    expect(await pruneIdleConcurrencyKeys(testPrisma(), cutoff, { batch: 2, batches: 2 })).toBe(4);
    expect(await testPrisma().concurrencyKey.count({ where: { flowId } })).toBe(1);
    expect(await pruneIdleConcurrencyKeys(testPrisma(), cutoff, { batch: 2, batches: 2 })).toBe(1);
    expect(await testPrisma().concurrencyKey.count({ where: { flowId } })).toBe(0);
  });

  it("runs in the API's housekeeping (purgeExpired)", async () => {
    const flowId = flowIdOf("housekeeping");
    await seedKey(flowId, "old", {}, 2);
    await seedKey(flowId, "fresh", {}, 0);
    const { concurrencyKeys } = await purgeExpired(appFor().deps);
    expect(concurrencyKeys).toBeGreaterThanOrEqual(1);
    expect(await keyRow(flowId, "old")).toBeUndefined();
    expect(await keyRow(flowId, "fresh")).toBeDefined();
  });
});

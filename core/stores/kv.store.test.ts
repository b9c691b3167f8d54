import { describe, expect, it } from "vitest";
import { manualClock } from "../../lib/clock.js";
import { newId } from "../../lib/ids.js";
import { testPrisma } from "../../test/helpers/context.js";
import { NodeError } from "../nodes/node-error.js";
import { KV_LIMITS } from "../nodes/shared/data-limits.js";
import { createKvStore, purgeExpiredKvEntries } from "./kv.store.js";

const prisma = testPrisma();

async function newWorkspace() {
  const id = newId("ws");
  await prisma.workspace.create({ data: { id, name: "kv test" } });
  return id;
}

async function refusal(promise: Promise<unknown>): Promise<NodeError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(NodeError);
  expect((error as NodeError).retryable).toBe(false);
  return error as NodeError;
}

describe("key-value store", () => {
  it("sets, gets, overwrites and deletes JSON values", async () => {
    const kv = createKvStore({ prisma, clock: manualClock() }, await newWorkspace());
    expect(await kv.get("missing")).toBeUndefined();

    await kv.set("order:1", { id: 1, items: ["a", "b"], paid: false });
    expect(await kv.get("order:1")).toEqual({ id: 1, items: ["a", "b"], paid: false });
    await kv.set("order:1", 42);
    expect(await kv.get("order:1")).toBe(42);

    // A stored null is a value, not an absence.
    await kv.set("nothing", null);
    expect(await kv.get("nothing")).toBeNull();

    expect(await kv.delete("order:1")).toBe(true);
    expect(await kv.delete("order:1")).toBe(false);
    expect(await kv.get("order:1")).toBeUndefined();
  });

  it("stores keys and values with SQL metacharacters literally", async () => {
    const kv = createKvStore({ prisma, clock: manualClock() }, await newWorkspace());
    const key = "'; DROP TABLE kv_entries; --";
    await kv.set(key, 'it\'s "quoted" \\ and $1');
    expect(await kv.get(key)).toBe('it\'s "quoted" \\ and $1');
    // A backslash followed by u0000 is text, not an escaped NUL.
    await kv.set("backslash", "\\u0000");
    expect(await kv.get("backslash")).toBe("\\u0000");
  });

  it("hides an entry once its TTL has passed and deletes it when read", async () => {
    const clock = manualClock(new Date("2026-01-01T00:00:00Z"));
    const workspaceId = await newWorkspace();
    const kv = createKvStore({ prisma, clock }, workspaceId);
    await kv.set("session", { user: "ada" }, { ttlSeconds: 60 });

    clock.advance(59_999);
    expect(await kv.get("session")).toEqual({ user: "ada" });
    clock.advance(1);
    expect(await kv.get("session")).toBeUndefined();
    expect(await prisma.kvEntry.count({ where: { workspaceId, key: "session" } })).toBe(0);
  });

  it("clears a TTL when a value is set again without one, and counts an expired entry as absent on delete", async () => {
    const clock = manualClock(new Date("2026-01-01T00:00:00Z"));
    const kv = createKvStore({ prisma, clock }, await newWorkspace());
    await kv.set("kept", 1, { ttlSeconds: 10 });
    await kv.set("kept", 2);
    await kv.set("gone", 3, { ttlSeconds: 10 });
    clock.advance(3_600_000);
    expect(await kv.get("kept")).toBe(2);
    expect(await kv.delete("gone")).toBe(false);
  });

  it("purges expired entries of every workspace and keeps live ones", async () => {
    const clock = manualClock(new Date("2030-01-01T00:00:00Z"));
    const [a, b] = [await newWorkspace(), await newWorkspace()];
    await createKvStore({ prisma, clock }, a).set("short", 1, { ttlSeconds: 5 });
    await createKvStore({ prisma, clock }, b).set("short", 1, { ttlSeconds: 5 });
    await createKvStore({ prisma, clock }, b).set("long", 1, { ttlSeconds: 500 });
    await createKvStore({ prisma, clock }, b).set("forever", 1);
    clock.advance(6000);

    expect(await purgeExpiredKvEntries({ prisma, clock })).toBeGreaterThanOrEqual(2);
    const left = await prisma.kvEntry.findMany({ where: { workspaceId: { in: [a, b] } }, select: { key: true } });
    expect(left.map((entry) => entry.key).sort()).toEqual(["forever", "long"]);
  });

  it("keeps workspaces apart", async () => {
    const clock = manualClock();
    const a = createKvStore({ prisma, clock }, await newWorkspace());
    const b = createKvStore({ prisma, clock }, await newWorkspace());
    await a.set("shared-name", "a's value");
    expect(await b.get("shared-name")).toBeUndefined();
    expect(await b.delete("shared-name")).toBe(false);
    await b.set("shared-name", "b's value");
    expect(await a.get("shared-name")).toBe("a's value");
    expect(await b.get("shared-name")).toBe("b's value");
  });

  it("refuses bad keys, oversize or non-JSON values and bad TTLs", async () => {
    const kv = createKvStore({ prisma, clock: manualClock() }, await newWorkspace());
    expect((await refusal(kv.set("", 1))).message).toMatch(/key must be a string of 1 to 512 characters/);
    await refusal(kv.get("k".repeat(513)));
    await kv.set("k".repeat(512), "longest key");
    expect(await kv.get("k".repeat(512))).toBe("longest key");
    await refusal(kv.set("nul\u0000key", 1));

    const big = "x".repeat(KV_LIMITS.maxValueBytes);
    expect((await refusal(kv.set("big", big))).message).toMatch(/value is \d+ bytes of JSON; at most 1048576/);
    await refusal(kv.set("nan", { n: Number.NaN }));
    await refusal(kv.set("undefined", undefined));
    await refusal(kv.set("nul", "a\u0000b"));
    await refusal(kv.set("ttl", 1, { ttlSeconds: 0 }));
    await refusal(kv.set("ttl", 1, { ttlSeconds: 1.5 }));
    expect(await kv.get("big")).toBeUndefined();
    expect(await kv.get("ttl")).toBeUndefined();
  });
});

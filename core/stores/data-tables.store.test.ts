import { beforeAll, describe, expect, it } from "vitest";
import { manualClock } from "../../lib/clock.js";
import { newId } from "../../lib/ids.js";
import { testPrisma } from "../../test/helpers/context.js";
import type { DataTables, RowFilter } from "../nodes/define-node.js";
import { NodeError } from "../nodes/node-error.js";
import { createDataTables } from "./data-tables.store.js";

const prisma = testPrisma();
const clock = manualClock(new Date("2026-03-01T12:00:00Z"));

async function tablesOfNewWorkspace(): Promise<DataTables> {
  const id = newId("ws");
  await prisma.workspace.create({ data: { id, name: "tables test" } });
  return createDataTables({ prisma, clock }, id);
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(NodeError);
  expect((error as NodeError).retryable).toBe(false);
  return (error as NodeError).message;
}

const INJECTION = "'; DROP TABLE data_rows; --";

const ORDERS = [
  { name: "ada", amount: 120, status: "open", customer: { tier: "gold", city: "London" }, tags: ["vip", "eu"] },
  { name: "bob", amount: 80, status: "done", customer: { tier: "silver", city: "Paris" }, tags: ["eu"] },
  { name: "cy", amount: 15.5, status: "open", customer: { tier: "gold", city: "Lisbon" }, tags: [] },
  { name: "dee", amount: "200", status: "open", customer: { tier: "bronze" }, note: null },
  { name: "eve", status: "cancelled", customer: { tier: "silver", city: "Paris" }, note: INJECTION },
];

describe("data tables", () => {
  let db: DataTables;
  const names = async (where: RowFilter, orderBy?: { field: string; direction?: "asc" | "desc" }) =>
    (await db.query("orders", { where, orderBy })).map((row) => row.name);

  beforeAll(async () => {
    db = await tablesOfNewWorkspace();
    await db.insert("orders", ORDERS);
    await db.insert("customers", [{ name: "ada" }]);
  });

  it("inserts rows with new ids and returns them in insertion order", async () => {
    const tables = await tablesOfNewWorkspace();
    const rows = Array.from({ length: 50 }, (_, i) => ({ n: i }));
    const inserted = await tables.insert("numbers", rows);
    expect(inserted).toHaveLength(50);
    expect(new Set(inserted.map((row) => row.id)).size).toBe(50);
    for (const row of inserted) expect(row.id).toMatch(/^row_[0-9a-f]{24}$/);
    expect(inserted[7]).toEqual({ id: inserted[7]!.id, n: 7 });
    const queried = await tables.query("numbers", { limit: 1000 });
    expect(queried).toEqual(inserted);
    expect(await tables.insert("numbers", [])).toEqual([]);
  });

  it("filters by equality, also on nested paths, objects and arrays", async () => {
    expect(await names({ status: "open" })).toEqual(["ada", "cy", "dee"]);
    expect(await names({ "customer.tier": "gold" })).toEqual(["ada", "cy"]);
    expect(await names({ "customer.tier": "silver", "customer.city": "Paris" })).toEqual(["bob", "eve"]);
    expect(await names({ customer: { eq: { tier: "gold", city: "London" } } })).toEqual(["ada"]);
    // Equality is exact: a sub-object or a sub-array is not equal.
    expect(await names({ customer: { eq: { tier: "gold" } } })).toEqual([]);
    expect(await names({ tags: ["eu"] })).toEqual(["bob"]);
    expect(await names({ "tags.0": "vip" })).toEqual(["ada"]);
    // Numbers compare as numbers: 120 equals 120.0, not "120".
    expect(await names({ amount: 120.0 })).toEqual(["ada"]);
    expect(await names({ amount: "200" })).toEqual(["dee"]);
  });

  it("treats null as absent-or-null", async () => {
    expect(await names({ note: null })).toEqual(["ada", "bob", "cy", "dee"]);
    expect(await names({ note: { ne: null } })).toEqual(["eve"]);
    expect(await names({ "customer.city": { in: ["Paris", null] } })).toEqual(["bob", "dee", "eve"]);
  });

  it("applies every operator", async () => {
    expect(await names({ status: { ne: "open" } })).toEqual(["bob", "eve"]);
    // Comparisons only match values of the operand's type ("200" is a string, eve has none).
    expect(await names({ amount: { gt: 80 } })).toEqual(["ada"]);
    expect(await names({ amount: { gte: 80 } })).toEqual(["ada", "bob"]);
    expect(await names({ amount: { lt: 80 } })).toEqual(["cy"]);
    expect(await names({ amount: { lte: 80, gt: 15.5 } })).toEqual(["bob"]);
    expect(await names({ amount: { gte: "1" } })).toEqual(["dee"]);
    expect(await names({ name: { lt: "c" } })).toEqual(["ada", "bob"]);
    expect(await names({ "customer.city": { contains: "is" } })).toEqual(["bob", "cy", "eve"]);
    expect(await names({ tags: { contains: "eu" } })).toEqual(["ada", "bob"]);
    expect(await names({ name: { in: ["ada", "eve", "zed"] } })).toEqual(["ada", "eve"]);
    expect(await names({ name: { in: [] } })).toEqual([]);
  });

  it("filters on the row id", async () => {
    const [ada, bob] = await db.query("orders", { limit: 2 });
    expect(await names({ id: ada!.id })).toEqual(["ada"]);
    expect(await names({ id: { in: [ada!.id, bob!.id] } })).toEqual(["ada", "bob"]);
    expect(await names({ id: { ne: ada!.id }, status: "open" })).toEqual(["cy", "dee"]);
  });

  it("compares values and field names containing SQL metacharacters literally", async () => {
    expect(await names({ note: INJECTION })).toEqual(["eve"]);
    expect(await names({ note: { contains: "DROP TABLE" } })).toEqual(["eve"]);
    expect(await names({ note: { contains: "%" } })).toEqual([]);
    expect(await names({ [INJECTION]: "x" })).toEqual([]);
    expect(await names({ status: "open' OR '1'='1" })).toEqual([]);
    expect(await names({}, { field: INJECTION, direction: "desc" })).toHaveLength(5);
    // The table is still there, with every row.
    expect(await prisma.dataRow.count()).toBeGreaterThanOrEqual(6);
  });

  it("orders by a field (rows without it last), pages with limit and offset", async () => {
    // Mixed types order as jsonb orders them (strings before numbers); absent fields come last.
    expect(await names({}, { field: "amount" })).toEqual(["dee", "cy", "bob", "ada", "eve"]);
    expect(await names({ amount: { gte: 0 } }, { field: "amount", direction: "desc" })).toEqual(["ada", "bob", "cy"]);
    expect(await names({}, { field: "customer.city", direction: "desc" })).toEqual(["bob", "eve", "ada", "cy", "dee"]);
    const page = await db.query("orders", { limit: 2, offset: 2 });
    expect(page.map((row) => row.name)).toEqual(["cy", "dee"]);
    expect(await db.query("orders", { offset: 5 })).toEqual([]);
  });

  it("updates by merging a patch into matching rows, and deletes matching rows", async () => {
    const tables = await tablesOfNewWorkspace();
    await tables.insert("tasks", [
      { title: "a", done: false, meta: { priority: 1, owner: "x" } },
      { title: "b", done: false, meta: { priority: 2 } },
      { title: "c", done: true },
    ]);
    clock.advance(1000);
    expect(await tables.update("tasks", { done: false }, { done: true, meta: { priority: 0 } })).toBe(2);
    const rows = await tables.query("tasks");
    expect(rows.map(({ id: _id, ...data }) => data)).toEqual([
      { title: "a", done: true, meta: { priority: 0 } },
      { title: "b", done: true, meta: { priority: 0 } },
      { title: "c", done: true },
    ]);
    const updated = await prisma.dataRow.findUniqueOrThrow({ where: { id: rows[0]!.id } });
    expect(updated.updatedAt.getTime() - updated.createdAt.getTime()).toBe(1000);

    expect(await tables.update("tasks", { title: "zzz" }, { done: false })).toBe(0);
    expect(await tables.delete("tasks", { title: { in: ["a", "c"] } })).toBe(1 + 1);
    expect((await tables.query("tasks")).map((row) => row.title)).toEqual(["b"]);
    expect(await tables.delete("tasks", {})).toBe(1);
    expect(await tables.query("tasks")).toEqual([]);
  });

  it("keeps tables and workspaces apart", async () => {
    const other = await tablesOfNewWorkspace();
    expect(await other.query("orders")).toEqual([]);
    expect(await other.update("orders", {}, { hacked: true })).toBe(0);
    expect(await other.delete("orders", {})).toBe(0);
    expect(await names({ hacked: true })).toEqual([]);
    expect(await db.query("orders", { limit: 1000 })).toHaveLength(5);
    expect((await db.query("customers")).map((row) => row.name)).toEqual(["ada"]);
  });

  it("refuses bad table names, limits beyond bounds, unknown operators and assigned ids", async () => {
    for (const table of ["Orders", "1orders", "orders-2024", "o".repeat(64), "", "orders; drop", "_x"]) {
      expect(await refusal(db.query(table))).toMatch(/is not a valid name/);
    }
    await db.query("o".repeat(63));
    const tooMany = Array.from({ length: 1001 }, () => ({}));
    expect(await refusal(db.insert("orders", tooMany))).toMatch(/1001 rows given; at most 1000/);
    expect(await refusal(db.query("orders", { limit: 1001 }))).toMatch(/limit must be an integer from 1 to 1000/);
    await refusal(db.query("orders", { limit: 0 }));
    await refusal(db.query("orders", { offset: -1 }));
    expect(await refusal(db.query("orders", { where: { amount: { between: [1, 2] } } }))).toMatch(
      /unknown operator "between"/,
    );
    await refusal(db.query("orders", { where: { amount: {} } }));
    await refusal(db.query("orders", { where: { amount: { gt: true } } }));
    await refusal(db.query("orders", { where: { amount: { in: "ada" } } }));
    await refusal(db.query("orders", { where: { "a..b": 1 } }));
    await refusal(db.query("orders", { where: { id: { gt: "row_" } } }));
    await refusal(db.query("orders", { orderBy: { field: "amount", direction: "sideways" as "asc" } }));
    expect(await refusal(db.insert("orders", [{ id: "mine" }]))).toMatch(/row ids are assigned/);
    await refusal(db.insert("orders", [["not", "an", "object"]] as never));
    await refusal(db.insert("orders", [{ text: "nul \u0000" }]));
    await refusal(db.insert("orders", [{ big: "x".repeat(1024 * 1024) }]));
    await refusal(db.update("orders", undefined as never, { x: 1 }));
    await refusal(db.update("orders", {}, {}));
    await refusal(db.delete("orders", "1=1" as never));
    expect(await db.query("orders", { limit: 1000 })).toHaveLength(5);
  });
});

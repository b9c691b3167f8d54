import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { manualClock } from "../../lib/clock.js";
import { newId } from "../../lib/ids.js";
import { testPrisma } from "../../test/helpers/context.js";
import type { ObjectStore } from "../nodes/define-node.js";
import { NodeError } from "../nodes/node-error.js";
import { createObjectStore } from "./object.store.js";

const prisma = testPrisma();
const clock = manualClock(new Date("2026-05-01T00:00:00Z"));
const scratch = mkdtempSync(path.join(os.tmpdir(), "objects-test-"));
const root = path.join(scratch, "objects");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (body: Uint8Array) => new TextDecoder().decode(body);
const sha256 = (body: Uint8Array) => createHash("sha256").update(body).digest("hex");

/** Every file below a directory, as paths relative to it. */
const filesBelow = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(NodeError);
  expect((error as NodeError).retryable).toBe(false);
  return (error as NodeError).message;
}

const backends = [
  { backend: "postgres", config: { OBJECT_STORAGE_DIR: undefined, OBJECT_MAX_BYTES: 4096 } },
  { backend: "directory", config: { OBJECT_STORAGE_DIR: root, OBJECT_MAX_BYTES: 4096 } },
];

describe.each(backends)("object storage ($backend)", ({ config }) => {
  async function storeOfNewWorkspace(): Promise<{ store: ObjectStore; workspaceId: string }> {
    const workspaceId = newId("ws");
    await prisma.workspace.create({ data: { id: workspaceId, name: "objects test" } });
    return { store: createObjectStore({ prisma, clock, config }, workspaceId), workspaceId };
  }

  it("puts, gets, overwrites and deletes an object", async () => {
    const { store } = await storeOfNewWorkspace();
    const body = bytes("hello, world");
    expect(await store.put("greetings/hello.txt", body, { contentType: "text/plain; charset=utf-8" })).toEqual({
      key: "greetings/hello.txt",
      size: 12,
      etag: sha256(body),
    });
    const got = await store.get("greetings/hello.txt");
    expect(got).toMatchObject({ contentType: "text/plain; charset=utf-8", size: 12, etag: sha256(body) });
    expect(text(got!.body)).toBe("hello, world");

    const binary = new Uint8Array([0, 255, 1, 254, 0]);
    await store.put("greetings/hello.txt", binary);
    const replaced = await store.get("greetings/hello.txt");
    expect(replaced).toMatchObject({ contentType: "application/octet-stream", size: 5, etag: sha256(binary) });
    expect([...replaced!.body]).toEqual([0, 255, 1, 254, 0]);

    expect(await store.delete("greetings/hello.txt")).toBe(true);
    expect(await store.delete("greetings/hello.txt")).toBe(false);
    expect(await store.get("greetings/hello.txt")).toBeNull();
    expect(await store.list()).toEqual([]);
  });

  it("stores an empty object", async () => {
    const { store } = await storeOfNewWorkspace();
    await store.put("empty", new Uint8Array());
    expect(await store.get("empty")).toMatchObject({ size: 0, etag: sha256(new Uint8Array()) });
  });

  it("lists by literal prefix in key order, with limit and an after cursor", async () => {
    const { store } = await storeOfNewWorkspace();
    for (const key of ["b/2", "a/1", "b/1", "b%x", "b_y", "c", "b/10"]) await store.put(key, bytes(key));
    const keys = async (options: { prefix?: string; limit?: number; after?: string } = {}) =>
      (await store.list(options)).map((item) => item.key);

    expect(await keys()).toEqual(["a/1", "b%x", "b/1", "b/10", "b/2", "b_y", "c"]);
    expect(await keys({ prefix: "b/" })).toEqual(["b/1", "b/10", "b/2"]);
    // % and _ are characters, not wildcards.
    expect(await keys({ prefix: "b%" })).toEqual(["b%x"]);
    expect(await keys({ prefix: "b_" })).toEqual(["b_y"]);
    expect(await keys({ limit: 2 })).toEqual(["a/1", "b%x"]);
    expect(await keys({ after: "b%x", limit: 2 })).toEqual(["b/1", "b/10"]);
    expect(await keys({ prefix: "b/", after: "b/10" })).toEqual(["b/2"]);
    expect(await keys({ prefix: "zzz" })).toEqual([]);

    const [first] = await store.list({ limit: 1 });
    expect(first).toEqual({
      key: "a/1",
      size: 3,
      contentType: "application/octet-stream",
      etag: sha256(bytes("a/1")),
      updatedAt: "2026-05-01T00:00:00.000Z",
    });
  });

  it("keeps workspaces apart", async () => {
    const a = await storeOfNewWorkspace();
    const b = await storeOfNewWorkspace();
    await a.store.put("secret", bytes("a's"));
    expect(await b.store.get("secret")).toBeNull();
    expect(await b.store.list()).toEqual([]);
    expect(await b.store.delete("secret")).toBe(false);
    await b.store.put("secret", bytes("b's"));
    expect(text((await a.store.get("secret"))!.body)).toBe("a's");
  });

  it("refuses oversize objects, bad keys, bad content types and list limits", async () => {
    const { store } = await storeOfNewWorkspace();
    await store.put("max", new Uint8Array(4096));
    expect(await refusal(store.put("too-big", new Uint8Array(4097)))).toMatch(
      /4097 bytes; at most 4096 are allowed \(OBJECT_MAX_BYTES\)/,
    );
    await refusal(store.put("", bytes("x")));
    await refusal(store.put("k".repeat(513), bytes("x")));
    await refusal(store.get("nul\u0000"));
    expect(await refusal(store.put("x", bytes("x"), { contentType: "text/html\r\nX-Evil: 1" }))).toMatch(
      /not a media type/,
    );
    await refusal(store.put("x", bytes("x"), { contentType: "plain" }));
    await refusal(store.list({ limit: 1001 }));
    await refusal(store.list({ limit: 0 }));
    expect((await store.list()).map((item) => item.key)).toEqual(["max"]);
  });
});

describe("object storage (directory): keys never leave the workspace's directory", () => {
  it("maps traversal and absolute keys to hashed file names inside it", async () => {
    const workspaceId = newId("ws");
    await prisma.workspace.create({ data: { id: workspaceId, name: "traversal test" } });
    const own = mkdtempSync(path.join(scratch, "traversal-"));
    const root = path.join(own, "objects");
    const store = createObjectStore(
      { prisma, clock, config: { OBJECT_STORAGE_DIR: root, OBJECT_MAX_BYTES: 4096 } },
      workspaceId,
    );
    const hostile = ["../../escape.txt", "/etc/passwd", "..\\..\\windows.ini", "a/../../../b", "C:\\x", ".", ".."];
    for (const key of hostile) await store.put(key, bytes(`body of ${key}`));

    expect(readdirSync(own)).toEqual(["objects"]);
    const files = filesBelow(root);
    expect(files.every((file) => file.startsWith(`${workspaceId}${path.sep}`))).toBe(true);
    const names = files.map((file) => path.basename(file));
    expect(names.every((name) => /^[0-9a-f]{64}(\.[0-9a-f]{64}\.bin|\.json)$/.test(name))).toBe(true);
    expect(names.filter((name) => name.endsWith(".json"))).toHaveLength(hostile.length);

    for (const key of hostile) expect(text((await store.get(key))!.body)).toBe(`body of ${key}`);
    expect((await store.list()).map((item) => item.key).sort()).toEqual([...hostile].sort());
    for (const key of hostile) expect(await store.delete(key)).toBe(true);
    expect(filesBelow(path.join(root, workspaceId))).toEqual([]);
  });

  it("keeps one body file per object across overwrites", async () => {
    const workspaceId = newId("ws");
    await prisma.workspace.create({ data: { id: workspaceId, name: "overwrite test" } });
    const store = createObjectStore(
      { prisma, clock, config: { OBJECT_STORAGE_DIR: root, OBJECT_MAX_BYTES: 4096 } },
      workspaceId,
    );
    for (const version of ["one", "two", "two", "three"]) await store.put("doc", bytes(version));
    expect(filesBelow(path.join(root, workspaceId))).toHaveLength(2);
    expect(text((await store.get("doc"))!.body)).toBe("three");
  });
});

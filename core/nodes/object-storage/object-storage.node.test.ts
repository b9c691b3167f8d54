import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { testPrisma } from "../../../test/helpers/context.js";
import { flow, useRunHarness, type RunHarness } from "../../../test/helpers/runs.js";

// A 1×1 PNG.
const PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

const chain = (ids: string[]): Array<[string, string]> => ids.slice(1).map((id, i) => [ids[i]!, id]);

const roundTripNodes = [
  {
    id: "put_text",
    type: "object_storage",
    config: { operation: "put", key: "notes/hello.txt", content: "Hello, {{ trigger.name }} ✓" },
  },
  {
    id: "put_json",
    type: "object_storage",
    config: { operation: "put", key: "data/order.json", content: "{{ trigger.order }}" },
  },
  {
    id: "put_png",
    type: "object_storage",
    config: {
      operation: "put",
      key: "images/pixel.png",
      content: PIXEL,
      encoding: "base64",
      content_type: "image/png",
    },
  },
  { id: "get_text", type: "object_storage", config: { operation: "get", key: "notes/hello.txt" } },
  { id: "get_json", type: "object_storage", config: { operation: "get", key: "data/order.json" } },
  { id: "get_png", type: "object_storage", config: { operation: "get", key: "images/pixel.png" } },
  {
    id: "get_json_as_text",
    type: "object_storage",
    config: { operation: "get", key: "data/order.json", encoding: "text" },
  },
  { id: "first_page", type: "object_storage", config: { operation: "list", limit: 2 } },
  {
    id: "next_page",
    type: "object_storage",
    config: { operation: "list", after: "{{ nodes.first_page.next_after }}" },
  },
  { id: "remove", type: "object_storage", config: { operation: "delete", key: "notes/hello.txt" } },
  { id: "get_removed", type: "object_storage", config: { operation: "get", key: "notes/hello.txt" } },
  { id: "listed_notes", type: "object_storage", config: { operation: "list", prefix: "notes/" } },
];

async function runRoundTrip(h: RunHarness) {
  const flowId = await h.createFlow(
    flow(roundTripNodes, [["start", "put_text"], ...chain(roundTripNodes.map((n) => n.id))]),
  );
  const run = await h.runToEnd(flowId, { name: "Ada", order: { id: 7, lines: [{ sku: "A-1", qty: 2 }] } });
  expect(run.status, JSON.stringify(run.error)).toBe("success");
  const out = Object.fromEntries((await h.steps(run.id)).map((step) => [step.node_id, step.output])) as Record<
    string,
    Record<string, unknown>
  >;
  const helloBytes = new TextEncoder().encode("Hello, Ada ✓").length;

  expect(out.put_text).toEqual({
    key: "notes/hello.txt",
    size: helloBytes,
    etag: expect.stringMatching(/^[0-9a-f]{64}$/),
    content_type: "text/plain; charset=utf-8",
  });
  expect(out.put_json).toMatchObject({ key: "data/order.json", content_type: "application/json" });
  expect(out.put_png).toMatchObject({ key: "images/pixel.png", size: 70, content_type: "image/png" });
  expect(out.get_text).toEqual({
    key: "notes/hello.txt",
    found: true,
    content: "Hello, Ada ✓",
    encoding: "text",
    content_type: "text/plain; charset=utf-8",
    size: helloBytes,
    etag: out.put_text!.etag,
  });
  expect(out.get_json).toMatchObject({
    found: true,
    encoding: "json",
    content: { id: 7, lines: [{ sku: "A-1", qty: 2 }] },
  });
  expect(out.get_png).toMatchObject({ found: true, encoding: "base64", content: PIXEL, content_type: "image/png" });
  expect(out.get_json_as_text).toMatchObject({ content: '{"id":7,"lines":[{"sku":"A-1","qty":2}]}' });

  const keys = (page: Record<string, unknown>) => (page.items as Array<{ key: string }>).map((item) => item.key);
  expect(keys(out.first_page!)).toEqual(["data/order.json", "images/pixel.png"]);
  expect(out.first_page!.next_after).toBe("images/pixel.png");
  expect(out.next_page).toEqual({
    items: [
      {
        key: "notes/hello.txt",
        size: helloBytes,
        content_type: "text/plain; charset=utf-8",
        etag: out.put_text!.etag,
        updated_at: expect.any(String),
      },
    ],
    next_after: null,
  });
  expect(out.remove).toEqual({ key: "notes/hello.txt", deleted: true });
  expect(out.get_removed).toEqual({ key: "notes/hello.txt", found: false, content: null });
  expect(out.listed_notes).toEqual({ items: [], next_after: null });
}

describe("object_storage node, PostgreSQL backend, through a run", () => {
  const h = useRunHarness();

  it("puts text, JSON and base64 content, reads it back, lists pages and deletes", async () => {
    await runRoundTrip(h);
    const stored = await testPrisma().storedObject.findMany({
      where: { workspaceId: h.workspaceId },
      select: { key: true, contentType: true },
      orderBy: { key: "asc" },
    });
    expect(stored).toEqual([
      { key: "data/order.json", contentType: "application/json" },
      { key: "images/pixel.png", contentType: "image/png" },
    ]);
  });

  it("fails the node at once on content that does not match its encoding", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          {
            id: "bad",
            type: "object_storage",
            config: { operation: "put", key: "x", content: "not base64!", encoding: "base64" },
          },
        ],
        [["start", "bad"]],
      ),
    );
    const run = await h.runToEnd(flowId);
    expect(run.status).toBe("failed");
    const steps = (await h.steps(run.id)).filter((step) => step.node_id === "bad");
    expect(steps).toHaveLength(1);
    expect(steps[0]!.error).toMatchObject({ type: "NodeFatalError", message: "content is not valid base64" });
  });
});

describe("object_storage node, directory backend (OBJECT_STORAGE_DIR), through a run", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "object-storage-node-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const h = useRunHarness({ config: { OBJECT_STORAGE_DIR: dir, OBJECT_MAX_BYTES: "1024" } });

  it("keeps the objects as files in the workspace's directory", async () => {
    await runRoundTrip(h);
    expect(readdirSync(dir)).toEqual([h.workspaceId]);
    const files = readdirSync(path.join(dir, h.workspaceId));
    expect(files.filter((file) => file.endsWith(".json"))).toHaveLength(2);
    expect(files.filter((file) => file.endsWith(".bin"))).toHaveLength(2);
    expect(await testPrisma().storedObject.count({ where: { workspaceId: h.workspaceId } })).toBe(0);
  });

  it("refuses an object over OBJECT_MAX_BYTES", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          {
            id: "big",
            type: "object_storage",
            config: { operation: "put", key: "big.txt", content: "{{ trigger.text }}" },
          },
        ],
        [["start", "big"]],
      ),
    );
    const run = await h.runToEnd(flowId, { text: "x".repeat(1025) });
    expect(run.status).toBe("failed");
    expect(run.error).toMatchObject({
      node_id: "big",
      message: "the object is 1025 bytes; at most 1024 are allowed (OBJECT_MAX_BYTES)",
    });
  });
});

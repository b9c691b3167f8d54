// A run waiting at its flow's concurrency gate, as GET /api/runs/{id} shows it (real dev server):
// `queued` with its reason, key and position until granted, then `running`; ended runs keep theirs.
// The runs table stores `queued` while it waits (the list filters on it) and `running` once granted;
// a sync hook takes a queued run as not ended (202 at its timeout). GET /api/runs/queues answers
// the places of a page's runs at once, one gate query per gate.
import request from "supertest";
import { describe, expect, it, vi } from "vitest";
import { testPrisma } from "../../../test/helpers/context.js";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";

const h = useRunHarness();

const sleeper = (ms: number, settings: object) => ({
  ...flow([{ id: "nap", type: "test_sleep", config: { ms } }], [["start", "nap"]]),
  ...settings,
});

const getRun = async (runId: string) => {
  const res = await request(h.app).get(`/api/runs/${runId}`).set("Cookie", h.cookie);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.run as { status: string; queue: { reason: string; key: string; position: number } | null };
};
const cancel = (runId: string) => request(h.app).post(`/api/runs/${runId}/cancel`).set("Cookie", h.cookie);
/** The status the runs table holds. */
const stored = async (runId: string) =>
  (await testPrisma().run.findUniqueOrThrow({ where: { id: runId }, select: { status: true } })).status;
const listed = async (flowId: string, status: string) => {
  const res = await request(h.app).get(`/api/runs?flow_id=${flowId}&status=${status}`).set("Cookie", h.cookie);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.items as Array<{ id: string; status: string }>).map((r) => `${r.id}:${r.status}`).sort();
};

describe("GET /api/runs/{id} of a run waiting at its gate", () => {
  it("shows queued with its reason, key and position, then running once granted; cancelled keeps its status", async () => {
    const flowId = await h.createFlow(sleeper(60_000, { concurrency: { limit: 1, key: "{{ input.customer }}" } }));
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await h.startRun(flowId, { customer: "acme", i });
      // The start answers `running` (the interface's answer); `queued` is what GET shows after.
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.status).toBe("running");
      ids.push(res.body.run_id as string);
    }
    const [a, b, c] = ids as [string, string, string];
    await expect.poll(async () => (await getRun(c)).queue?.position, { timeout: 20_000 }).toBe(2);
    expect(await getRun(b)).toMatchObject({
      status: "queued",
      queue: { reason: "waiting for a concurrency slot of key acme", key: "acme", position: 1 },
    });
    expect(await getRun(c)).toMatchObject({ status: "queued" });
    expect(await getRun(a)).toMatchObject({ status: "running", queue: null });

    // Stored: the waiting runs are `queued` in the table, and the list filters on it.
    await expect.poll(() => stored(c), { timeout: 15_000 }).toBe("queued");
    await expect.poll(() => stored(b), { timeout: 15_000 }).toBe("queued");
    expect(await stored(a)).toBe("running");
    expect(await listed(flowId, "queued")).toEqual([`${b}:queued`, `${c}:queued`].sort());
    expect(await listed(flowId, "running")).toEqual([`${a}:running`]);

    // Cancelling the holder grants b: running, no queue; c is next.
    expect((await cancel(a)).status).toBe(202);
    expect((await h.waitForEnd(a, 15_000)).status).toBe("cancelled");
    expect(await getRun(a)).toMatchObject({ status: "cancelled", queue: null });
    await expect.poll(async () => (await getRun(b)).status, { timeout: 15_000 }).toBe("running");
    expect((await getRun(b)).queue).toBeNull();
    await expect.poll(() => stored(b), { timeout: 15_000 }).toBe("running");
    expect(await listed(flowId, "queued")).toEqual([`${c}:queued`]);
    await expect.poll(async () => (await getRun(c)).queue?.position, { timeout: 15_000 }).toBe(1);

    // A queued run is cancellable: it leaves the queue and ends cancelled.
    expect((await cancel(c)).status).toBe(202);
    expect((await h.waitForEnd(c, 15_000)).status).toBe("cancelled");
    expect(await getRun(c)).toMatchObject({ status: "cancelled", queue: null });
    expect(await stored(c)).toBe("cancelled");
    expect(await listed(flowId, "queued")).toEqual([]);
    expect((await cancel(b)).status).toBe(202);
    expect((await h.waitForEnd(b, 15_000)).status).toBe("cancelled");
  }, 90_000);

  it("answers a sync hook's call whose run is queued 202 at its timeout: queued is not an end", async () => {
    const definition = sleeper(60_000, { concurrency: { limit: 1 } });
    definition.nodes[0] = { id: "start", type: "http_trigger", config: { mode: "sync", sync_timeout_ms: 8000 } };
    const flowId = await h.createFlow(definition);
    const path = (await request(h.app).get(`/api/flows/${flowId}`).set("Cookie", h.cookie)).body.hook.path as string;
    const holder = await request(h.app).post(path).send({ i: 0 });
    expect(holder.status, JSON.stringify(holder.body)).toBe(202);
    let answered = false;
    const answer = request(h.app)
      .post(path)
      .send({ i: 1 })
      .then((res) => ((answered = true), res));
    // The waiting run is stored queued while its call still waits for its end.
    await expect
      .poll(
        async () => {
          const rows = await testPrisma().run.findMany({ where: { flowId, status: "queued" }, select: { id: true } });
          return rows.length;
        },
        { timeout: 7000, interval: 100 },
      )
      .toBe(1);
    expect(answered).toBe(false);
    const waiting = await answer;
    expect(waiting.status, JSON.stringify(waiting.body)).toBe(202);
    expect(waiting.body).toMatchObject({ status_url: `/api/runs/${waiting.body.run_id}` });
    expect(await stored(waiting.body.run_id as string)).toBe("queued");
    for (const id of [waiting.body.run_id as string, holder.body.run_id as string]) {
      expect((await cancel(id)).status).toBe(202);
      expect((await h.waitForEnd(id, 15_000)).status).toBe("cancelled");
    }
  }, 60_000);

  it("hashes a long key and names a throttle window", async () => {
    const flowId = await h.createFlow(
      sleeper(60_000, { throttle: { limit: 1, period_ms: 600_000, key: "{{ input.customer }}" } }),
    );
    const long = "x".repeat(150);
    const a = (await h.startRun(flowId, { customer: long })).body.run_id as string;
    const b = (await h.startRun(flowId, { customer: long })).body.run_id as string;
    await expect.poll(async () => (await getRun(b)).status, { timeout: 20_000 }).toBe("queued");
    const { queue } = await getRun(b);
    expect(queue!.key).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(queue!.reason).toBe(`waiting for a throttle window of key ${queue!.key}`);
    expect(queue!.position).toBe(1);
    for (const id of [a, b]) {
      expect((await cancel(id)).status).toBe(202);
      expect((await h.waitForEnd(id, 15_000)).status).toBe("cancelled");
    }
  }, 60_000);
});

describe("GET /api/runs/queues", () => {
  const queues = (ids: string) => request(h.app).get(`/api/runs/queues?ids=${ids}`).set("Cookie", h.cookie);

  it("answers the places of the waiting runs among those asked, with one gate query per gate", async () => {
    const flowId = await h.createFlow(sleeper(60_000, { concurrency: { limit: 1, key: "{{ input.customer }}" } }));
    const ids: string[] = [];
    for (const customer of ["acme", "acme", "acme", "globex", "globex"]) {
      const res = await h.startRun(flowId, { customer });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      ids.push(res.body.run_id as string);
    }
    const [a, b, c, d, e] = ids as [string, string, string, string, string];
    try {
      await expect.poll(async () => (await getRun(c)).queue?.position, { timeout: 20_000 }).toBe(2);
      await expect.poll(async () => (await getRun(e)).queue?.position, { timeout: 20_000 }).toBe(1);
      const gateHandles = vi.spyOn(h.deps.temporal.workflow, "getHandle");
      // A run of no gate and an unknown id are left out, as the holders are.
      const other = `run_${"0".repeat(24)}`;
      const res = await queues([a, b, c, d, e, other, b].join(","));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(gateHandles).toHaveBeenCalledTimes(2);
      gateHandles.mockRestore();
      const items = (res.body.items as Array<{ run_id: string; reason: string }>).sort(
        (x, y) => ids.indexOf(x.run_id) - ids.indexOf(y.run_id),
      );
      expect(items).toEqual([
        { run_id: b, reason: "waiting for a concurrency slot of key acme", key: "acme", position: 1 },
        { run_id: c, reason: "waiting for a concurrency slot of key acme", key: "acme", position: 2 },
        { run_id: e, reason: "waiting for a concurrency slot of key globex", key: "globex", position: 1 },
      ]);
      // What one run's page says, the batch says too.
      expect((await getRun(c)).queue).toEqual({ reason: items[1]!.reason, key: "acme", position: 2 });
    } finally {
      for (const id of ids) await cancel(id);
    }
  }, 60_000);

  it("refuses ids that are not run ids, and more than 50", async () => {
    for (const ids of [
      "",
      "nope",
      `run_${"0".repeat(24)},x`,
      Array.from({ length: 51 }, () => `run_${"1".repeat(24)}`).join(","),
    ]) {
      const res = await queues(ids);
      expect(res.status, ids).toBe(400);
      expect(res.body).toMatchObject({ code: expect.any(String), error: expect.any(String) });
    }
  });
});

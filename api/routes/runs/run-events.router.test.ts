import { once } from "node:events";
import { get, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../app.js";
import { createTestUser, login } from "../../../test/helpers/identity.js";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";
import { MAX_STREAMS_PER_USER } from "./run-events.router.js";

const h = useRunHarness();

interface StreamEvent {
  event: string;
  data: { run?: { status: string }; steps?: { items: Array<{ node_id: string; status: string }> }; status?: string };
}

/** Opens a run's event stream on a listening server; the events as they come, and the whole once it closes. */
function openStream(base: string, runId: string, cookie: string) {
  const events: StreamEvent[] = [];
  let response: IncomingMessage | undefined;
  const answered = new Promise<IncomingMessage>((resolve, reject) => {
    const req = get(`${base}/api/runs/${runId}/events`, { headers: { Cookie: cookie } }, (res) => {
      response = res;
      resolve(res);
    });
    req.on("error", reject);
  });
  const closed = answered.then(
    (res) =>
      new Promise<{ status: number; type: string | undefined; text: string }>((resolve) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
          for (;;) {
            const end = text.indexOf("\n\n");
            if (end < 0) break;
            const block = text.slice(0, end);
            text = text.slice(end + 2);
            const event = /^event: (.*)$/m.exec(block)?.[1];
            const data = /^data: (.*)$/m.exec(block)?.[1];
            if (event && data) events.push({ event, data: JSON.parse(data) });
          }
        });
        res.on("end", () => resolve({ status: res.statusCode!, type: res.headers["content-type"], text }));
      }),
  );
  return { events, answered, closed, abort: () => response?.destroy() };
}

describe("GET /api/runs/{id}/events", () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = h.app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const slowFlow = (ms: number) =>
    flow(
      [
        { id: "nap", type: "test_sleep", config: { ms } },
        { id: "echo", type: "test_echo", config: { value: "{{ input.n }}" } },
      ],
      [
        ["start", "nap"],
        ["nap", "echo"],
      ],
    );

  it("sends the run and its steps at once and at each change, then the final state and end, and closes", async () => {
    const flowId = await h.createFlow(slowFlow(1500), "Streamed");
    const started = await h.startRun(flowId, { n: 7 });
    expect(started.status).toBe(201);
    const stream = openStream(base, started.body.run_id, h.cookie);
    const { status, type } = await stream.closed;
    expect(status).toBe(200);
    expect(type).toBe("text/event-stream; charset=utf-8");

    const states = stream.events.filter((e) => e.event === "state").map((e) => e.data);
    expect(states[0]!.run!.status).toBe("running");
    // The nap was seen running before the run ended: a change sent as it happened.
    expect(
      states.some(
        (s) => s.run!.status === "running" && s.steps!.items.some((i) => i.node_id === "nap" && i.status === "running"),
      ),
    ).toBe(true);
    const last = states.at(-1)!;
    expect(last.run).toMatchObject({ status: "success", output: { input: { slept: 1500 } } });
    expect(last.steps!.items.map((i) => [i.node_id, i.status])).toEqual([
      ["start", "success"],
      ["nap", "success"],
      ["echo", "success"],
    ]);
    expect(stream.events.at(-1)).toEqual({ event: "end", data: { status: "success" } });
    // No state repeats the one before it.
    const keys = states.map((s) => JSON.stringify([s.run!.status, s.steps!.items.map((i) => i.status)]));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("sends an ended run's state and end at once", async () => {
    const run = await h.runToEnd(await h.createFlow(slowFlow(0)), { n: 1 });
    const res = await request(h.app).get(`/api/runs/${run.id}/events`).set("Cookie", h.cookie);
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/^event: state\ndata: \{"run":\{"id":"run_/);
    expect(res.text.endsWith('event: end\ndata: {"status":"success"}\n\n')).toBe(true);
  });

  it("answers 404 for another workspace's run, and 401 without a session", async () => {
    const run = await h.runToEnd(await h.createFlow(slowFlow(0)), { n: 1 });
    const stranger = await createTestUser("stranger");
    const { cookie } = await login(h.app, stranger.email);
    const other = await request(h.app).get(`/api/runs/${run.id}/events`).set("Cookie", cookie);
    expect([other.status, other.body.code]).toEqual([404, "not_found"]);
    expect(other.headers["content-type"]).toMatch(/^application\/json/);
    expect((await request(h.app).get(`/api/runs/${run.id}/events`)).status).toBe(401);
    expect((await request(h.app).get(`/api/runs/nope/events`).set("Cookie", h.cookie)).status).toBe(400);
  });

  it("ends open streams without `end` when the process starts to stop, and refuses new ones with 503", async () => {
    const stopping = new AbortController();
    const stoppable = createApp({ ...h.deps, stopping: stopping.signal }).listen(0, "127.0.0.1");
    await once(stoppable, "listening");
    const address = `http://127.0.0.1:${(stoppable.address() as AddressInfo).port}`;
    try {
      const started = await h.startRun(await h.createFlow(slowFlow(20_000)), { n: 1 });
      const runId = started.body.run_id as string;
      const stream = openStream(address, runId, h.cookie);
      expect((await stream.answered).statusCode).toBe(200);
      await expect.poll(() => stream.events.length).toBeGreaterThan(0);

      stopping.abort();
      // The server's close() then waits for no stream: it ended, with no `end` (the page polls).
      await new Promise((resolve) => stoppable.close(resolve));
      expect((await stream.closed).status).toBe(200);
      expect(stream.events.map((e) => e.event)).not.toContain("end");

      const refused = await request(createApp({ ...h.deps, stopping: stopping.signal }))
        .get(`/api/runs/${runId}/events`)
        .set("Cookie", h.cookie);
      expect([refused.status, refused.body.code]).toEqual([503, "shutting_down"]);
      await request(h.app).post(`/api/runs/${runId}/cancel`).set("Cookie", h.cookie);
    } finally {
      stoppable.closeAllConnections();
    }
  });

  it(`keeps at most ${MAX_STREAMS_PER_USER} streams per user open, and frees them when they close`, async () => {
    const started = await h.startRun(await h.createFlow(slowFlow(20_000)), { n: 1 });
    const runId = started.body.run_id as string;
    const streams = Array.from({ length: MAX_STREAMS_PER_USER }, () => openStream(base, runId, h.cookie));
    for (const s of streams) expect((await s.answered).statusCode).toBe(200);
    const refused = await request(h.app).get(`/api/runs/${runId}/events`).set("Cookie", h.cookie);
    expect([refused.status, refused.body.code]).toEqual([429, "too_many_streams"]);
    expect(refused.headers["retry-after"]).toBe("10");

    streams[0]!.abort();
    await expect
      .poll(async () => {
        const again = openStream(base, runId, h.cookie);
        const res = await again.answered;
        again.abort();
        return res.statusCode;
      })
      .toBe(200);
    for (const s of streams) s.abort();
    await request(h.app).post(`/api/runs/${runId}/cancel`).set("Cookie", h.cookie);
  });
});

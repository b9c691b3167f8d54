// An agent's text streamed as the model writes it (GET /api/agent/runs/{id}/events) on a real
// worker and dev server, with the loopback provider streaming in both protocols: the first
// pieces arrive while the model call is still open (no step recorded yet), the pieces add up to
// the answer, and what is recorded is the whole answer once, as without streaming.
import request from "supertest";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { testPrisma } from "../../../test/helpers/context.js";
import {
  anthropicAnswer,
  openAiAnswer,
  startFakeProvider,
  type Protocol,
} from "../../../test/helpers/fake-llm-provider.js";
import { eventually, openEventStream, useLoopbackServer } from "../../../test/helpers/event-stream.js";
import { createTestUser, login } from "../../../test/helpers/identity.js";
import { useRunHarness } from "../../../test/helpers/runs.js";
import { Prisma } from "../../../lib/db.js";
import { runEndedNotice } from "../../../lib/run-end-notices.js";

const provider = await startFakeProvider();
afterAll(() => provider.close());
const h = useRunHarness({
  config: {
    OPENAI_API_KEY: "sk-test-openai-key",
    OPENAI_BASE_URL: `${provider.url}/v1`,
    ANTHROPIC_API_KEY: "sk-ant-test-key",
    ANTHROPIC_BASE_URL: provider.url,
  },
});
beforeEach(() => provider.reset());

const served = useLoopbackServer(() => h.app);

const answers: Record<Protocol, (text: string) => ReturnType<typeof openAiAnswer>> = {
  openai: (text) => openAiAnswer({ text }),
  anthropic: (text) => anthropicAnswer({ text }),
};

describe("an agent's streamed text", () => {
  for (const protocol of ["openai", "anthropic"] as const) {
    it(`arrives while the ${protocol} model still writes, adds up to the answer, and is recorded once`, async () => {
      const text = `The parcel (${protocol}) goes to Lyon by the night train, then by van to the depot.`;
      let release = () => {};
      const midway = new Promise<void>((resolve) => (release = resolve));
      provider.script(protocol, { ...answers[protocol](text), midway });
      const started = await request(h.app)
        .post("/api/agent/run")
        .set("Cookie", h.cookie)
        .send({
          agent: `streamer-${protocol}`,
          instructions: "Where does the parcel go?",
          provider: protocol,
          model: protocol === "openai" ? "gpt-test" : "claude-test",
          tools: [],
        });
      expect(started.status, JSON.stringify(started.body)).toBe(202);
      const id = started.body.agent_run_id as string;
      const stream = openEventStream(`${served.base()}/api/agent/runs/${id}/events`, { headers: { Cookie: h.cookie } });

      await eventually(() => stream.events.some((e) => e.event === "text"), "text event");
      expect(stream.status()).toBe(200);
      // The model call is still open: nothing recorded yet, and the provider was asked to stream.
      expect(await testPrisma().agentStep.count({ where: { agentRunId: id } })).toBe(0);
      expect(provider.calls[0]!.body.stream).toBe(true);
      const early = stream.events.filter((e) => e.event === "text").map((e) => e.data.text as string);
      expect(early.join("").length).toBeLessThan(text.length);
      expect(text.startsWith(early.join(""))).toBe(true);

      release();
      await stream.closed;
      const pieces = stream.events.filter((e) => e.event === "text");
      expect(pieces.map((e) => e.data.number)).toEqual(pieces.map(() => 1));
      expect(pieces.map((e) => e.data.seq)).toEqual(pieces.map((_, i) => i));
      expect(pieces.map((e) => e.data.text).join("")).toBe(text);
      expect(stream.events.at(-1)).toEqual({ event: "end", data: { status: "success" } });

      const detail = await request(h.app).get(`/api/agent/runs/${id}`).set("Cookie", h.cookie);
      expect(detail.body.agent_run).toMatchObject({ status: "success", answer: text });
      expect(detail.body.steps).toHaveLength(1);
      expect(detail.body.steps[0]).toMatchObject({ kind: "model", output: { text } });
    });
  }

  it("ends when the run's end is announced, not by reading the run's status over and over", async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    provider.script("openai", { ...openAiAnswer({ text: "Late." }), after: held });
    const started = await request(h.app)
      .post("/api/agent/run")
      .set("Cookie", h.cookie)
      .send({ agent: "announced", instructions: "x", provider: "openai", model: "gpt-test", tools: [] });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const id = started.body.agent_run_id as string;
    const stream = openEventStream(`${served.base()}/api/agent/runs/${id}/events`, { headers: { Cookie: h.cookie } });
    await eventually(() => stream.status() === 200, "stream answer");

    // The record ends with no announcement: a stream that polled the status would end now.
    await testPrisma().agentRun.update({ where: { id }, data: { status: "failed", finishedAt: new Date() } });
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(stream.events.map((e) => e.event)).not.toContain("end");

    await testPrisma().$queryRaw(Prisma.sql`SELECT ${runEndedNotice(id)}`);
    await stream.closed;
    expect(stream.events.at(-1)).toEqual({ event: "end", data: { status: "failed" } });
    release();
  });

  it("ends at once for an ended run, and is 404 for an unknown run or another workspace's", async () => {
    provider.script("openai", openAiAnswer({ text: "Done." }));
    const started = await request(h.app)
      .post("/api/agent/run")
      .set("Cookie", h.cookie)
      .send({ agent: "ended", instructions: "x", provider: "openai", model: "gpt-test", tools: [], wait: 20_000 });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const id = started.body.agent_run_id as string;
    const ended = openEventStream(`${served.base()}/api/agent/runs/${id}/events`, { headers: { Cookie: h.cookie } });
    await ended.closed;
    expect(ended.events).toEqual([{ event: "end", data: { status: "success" } }]);

    const unknown = await request(h.app)
      .get("/api/agent/runs/agr_000000000000000000000000/events")
      .set("Cookie", h.cookie);
    expect(unknown.status).toBe(404);
    const stranger = await createTestUser("stream-stranger");
    const cookie = (await login(h.app, stranger.email)).cookie;
    const foreign = await request(h.app).get(`/api/agent/runs/${id}/events`).set("Cookie", cookie);
    expect(foreign.status).toBe(404);
    const anonymous = await request(h.app).get(`/api/agent/runs/${id}/events`);
    expect(anonymous.status).toBe(401);
  });
});

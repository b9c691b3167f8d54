// An agent's text streamed as the model writes it (GET /api/agent/runs/{id}/events) on a real
// worker and dev server, with the loopback provider streaming in both protocols: the first
// pieces arrive while the model call is still open (no step recorded yet), the pieces add up to
// the answer, and what is recorded is the whole answer once, as without streaming.
import http from "node:http";
import type { AddressInfo } from "node:net";
import request from "supertest";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { testPrisma } from "../../../test/helpers/context.js";
import {
  anthropicAnswer,
  openAiAnswer,
  startFakeProvider,
  type Protocol,
} from "../../../test/helpers/fake-llm-provider.js";
import { createTestUser, login } from "../../../test/helpers/identity.js";
import { useRunHarness } from "../../../test/helpers/runs.js";

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

let server: http.Server;
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

interface StreamEvent {
  event: string;
  data: Record<string, unknown>;
}

/** Opens the event stream and collects its events until it closes (at most 60 s). */
function openEvents(path: string, cookie: string) {
  const events: StreamEvent[] = [];
  let status = 0;
  const closed = new Promise<void>((resolve, reject) => {
    const req = http.get(`${base}${path}`, { headers: { Cookie: cookie } }, (res) => {
      status = res.statusCode ?? 0;
      let buffer = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) events.push({ event, data: JSON.parse(data) as Record<string, unknown> });
        }
      });
      res.on("end", () => resolve());
      res.on("error", reject);
    });
    req.on("error", reject);
    req.setTimeout(60_000, () => req.destroy(new Error("event stream still open after 60 s")));
  });
  return { events, closed, status: () => status };
}

async function until(check: () => boolean, what: string) {
  for (let tries = 0; tries < 150; tries++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no ${what} within 15 s`);
}

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
      const stream = openEvents(`/api/agent/runs/${id}/events`, h.cookie);

      await until(() => stream.events.some((e) => e.event === "text"), "text event");
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

  it("ends at once for an ended run, and is 404 for an unknown run or another workspace's", async () => {
    provider.script("openai", openAiAnswer({ text: "Done." }));
    const started = await request(h.app)
      .post("/api/agent/run")
      .set("Cookie", h.cookie)
      .send({ agent: "ended", instructions: "x", provider: "openai", model: "gpt-test", tools: [], wait: 20_000 });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const id = started.body.agent_run_id as string;
    const ended = openEvents(`/api/agent/runs/${id}/events`, h.cookie);
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

// A sync hook with `stream` on a real worker and dev server, the loopback provider streaming: a
// caller that accepts text/event-stream gets `run`, its ai.agent node's text while the model still
// writes, then `end` with the sync answer's fields; a caller that does not gets the JSON answer.
import request from "supertest";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { testPrisma } from "../../../test/helpers/context.js";
import { createApp } from "../../app.js";
import { eventually, openEventStream, useLoopbackServer } from "../../../test/helpers/event-stream.js";
import { openAiAnswer, startFakeProvider } from "../../../test/helpers/fake-llm-provider.js";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";

const provider = await startFakeProvider();
afterAll(() => provider.close());
// One open stream per hook: the limit's test fills it with one; the other tests open one at a time.
const h = useRunHarness({
  config: { OPENAI_API_KEY: "sk-test-openai-key", OPENAI_BASE_URL: `${provider.url}/v1`, HOOK_MAX_OPEN_STREAMS: "1" },
});
beforeEach(() => provider.reset());

const served = useLoopbackServer(() => h.app);

/** A flow: a sync hook with `stream`, then an agent answering from the request's question. */
async function streamingHook(config: object = {}) {
  const definition = flow(
    [
      {
        id: "agent",
        type: "ai.agent",
        config: { provider: "openai", model: "gpt-test", instructions: "{{ input.body.question }}", tools: [] },
      },
    ],
    [["start", "agent"]],
  );
  definition.nodes[0] = {
    id: "start",
    type: "http_trigger",
    config: { mode: "sync", stream: true, ...config },
  } as (typeof definition.nodes)[0];
  const flowId = await h.createFlow(definition);
  const detail = await request(h.app).get(`/api/flows/${flowId}`).set("Cookie", h.cookie);
  return detail.body.hook.path as string;
}

/** POSTs to the hook accepting an event stream; its events as they come. */
const postForEvents = (path: string, body: object) =>
  openEventStream(`${served.base()}${path}`, { method: "POST", headers: { Accept: "text/event-stream" }, body });

describe("a sync hook with stream", () => {
  it("answers an event stream with its agent's text as the model writes it, then the run's end", async () => {
    const path = await streamingHook();
    const text = "Your parcel left Paris this morning and reaches Lyon by nine tomorrow.";
    let release = () => {};
    const midway = new Promise<void>((resolve) => (release = resolve));
    provider.script("openai", { ...openAiAnswer({ text }), midway });
    const stream = postForEvents(path, { question: "Where is my parcel?" });

    await eventually(() => stream.events.some((e) => e.event === "text"), "text event");
    expect(stream.status()).toBe(200);
    expect(stream.contentType()).toMatch(/^text\/event-stream/);
    const run = stream.events[0]!;
    expect(run.event).toBe("run");
    const runId = run.data.run_id as string;
    expect(run.data).toMatchObject({ status_url: `/api/runs/${runId}`, deduplicated: false });
    // The model still writes: the run has not ended, its agent has recorded no step.
    expect((await testPrisma().run.findUniqueOrThrow({ where: { id: runId } })).status).toBe("running");
    const agentRunId = stream.events.find((e) => e.event === "text")!.data.agent_run_id as string;
    expect(await testPrisma().agentStep.count({ where: { agentRunId } })).toBe(0);

    release();
    await stream.closed;
    const pieces = stream.events.filter((e) => e.event === "text");
    expect(pieces.map((e) => e.data.text).join("")).toBe(text);
    const end = stream.events.at(-1)!;
    expect(end).toMatchObject({ event: "end", data: { run_id: runId, status: "success", error: null } });
    expect(end.data.output).toMatchObject({ agent_run_id: agentRunId, answer: text });
    expect(stream.events.map((e) => e.event)).toEqual(["run", ...pieces.map(() => "text"), "end"]);
  });

  it("answers the JSON sync answer to a caller that does not accept an event stream", async () => {
    const path = await streamingHook();
    provider.script("openai", openAiAnswer({ text: "In Lyon." }));
    const res = await request(h.app).post(path).send({ question: "Where?" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({ status: "success", output: { answer: "In Lyon." } });
  });

  it("refuses a bad request with its JSON error before any stream, and ends with `timeout` when the run outlives it", async () => {
    const path = await streamingHook({ methods: ["POST"], stream_timeout_ms: 1000 });
    const wrong = await request(h.app).put(path).set("Accept", "text/event-stream").send({});
    expect(wrong.status).toBe(405);
    expect(wrong.headers["content-type"]).toMatch(/^application\/json/);

    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    provider.script("openai", { ...openAiAnswer({ text: "Later." }), after: held });
    const stream = postForEvents(path, { question: "Slow?" });
    await stream.closed;
    release();
    expect(stream.events.map((e) => e.event)).toEqual(["run", "timeout"]);
    expect(stream.events[1]!.data).toMatchObject({ run_id: stream.events[0]!.data.run_id });
  });

  it("holds at most HOOK_MAX_OPEN_STREAMS streams of a hook open, and frees a place when its stream closes", async () => {
    const path = await streamingHook();
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    provider.script(
      "openai",
      { ...openAiAnswer({ text: "First." }), after: held },
      { ...openAiAnswer({ text: "Second." }), after: held },
      openAiAnswer({ text: "Third." }),
    );
    const first = postForEvents(path, { question: "First?" });
    await eventually(() => first.events.length > 0, "run event");
    const runId = first.events[0]!.data.run_id as string;
    const { flowId } = await testPrisma().run.findUniqueOrThrow({ where: { id: runId } });

    const refused = await request(h.app).post(path).set("Accept", "text/event-stream").send({ question: "More?" });
    expect(refused.status).toBe(429);
    expect(refused.headers["retry-after"]).toBe("10");
    expect(refused.body).toEqual({
      error: expect.stringContaining("at most 1 streamed answers"),
      code: "too_many_streams",
    });
    expect(await testPrisma().run.count({ where: { flowId } })).toBe(1);

    // The first caller hangs up: its run goes on, its place is free.
    first.abort();
    let second: ReturnType<typeof postForEvents> | undefined;
    await expect
      .poll(
        async () => {
          const attempt = postForEvents(path, { question: "Second?" });
          await eventually(() => attempt.status() !== 0, "an answer");
          if (attempt.status() === 200) second = attempt;
          else await attempt.closed;
          return attempt.status();
        },
        { timeout: 15_000, interval: 200 },
      )
      .toBe(200);
    release();
    await second!.closed;
    expect(second!.events.at(-1)).toMatchObject({ event: "end", data: { status: "success" } });

    // A stream that ended frees its place too.
    const third = postForEvents(path, { question: "Third?" });
    await third.closed;
    expect(third.status()).toBe(200);
    expect(third.events.at(-1)).toMatchObject({ event: "end", data: { status: "success" } });
  });

  it("refuses a streamed answer with 503 and starts no run while the server stops", async () => {
    const path = await streamingHook();
    const stopping = new AbortController();
    stopping.abort();
    const refused = await request(createApp({ ...h.deps, stopping: stopping.signal }))
      .post(path)
      .set("Accept", "text/event-stream")
      .send({ question: "Now?" });
    expect([refused.status, refused.body.code]).toEqual([503, "shutting_down"]);
    const token = path.split("/").at(-1)!;
    const hook = await testPrisma().flow.findFirstOrThrow({ where: { hookToken: token } });
    expect(await testPrisma().run.count({ where: { flowId: hook.id } })).toBe(0);
  });
});

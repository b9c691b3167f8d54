// Cost of model calls through the API on a real worker and dev server, against the loopback
// provider: each call's cost is the price table applied to the tokens the provider reported.
import request from "supertest";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { anthropicAnswer, openAiAnswer, startFakeProvider } from "../../../test/helpers/fake-llm-provider.js";
import { createTestUser, joinWorkspace } from "../../../test/helpers/identity.js";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";
import { testPrisma } from "../../../test/helpers/context.js";
import { DEFAULT_PRICES } from "../../../core/usage/prices.js";

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

const get = (path: string, cookie = h.cookie) => request(h.app).get(path).set("Cookie", cookie);
const price = (provider: string, model: string) =>
  DEFAULT_PRICES.find((p) => p.provider === provider && p.model === model)!;
/** What the price table says a call costs: tokens × USD per million tokens. */
const costAt = (p: { input_per_mtok: number; output_per_mtok: number }, input: number, output: number) =>
  (input * p.input_per_mtok + output * p.output_per_mtok) / 1_000_000;

describe("usage and cost", () => {
  it("prices each model call of a run, its nodes and the workspace's day by the price table, defaults and the workspace's own", async () => {
    const today = new Date().toISOString().slice(0, 10);
    // The workspace's own price of a model without a default, and over a default.
    const own = await request(h.app)
      .put("/api/usage/prices")
      .set("Cookie", h.cookie)
      .send({ provider: "openai", model: "gpt-test", input_per_mtok: 3, output_per_mtok: 12 });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(own.body).toMatchObject({ source: "workspace", default: null, input_per_mtok: 3 });

    const flowId = await h.createFlow(
      flow(
        [
          { id: "mini", type: "ai.prompt", config: { model: "gpt-4o-mini", prompt: "Say hi" } },
          { id: "own", type: "ai.prompt", config: { model: "gpt-test", prompt: "Say {{ input.mini.text }}" } },
          {
            id: "agent",
            type: "ai.agent",
            config: { provider: "anthropic", model: "claude-sonnet-4-20250514", instructions: "Answer", tools: [] },
          },
        ],
        [
          ["start", "mini"],
          ["mini", "own"],
          ["own", "agent"],
        ],
      ),
      "Priced",
    );
    provider.script(
      "openai",
      openAiAnswer({ text: "hi", model: "gpt-4o-mini-2024-07-18" }, { prompt_tokens: 1200, completion_tokens: 340 }),
      openAiAnswer({ text: "hi again" }, { prompt_tokens: 50_000, completion_tokens: 7 }),
    );
    provider.script("anthropic", anthropicAnswer({ text: "done" }, { input_tokens: 2000, output_tokens: 100 }));
    const run = await h.runToEnd(flowId);
    expect(run.status, JSON.stringify(run)).toBe("success");

    const expected = {
      mini: costAt(price("openai", "gpt-4o-mini"), 1200, 340),
      own: costAt({ input_per_mtok: 3, output_per_mtok: 12 }, 50_000, 7),
      // A dated snapshot costs what its model does.
      agent: costAt(price("anthropic", "claude-sonnet-4"), 2000, 100),
    };
    const usage = await get(`/api/usage/runs/${run.id}`);
    expect(usage.status, JSON.stringify(usage.body)).toBe(200);
    const nodes = Object.fromEntries(
      (usage.body.nodes as Array<{ node_id: string; cost: number; calls: number }>).map((n) => [n.node_id, n]),
    );
    for (const [node, cost] of Object.entries(expected)) {
      expect(nodes[node]!.calls).toBe(1);
      expect(nodes[node]!.cost).toBeCloseTo(cost, 12);
    }
    const total = expected.mini + expected.own + expected.agent;
    expect(usage.body.total).toMatchObject({ calls: 3, input_tokens: 53_200, output_tokens: 447, unpriced_calls: 0 });
    expect(usage.body.total.cost).toBeCloseTo(total, 12);
    expect(usage.body.calls.map((c: { model: string }) => c.model)).toEqual([
      "gpt-4o-mini",
      "gpt-test",
      "claude-sonnet-4-20250514",
    ]);

    // The agent run shows its cost and its model step's.
    const agentRunId = (usage.body.calls as Array<{ agent_run_id: string | null }>)[2]!.agent_run_id!;
    const agent = await get(`/api/agent/runs/${agentRunId}`);
    expect(agent.body.agent_run.cost).toBeCloseTo(expected.agent, 12);
    expect(agent.body.steps[0]).toMatchObject({ kind: "model" });
    expect(agent.body.steps[0].cost).toBeCloseTo(expected.agent, 12);

    // The workspace's day, the flow and the models; a viewer reads them too.
    const viewer = await createTestUser("usage-viewer");
    const { cookie: viewerCookie } = await joinWorkspace(h.app, h.cookie, viewer, "viewer");
    const day = await get(`/api/usage?from=${today}&to=${today}`, viewerCookie);
    expect(day.status, JSON.stringify(day.body)).toBe(200);
    expect(day.body.days).toHaveLength(1);
    expect(day.body.days[0].cost).toBeCloseTo(total, 12);
    expect(day.body.total.cost).toBeCloseTo(total, 12);
    expect(day.body.flows).toEqual([expect.objectContaining({ flow_id: flowId, flow_name: "Priced", calls: 3 })]);
    const models = Object.fromEntries(
      (day.body.models as Array<{ model: string; cost: number }>).map((m) => [m.model, m.cost]),
    );
    expect(models["gpt-test"]).toBeCloseTo(expected.own, 12);
    const ofFlow = await get(`/api/usage?flow_id=${flowId}`);
    expect(ofFlow.body.days).toHaveLength(30);
    expect(ofFlow.body.total.cost).toBeCloseTo(total, 12);

    // Only admins set prices; a removed price leaves recorded costs as they were.
    const refused = await request(h.app)
      .put("/api/usage/prices")
      .set("Cookie", viewerCookie)
      .send({ provider: "openai", model: "gpt-test", input_per_mtok: 0, output_per_mtok: 0 });
    expect(refused.status).toBe(403);
    const removed = await request(h.app)
      .delete("/api/usage/prices?provider=openai&model=gpt-test")
      .set("Cookie", h.cookie);
    expect(removed.status).toBe(204);
    const again = await get(`/api/usage/runs/${run.id}`);
    expect(again.body.total.cost).toBeCloseTo(total, 12);
    const prices = await get("/api/usage/prices");
    expect(prices.body.items.find((p: { model: string }) => p.model === "gpt-test")).toBeUndefined();
    expect(prices.body.items).toContainEqual(
      expect.objectContaining({ provider: "openai", model: "gpt-4o-mini", source: "default" }),
    );
  });

  it("counts a model without a price as unpriced, and refuses bad ranges", async () => {
    const flowId = await h.createFlow(
      flow([{ id: "p", type: "ai.prompt", config: { model: "mystery-model", prompt: "x" } }], [["start", "p"]]),
    );
    provider.script("openai", openAiAnswer({ text: "?" }, { prompt_tokens: 10, completion_tokens: 5 }));
    const run = await h.runToEnd(flowId);
    const usage = await get(`/api/usage/runs/${run.id}`);
    expect(usage.body.total).toMatchObject({ calls: 1, cost: 0, unpriced_calls: 1, input_tokens: 10 });
    expect(usage.body.calls[0].cost).toBeNull();
    const row = await testPrisma().modelUsage.findFirstOrThrow({ where: { runId: run.id } });
    expect(row.cost).toBeNull();

    expect((await get("/api/usage?from=2026-02-10&to=2026-02-01")).status).toBe(400);
    expect((await get("/api/usage?from=2024-01-01&to=2026-01-01")).status).toBe(400);
    expect((await get("/api/usage?from=yesterday")).status).toBe(400);
    expect((await get("/api/usage/runs/run_000000000000000000000000")).status).toBe(404);
  });
});

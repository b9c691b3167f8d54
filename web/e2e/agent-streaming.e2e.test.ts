// An agent's text as it is written, in a real browser (Debian's Chromium through playwright-core)
// against the real service and a loopback model provider that streams: the agent run's page shows
// the first words while the model call is still open, then the recorded answer.
import request from "supertest";
import { describe, expect, it } from "vitest";
import { testPrisma } from "../../test/helpers/context.js";
import { openAiAnswer } from "../../test/helpers/fake-llm-provider.js";
import { AGENT_E2E_TIMEOUT, useAgentDashboard } from "./agent-dashboard.js";

/** What the page shows after its next polls. */
const SHOWN = { timeout: 15_000 };

describe("streamed agent text in the dashboard (Chromium)", { timeout: AGENT_E2E_TIMEOUT }, () => {
  const d = useAgentDashboard("agent-streaming");

  it("shows the model's first words on the agent run's page before its step is recorded", async (context) => {
    d.screenshotOnFailure(context);
    const { page, server, base, user, cookie, provider } = d;
    const text = "The parcel leaves Paris tonight and reaches the Lyon depot by nine tomorrow morning.";
    let release = () => {};
    const midway = new Promise<void>((resolve) => (release = resolve));
    provider.script("openai", { ...openAiAnswer({ text }), midway });
    await page.goto(base);
    await page.getByLabel("E-mail").fill(user.email);
    await page.getByLabel("Password").fill(user.password);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Home" }).waitFor();
    const started = await request(server).post("/api/agent/run").set("Cookie", cookie).send({
      agent: "writer",
      instructions: "Where is the parcel?",
      provider: "openai",
      model: "gpt-test",
      tools: [],
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const id = started.body.agent_run_id as string;
    await page.goto(`${base}/agents/runs/${id}`);

    const live = page.locator("[data-live-text]");
    await expect.poll(() => live.textContent().catch(() => ""), SHOWN).toMatch(/^The parcel/);
    const early = (await live.textContent())!;
    expect(early.length).toBeLessThan(text.length);
    expect(await testPrisma().agentStep.count({ where: { agentRunId: id } })).toBe(0);

    release();
    await expect.poll(() => page.locator(`[data-agent-run="${id}"] h3 .badge`).textContent(), SHOWN).toBe("success");
    expect(await page.locator(".agent-answer").first().textContent()).toBe(text);
    expect(await live.count()).toBe(0);
  });
});

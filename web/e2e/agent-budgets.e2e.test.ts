// Budgets in a real browser (Debian's Chromium through playwright-core) against the real service
// and a loopback model provider: an admin sets a budget on the Usage page, an agent that reaches it
// waits in the inbox, Approve on its page lets its call run, and the page shows the day's cost.
// A failing test saves a screenshot.
import request from "supertest";
import { describe, expect, it } from "vitest";
import { testPrisma } from "../../test/helpers/context.js";
import { openAiAnswer } from "../../test/helpers/fake-llm-provider.js";
import { AGENT_E2E_TIMEOUT, useAgentDashboard } from "./agent-dashboard.js";

/** What the page shows after its next polls. */
const SHOWN = { timeout: 15_000 };

describe("budgets in the dashboard (Chromium)", { timeout: AGENT_E2E_TIMEOUT }, () => {
  const d = useAgentDashboard("agent-budgets");

  it("sets a budget on the Usage page; the agent that reaches it waits in the inbox until Approve; the day's cost shows", async (context) => {
    d.screenshotOnFailure(context);
    const { page, server, base, user, cookie, provider } = d;
    await page.goto(base);
    await page.getByLabel("E-mail").fill(user.email);
    await page.getByLabel("Password").fill(user.password);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Home" }).waitFor();
    await page.locator(".topbar nav").getByRole("link", { name: "Usage" }).click();
    await page.getByRole("heading", { name: "Budgets" }).waitFor();
    // The model's price, so that the day's cost shows: $1,000 and $2,000 per million tokens.
    await page.getByLabel("Model").fill("gpt-test");
    await page.getByLabel("Input price").fill("1000");
    await page.getByLabel("Output price").fill("2000");
    await page.getByRole("button", { name: "Set price" }).click();
    await expect.poll(() => page.locator("table.prices").textContent(), SHOWN).toContain("gpt-test");
    expect(await page.locator("tr[data-budget]").count()).toBe(0);
    await page.getByLabel("Budget metric").selectOption("tokens");
    await page.getByLabel("Budget period").selectOption("day");
    await page.getByLabel("Budget limit").fill("10");
    await page.getByRole("button", { name: "Set budget" }).click();
    const budgetRow = page.locator("tr[data-budget]");
    await expect.poll(() => budgetRow.textContent(), SHOWN).toContain("10 tokens per day");
    expect(await budgetRow.textContent()).not.toContain("reached");

    // 18 tokens a call: the first runs, the second finds the budget reached and waits.
    provider.script(
      "openai",
      openAiAnswer({
        toolCalls: [{ name: "memory_write", arguments: JSON.stringify({ key: "parcel", value: "to Lyon" }) }],
      }),
      openAiAnswer({ text: "Parcel noted." }),
    );
    const started = await request(server)
      .post("/api/agent/run")
      .set("Cookie", cookie)
      .send({
        agent: "spender",
        instructions: "Note the parcel",
        provider: "openai",
        model: "gpt-test",
        tools: ["memory.write"],
      });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const id = started.body.agent_run_id as string;
    await expect
      .poll(() => testPrisma().wait.count({ where: { agentRunId: id, reason: "budget", status: "pending" } }), SHOWN)
      .toBe(1);

    await page.locator(".topbar nav").getByRole("link", { name: /Waits/ }).click();
    await page.getByRole("heading", { name: "Waiting for you" }).waitFor();
    const row = page.locator("tr[data-wait]");
    await expect.poll(() => row.textContent(), SHOWN).toContain("budget reached");
    expect(await row.textContent()).toContain("daily token budget (10 tokens) is reached: 18 tokens spent");
    await row.getByRole("link", { name: "Open" }).click();
    await page.waitForURL(`**/agents/runs/${id}`);

    const card = page.locator(".card[data-wait]");
    expect(await card.textContent()).toContain("budget reached");
    await card.getByRole("button", { name: "Approve" }).click();
    await expect.poll(() => card.textContent(), SHOWN).toMatch(/approved by agent-budgets-browser name/);
    await expect.poll(() => page.locator(`[data-agent-run="${id}"] h3 .badge`).textContent(), SHOWN).toBe("success");
    expect(provider.calls).toHaveLength(2);

    await page.locator(".topbar nav").getByRole("link", { name: "Usage" }).click();
    await expect.poll(() => page.locator("tr[data-budget]").textContent(), SHOWN).toContain("36 tokens");
    expect(await page.locator("tr[data-budget]").textContent()).toContain("reached");
    // Two calls of 11 input and 7 output tokens: 2 × (11 × $0.001 + 7 × $0.002) = $0.05 today.
    await expect.poll(() => page.locator('[data-figure="today"] strong').textContent(), SHOWN).toBe("$0.05");
  });
});

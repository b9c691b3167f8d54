// A flow's budget in the editor, in Chromium against the real service: the owner sets the flow's
// daily token budget in its Budget box, which shows what the day has spent of it (a model call of
// the flow recorded in the usage table) and, once reached, says so; Remove takes it away. The
// workspace's budgets (Usage page) are not listed there.
import { describe, expect, it } from "vitest";
import { testPrisma } from "../../test/helpers/context.js";
import { useDashboardPage } from "./dashboard-service.js";

const TIMEOUT = 180_000;
const SHOWN = { timeout: 15_000, interval: 250 };

describe("a flow's budget in the editor", { timeout: TIMEOUT }, () => {
  const session = useDashboardPage();

  it("sets the flow's budget, shows its spending and that it is reached, and removes it", async () => {
    const { service, context, page } = session;
    const flow = await service.api<{ id: string; workspace_id: string }>(context, "POST", "/api/flows", {
      name: "Summaries",
      definition: {
        nodes: [
          { id: "start", type: "manual", config: {} },
          { id: "sum", type: "ai.prompt", config: { provider: "openai", model: "gpt-test", prompt: "Sum up" } },
        ],
        edges: [{ from: "start", to: "sum" }],
      },
    });
    // A workspace budget: the Usage page's, not this box's.
    await service.api(context, "PUT", "/api/usage/budgets", { metric: "cost", period: "month", limit: 50 });

    await page.goto(`${service.base}/flows/${flow.id}`);
    const box = page.locator(".flow-budget");
    await box.getByRole("heading", { name: "Budget" }).waitFor();
    await expect.poll(() => box.textContent(), SHOWN).toContain("No budget of this flow.");
    await box.getByLabel("Budget metric").selectOption("tokens");
    await box.getByLabel("Budget period").selectOption("day");
    await box.getByLabel("Budget limit").fill("100");
    await box.getByRole("button", { name: "Set budget" }).click();
    const row = box.locator("li[data-flow-budget]");
    await expect.poll(() => row.textContent(), SHOWN).toContain("0 tokens of 100 tokens per day");
    expect(await row.textContent()).not.toContain("reached");
    const budgets = await service.api<{ items: Array<{ flow_id: string | null; limit: number }> }>(
      context,
      "GET",
      "/api/usage/budgets",
    );
    expect(budgets.items.map((budget) => [budget.flow_id, budget.limit])).toEqual([
      [null, 50],
      [flow.id, 100],
    ]);

    // A call of the flow's node, as the worker records it: 120 tokens today, over the limit.
    const workspaceId = (await testPrisma().flow.findUniqueOrThrow({ where: { id: flow.id } })).workspaceId;
    await testPrisma().modelUsage.create({
      data: {
        id: `use_flow_budget_${flow.id}`,
        workspaceId,
        flowId: flow.id,
        nodeId: "sum",
        provider: "openai",
        model: "gpt-test",
        inputTokens: 100,
        outputTokens: 20,
        createdAt: new Date(),
      },
    });
    await page.reload();
    await expect.poll(() => row.textContent(), SHOWN).toContain("120 tokens of 100 tokens per day");
    expect(await row.textContent()).toContain("reached");

    await row.getByRole("button", { name: "Remove" }).click();
    await expect.poll(() => box.textContent(), SHOWN).toContain("No budget of this flow.");
    const left = await service.api<{ items: Array<{ flow_id: string | null }> }>(context, "GET", "/api/usage/budgets");
    expect(left.items.map((budget) => budget.flow_id)).toEqual([null]);
  });
});

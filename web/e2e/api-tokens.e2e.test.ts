// API tokens in a real browser (Debian's Chromium through playwright-core) against the real
// service: an owner creates a token on the settings page and copies it from the one place it is
// shown; a program (plain fetch, no cookie) reads with it; the list shows its scopes and last use;
// revoking it asks first, and the program's next request answers 401. A failing test saves a
// screenshot.
import { describe, expect, it } from "vitest";
import { seriousAxeViolations } from "./axe.js";
import { useDashboardPage } from "./dashboard-service.js";

const TIMEOUT = 180_000;

describe("API tokens in the dashboard (Chromium)", { timeout: TIMEOUT }, () => {
  const session = useDashboardPage();

  it("creates a token shown once, lists its use without it, and revokes it", async (context) => {
    const { service, page } = session;
    context.onTestFailed(async () => {
      await service.screenshot(page, context.task.name);
    });
    await page.goto(`${service.base}/settings`);
    const card = page.locator("section.api-tokens");
    await card.getByRole("heading", { name: "API tokens" }).waitFor();
    await card.getByLabel("Token name").fill("Nightly CI");
    // read and run are chosen at first; add write.
    await card.getByRole("checkbox", { name: /^write/ }).check();
    await card.getByLabel("Expires after").selectOption("30");
    await card.getByRole("button", { name: "Create token" }).click();
    const shown = card.getByLabel("New API token");
    await shown.waitFor();
    const token = await shown.inputValue();
    expect(token).toMatch(/^svc_pat_[0-9A-Za-z]{46}$/);
    expect(await seriousAxeViolations(page)).toEqual([]);

    // A program uses it: no cookie, no CSRF header.
    const flows = await fetch(`${service.base}/api/flows`, { headers: { Authorization: `Bearer ${token}` } });
    expect(flows.status).toBe(200);

    // The list, once loaded again, names it with its scopes and last use, and never shows it.
    await page.reload();
    const row = card.locator('tr[data-token="Nightly CI"]');
    await row.getByText(/^used /).waitFor();
    expect(await row.textContent()).toContain("read, run, write");
    expect(await row.textContent()).toContain("active");
    expect(await page.content()).not.toContain(token.slice(12));

    await row.getByRole("button", { name: "Revoke" }).click();
    const dialog = page.getByRole("dialog", { name: "Revoke this token?" });
    await dialog.getByRole("button", { name: "Revoke" }).click();
    await row.getByText("revoked").waitFor();
    const refused = await fetch(`${service.base}/api/flows`, { headers: { Authorization: `Bearer ${token}` } });
    expect(refused.status).toBe(401);
  });
});

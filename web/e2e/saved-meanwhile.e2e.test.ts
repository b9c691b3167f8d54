// A draft saved elsewhere while the editor is open, in Chromium against the real service: the
// canvas is changed, a program (an API token, "Deploy bot") saves another draft meanwhile, and the
// editor's Save is refused. The editor says which version was saved and by whom, and both ways on
// work: "Load version N" (asked first; declining keeps the canvas) puts that version on the canvas,
// and "Save mine as a new draft on top" saves the canvas after it, both kept among the versions.
import { beforeAll, describe, expect, it } from "vitest";
import { seriousAxeViolations } from "./axe.js";
import { useDashboardPage } from "./dashboard-service.js";

const TIMEOUT = 180_000;

interface FlowRead {
  id: string;
  version: number;
  draft_version: number | null;
}

const saying = (said: string) => ({
  nodes: [
    { id: "start", type: "manual", config: {} },
    { id: "say", type: "set", config: { fields: { said } } },
  ],
  edges: [{ from: "start", to: "say" }],
});

describe("a draft saved elsewhere while the editor is open", { timeout: TIMEOUT }, () => {
  const session = useDashboardPage();
  let flow: FlowRead;
  let botToken: string;
  const canvasNode = (id: string) => session.page.locator(`.react-flow__node[data-id="${id}"]`);
  const fieldsText = () => session.page.locator('.code-field[data-field="fields"] .cm-content').innerText();
  const bar = () => session.page.locator(".editor-bar .muted").first().textContent();
  const message = () => session.page.locator(".saved-meanwhile");

  beforeAll(async () => {
    const { service, context } = session;
    flow = await service.api<FlowRead>(context, "POST", "/api/flows", {
      name: "Shared flow",
      definition: saying("v1"),
    });
    botToken = (
      await service.api<{ token: string }>(context, "POST", "/api/workspace/tokens", {
        name: "Deploy bot",
        scopes: ["read", "write"],
      })
    ).token;
  }, TIMEOUT);

  /** Replaces what the set node says, on the canvas, and goes back to the flow's panel. */
  async function say(text: string) {
    const { page } = session;
    await canvasNode("say").click();
    await page.locator('.code-field[data-field="fields"] .cm-content').click();
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.press("Delete");
    await page.keyboard.insertText(`{ "said": "${text}" }`);
    await page.keyboard.press("Escape");
    await page.locator(".react-flow__pane").click({ position: { x: 20, y: 20 } });
    await page.getByRole("heading", { name: "Run", exact: true }).waitFor();
  }

  /** Saves a draft as the bot, through the API, against `version`. */
  async function saveElsewhere(version: number, said: string) {
    const answer = await fetch(`${session.service.base}/api/flows/${flow.id}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${botToken}`, "content-type": "application/json" },
      body: JSON.stringify({ version, publish: false, definition: saying(said) }),
    });
    expect(answer.status).toBe(200);
  }

  const readFlow = () => session.service.api<FlowRead>(session.context, "GET", `/api/flows/${flow.id}`);
  const saidIn = async (version: number) =>
    (
      await session.service.api<{ definition: { nodes: Array<{ id: string; config: { fields?: unknown } }> } }>(
        session.context,
        "GET",
        `/api/flows/${flow.id}/versions/${version}`,
      )
    ).definition.nodes.find((node) => node.id === "say")?.config.fields;

  /** Answers the next confirmation with `accept`; the questions asked. */
  function answerConfirm(accept: boolean) {
    const questions: string[] = [];
    session.page.once("dialog", (dialog) => {
      questions.push(dialog.message());
      void (accept ? dialog.accept() : dialog.dismiss());
    });
    return questions;
  }

  it("says who saved which version, and loads it in place of the canvas once asked", async () => {
    const { service, page } = session;
    await page.goto(`${service.base}/flows/${flow.id}`);
    await say("mine");
    await saveElsewhere(1, "theirs");
    await page.getByRole("button", { name: "Save", exact: true }).click();

    await message().waitFor();
    expect(await message().locator("p").textContent()).toBe(
      'Version 2 was saved meanwhile by someone else (token "Deploy bot"): your changes are not saved. Load version 2 (your changes are discarded), or save yours as a new draft on top of it (both stay among the versions).',
    );
    // Nothing of the canvas was saved; the editor knows the new draft.
    expect(await readFlow()).toMatchObject({ version: 1, draft_version: 2 });
    await expect.poll(bar).toBe("Published v1 · Draft v2");
    expect(await page.locator(".badge.unsaved").count()).toBe(1);
    expect(await seriousAxeViolations(page)).toEqual([]);

    // Declined, the canvas stays as it is.
    const declined = answerConfirm(false);
    await page.getByRole("button", { name: "Load version 2" }).click();
    expect(declined).toEqual(["Discard your changes on the canvas and load version 2?"]);
    await canvasNode("say").click();
    expect(await fieldsText()).toContain("mine");
    await page.keyboard.press("Escape");
    await page.locator(".react-flow__pane").click({ position: { x: 20, y: 20 } });

    // Accepted, version 2 is on the canvas, saved.
    answerConfirm(true);
    await page.getByRole("button", { name: "Load version 2" }).click();
    await page
      .getByText("Loaded version 2, the draft: your changes are discarded. Not live yet: production runs version 1.")
      .waitFor();
    expect(await message().count()).toBe(0);
    expect(await page.locator(".badge.unsaved").count()).toBe(0);
    await canvasNode("say").click();
    await expect.poll(fieldsText).toContain("theirs");
    await page.keyboard.press("Escape");
    await page.locator(".react-flow__pane").click({ position: { x: 20, y: 20 } });
    expect(await readFlow()).toMatchObject({ version: 1, draft_version: 2 });
  });

  it("saves the canvas as a new draft on top of the one saved meanwhile, keeping both", async () => {
    const { page } = session;
    await say("mine again");
    await saveElsewhere(2, "theirs again");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await message().waitFor();
    expect(await message().locator("p").textContent()).toMatch(/^Version 3 was saved meanwhile by someone else/);

    await page.getByRole("button", { name: "Save mine as a new draft on top" }).click();
    await page.getByText("Saved: version 4. Not live yet: production runs version 1.").waitFor();
    expect(await message().count()).toBe(0);
    expect(await bar()).toBe("Published v1 · Draft v4");
    expect(await readFlow()).toMatchObject({ version: 1, draft_version: 4 });
    // Both drafts are versions: theirs (3) and mine on top of it (4).
    expect(await saidIn(3)).toEqual({ said: "theirs again" });
    expect(await saidIn(4)).toEqual({ said: "mine again" });
    const picker = page.getByLabel("Compare with version");
    await expect
      .poll(() => picker.locator("option").allTextContents())
      .toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^v4 \(draft\) · browser name/),
          expect.stringMatching(/^v3 · token "Deploy bot"/),
        ]),
      );
  });
});

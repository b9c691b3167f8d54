// Accessibility checks in the browser tests: axe-core run inside the page shown,
// and its violations (of every impact, or only serious and critical ones) in words a failing test can print.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

/** The page's axe violations (WCAG 2.1 A and AA) of the impacts given (all when none), one line each. */
export async function axeViolations(page: Page, impacts?: readonly string[]): Promise<string[]> {
  // Evaluated through the browser's protocol, which the dashboard's CSP (no inline scripts) allows.
  if (!(await page.evaluate("typeof window.axe !== 'undefined'"))) await page.evaluate(axeSource);
  const violations = await page.evaluate<AxeViolation[]>(`
    axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } })
      .then((result) => result.violations.map(({ id, impact, help, nodes }) =>
        ({ id, impact, help, nodes: nodes.map(({ target }) => ({ target })) })))`);
  return violations
    .filter((violation) => !impacts || impacts.includes(violation.impact ?? ""))
    .map(
      (violation) =>
        `${violation.impact} ${violation.id} (${violation.help}): ${violation.nodes
          .slice(0, 5)
          .map((node) => node.target.join(" "))
          .join(", ")}${violation.nodes.length > 5 ? ` and ${violation.nodes.length - 5} more` : ""}`,
    );
}

/** The page's serious and critical axe violations (WCAG 2.1 A and AA), one line each. */
export const seriousAxeViolations = (page: Page): Promise<string[]> => axeViolations(page, ["serious", "critical"]);

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { projectRoot } from "./infra/paths.js";
import { brokenLinks, documentationPages, headingAnchor, pageAnchors } from "./docs-links.js";

describe("the README and docs/", () => {
  it("link only to files that exist and to headings those pages have", () => {
    const pages = documentationPages(projectRoot);
    expect(pages.map((page) => path.relative(projectRoot, page))).toEqual(
      expect.arrayContaining(["README.md", "docs/operations.md", "docs/security.md", "docs/api.md"]),
    );
    expect(brokenLinks(projectRoot, pages)).toEqual([]);
  });

  it("keep the README to a screenful or so: at most 250 lines, the rest in docs/", () => {
    const lines = readFileSync(path.join(projectRoot, "README.md"), "utf8").trimEnd().split("\n");
    expect(lines.length).toBeLessThanOrEqual(250);
  });
});

describe("brokenLinks", () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "docs-links-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("names a link to a missing file and one to a missing heading, and nothing else", () => {
    mkdirSync(path.join(root, "docs"));
    writeFileSync(
      path.join(root, "README.md"),
      [
        "# Title",
        "See [security](docs/security.md#data-at-rest), [its top](docs/security.md), [here](#title),",
        "[gone](docs/gone.md), [no such part](docs/security.md#rotating), [the web](https://example.com),",
        "`[in code](nowhere.md)` and [self, wrong](#nope).",
        "```",
        "[in a block](missing.md)",
        "```",
      ].join("\n"),
    );
    writeFileSync(
      path.join(root, "docs", "security.md"),
      "# Security\n\n## Data at rest\n\n[back](../README.md#title)\n",
    );
    expect(brokenLinks(root, documentationPages(root))).toEqual([
      "README.md: docs/gone.md: no such file",
      "README.md: docs/security.md#rotating: no heading #rotating in security.md",
      "README.md: #nope: no heading #nope in README.md",
    ]);
  });
});

describe("headingAnchor", () => {
  it("is the anchor GitHub gives the heading", () => {
    expect(headingAnchor("Errors in a node")).toBe("errors-in-a-node");
    expect(headingAnchor("`kv`: key-value store")).toBe("kv-key-value-store");
    expect(headingAnchor("9. Waits: a decision from outside the run")).toBe("9-waits-a-decision-from-outside-the-run");
    expect(headingAnchor("The run engine: how a run moves through the rooms")).toBe(
      "the-run-engine-how-a-run-moves-through-the-rooms",
    );
    expect(headingAnchor("npm start, health and the svc CLI")).toBe("npm-start-health-and-the-svc-cli");
  });

  it("numbers a repeated heading", () => {
    expect([...pageAnchors("# A\n## Limits\n### Limits\n```\n# not a heading\n```\n")]).toEqual([
      "a",
      "limits",
      "limits-1",
    ]);
  });
});

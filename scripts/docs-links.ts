// The links between the README and the docs/ pages, checked: a relative link must name a file
// that exists and, with a #fragment into a Markdown page, one of its headings. scripts/docs-links.test.ts
// runs it on README.md and docs/**/*.md.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/** The Markdown pages of the documentation: README.md and every page under docs/. */
export function documentationPages(root: string): string[] {
  const pages = [path.join(root, "README.md")];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(".md")) pages.push(full);
    }
  };
  walk(path.join(root, "docs"));
  return pages;
}

/** The page without its fenced code blocks (indented ones in lists included). */
const withoutFences = (markdown: string) => markdown.replace(/^ *(```|~~~)[^\n]*\n[\s\S]*?^ *\1[^\n]*$/gm, "");

/** The text a reader sees, without code: fenced blocks and inline code hold no links. */
const withoutCode = (markdown: string) => withoutFences(markdown).replace(/`[^`\n]*`/g, "");

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as dashes. */
export function headingAnchor(heading: string): string {
  const text = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[`*]/g, "")
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "").replace(/ /g, "-");
}

/** Every anchor a page offers: its headings' (a repeated one gets -1, -2, …) and explicit ids. */
export function pageAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const text = withoutFences(markdown);
  for (const match of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const anchor = headingAnchor(match[1]!);
    const count = seen.get(anchor) ?? 0;
    seen.set(anchor, count + 1);
    anchors.add(count === 0 ? anchor : `${anchor}-${count}`);
  }
  for (const match of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1]!);
  return anchors;
}

/** The targets of a page's inline links, `[text](target "title")` and `![alt](target)`. */
export function linkTargets(markdown: string): string[] {
  return [...withoutCode(markdown).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]!);
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** What is wrong with one link of `page`, or undefined when it leads somewhere. */
function linkProblem(page: string, target: string, anchorsOf: (file: string) => Set<string>): string | undefined {
  if (isExternal(target)) return undefined;
  const [file = "", fragment] = target.split("#", 2) as [string, string | undefined];
  const destination = file ? path.resolve(path.dirname(page), decodeURIComponent(file)) : page;
  if (!existsSync(destination)) return `${target}: no such file`;
  if (fragment === undefined || !destination.endsWith(".md") || statSync(destination).isDirectory()) return undefined;
  return anchorsOf(destination).has(decodeURIComponent(fragment).toLowerCase())
    ? undefined
    : `${target}: no heading #${fragment} in ${path.basename(destination)}`;
}

/** Each link of `pages` that leads nowhere, as `page: target: why`, paths relative to `root`. */
export function brokenLinks(root: string, pages: string[]): string[] {
  const anchors = new Map<string, Set<string>>();
  const anchorsOf = (file: string) => {
    if (!anchors.has(file)) anchors.set(file, pageAnchors(readFileSync(file, "utf8")));
    return anchors.get(file)!;
  };
  return pages.flatMap((page) =>
    linkTargets(readFileSync(page, "utf8")).flatMap((target) => {
      const problem = linkProblem(page, target, anchorsOf);
      return problem ? [`${path.relative(root, page)}: ${problem}`] : [];
    }),
  );
}

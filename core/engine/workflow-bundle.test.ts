import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { projectRoot } from "../../scripts/infra/paths.js";

const bundle = () => readFileSync(inject("workflowBundlePath"), "utf8");

/** Our modules in the bundle (webpack's module ids are paths from the project root). */
const ourModules = (code: string) =>
  [...code.matchAll(/^\/\*\*\*\/ "\.\/((?:core|worker|lib)\/[^"]+\.ts)"/gm)].map((match) => match[1]!);

describe("the workflow bundle", () => {
  it("preloads the SDK's workflow API and our workflows once per workflow context, not per run", () => {
    const code = bundle();
    const preload = /exports\.preloadModules = function preloadModules\(\) \{([^}]*)\}/.exec(code)?.[1] ?? "";
    expect(preload).toContain('"./node_modules/@temporalio/workflow/lib/index.js"');
    expect(preload).toContain('"./worker/workflows/index.ts"');
  });

  it("holds no module that keeps mutable state at module level, which runs sharing the preloaded modules would share", () => {
    const modules = ourModules(bundle());
    expect(modules).toContain("worker/workflows/run-flow.workflow.ts");
    const stateful = modules.flatMap((file) =>
      readFileSync(path.join(projectRoot, file), "utf8")
        .split("\n")
        .map((line, index) => ({ line, where: `${file}:${index + 1}` }))
        .filter(({ line }) =>
          /^(export )?(let|var) |^(export )?const \w+\s*(:[^=]+)?= new (Map|Set|WeakMap|Array)(<[^>]*>)?\(\)|^(export )?const \w+\s*(:[^=]+)?= (\[\]|\{\})/.test(
            line,
          ),
        )
        .map(({ where, line }) => `${where} ${line.trim()}`),
    );
    expect(stateful).toEqual([]);
  });
});

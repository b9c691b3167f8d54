import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ensureDashboard, staleReason, type DashboardPaths } from "./web-build.js";

/** A dashboard checkout without Vite (a production install): sources, and optionally a build. */
function productionInstall(build: "none" | "current" | "older than the sources"): DashboardPaths {
  const root = mkdtempSync(path.join(tmpdir(), "svc-web-build-"));
  const webDir = path.join(root, "web");
  mkdirSync(path.join(webDir, "src"), { recursive: true });
  writeFileSync(path.join(webDir, "src", "main.tsx"), "export {};");
  const paths = {
    webDir,
    dist: path.join(webDir, "dist"),
    vite: path.join(root, "no-vite", "vite.js"),
    extraSources: [],
  };
  if (build !== "none") {
    mkdirSync(paths.dist);
    writeFileSync(path.join(paths.dist, "index.html"), "<!doctype html><title>prebuilt</title>");
    const sourceTime = new Date(Date.now() - 60_000);
    const buildTime = build === "current" ? new Date() : new Date(Date.now() - 120_000);
    utimesSync(path.join(webDir, "src", "main.tsx"), sourceTime, sourceTime);
    utimesSync(path.join(paths.dist, "index.html"), buildTime, buildTime);
  }
  return paths;
}

describe("the dashboard's build without Vite (npm ci --omit=dev, the Docker image)", () => {
  const made: DashboardPaths[] = [];
  const install = (build: Parameters<typeof productionInstall>[0]) => {
    const paths = productionInstall(build);
    made.push(paths);
    return paths;
  };
  afterAll(() => {
    for (const paths of made) rmSync(path.dirname(paths.webDir), { recursive: true, force: true });
  });

  it("uses a current prebuilt web/dist as it is", async () => {
    const paths = install("current");
    const said: string[] = [];
    expect(await ensureDashboard((line) => said.push(line), paths)).toBe("current");
    expect(said).toEqual([]);
  });

  it("serves a prebuilt web/dist older than the sources rather than trying to build", async () => {
    const paths = install("older than the sources");
    expect(staleReason(paths)).toBe("sources changed since the last build");
    const said: string[] = [];
    expect(await ensureDashboard((line) => said.push(line), paths)).toBe("prebuilt");
    expect(said).toEqual([
      "serving the dashboard's existing build (sources changed since the last build, and Vite, a devDependency, is not installed)",
    ]);
    expect(readFileSync(path.join(paths.dist, "index.html"), "utf8")).toContain("prebuilt");
  });

  it("without any build, says Vite is missing (npm start reports it and goes on)", async () => {
    const paths = install("none");
    await expect(ensureDashboard(() => undefined, paths)).rejects.toThrow(/Vite is not installed/);
  });
});

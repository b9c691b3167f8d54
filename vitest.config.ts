import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Prisma's and Temporal's native modules crash worker threads: keep separate processes.
    pool: "forks",
    // Test files share their process's modules (the Temporal SDK, Prisma, the app) instead of
    // importing them again each: that import was a sixth of the suite's time. Each file still
    // has its own task queues, workspaces and servers (test/helpers/), so none sees another's.
    isolate: false,
    globalSetup: ["test/global-setup.ts"],
    include: ["**/*.test.ts"],
    exclude: ["node_modules/**", ".data/**", ".tools/**", ".scratch/**", "dist/**"],
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});

import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Prisma's and Temporal's native modules crash worker threads: keep separate processes.
    pool: "forks",
    globalSetup: ["test/global-setup.ts"],
    include: ["**/*.test.ts"],
    exclude: ["node_modules/**", ".data/**", ".tools/**", ".scratch/**", "dist/**"],
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});

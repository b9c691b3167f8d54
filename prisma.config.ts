import { PrismaPg } from "@prisma/adapter-pg";
import { defineConfig } from "prisma/config";

// The JS schema engine (through the pg driver adapter) replaces Prisma's downloaded native
// engine, so `migrate deploy` works on machines that reach only package registries.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  experimental: { adapter: true },
  engine: "js",
  // allowExitOnIdle: idle pooled connections must not keep the finished CLI process alive.
  adapter: async () => new PrismaPg({ connectionString: process.env.DATABASE_URL, allowExitOnIdle: true }),
});

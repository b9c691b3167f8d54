import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { latestSchemaSnapshot, schemaPath } from "../scripts/infra/migrations.js";

describe("migrations", () => {
  it("cover prisma/schema.prisma: the latest migration's snapshot is the current schema (run npm run db:diff)", () => {
    const snapshot = latestSchemaSnapshot();
    expect(snapshot).toBeDefined();
    expect(readFileSync(snapshot!, "utf8")).toBe(readFileSync(schemaPath, "utf8"));
  });
});

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { renderWebTypes, WEB_TYPES_FILE } from "./web-types.js";

describe("web/src/api-types.ts", () => {
  it("is what `npm run web:types` generates from the API's OpenAPI document now", async () => {
    const generated = await renderWebTypes();
    expect(generated).toContain("export interface components");
    // A changed endpoint changes the document: run `npm run web:types` and commit the file.
    expect(readFileSync(WEB_TYPES_FILE, "utf8") === generated, "web/src/api-types.ts is stale: npm run web:types").toBe(
      true,
    );
  });

  it("comes out the same on every run", async () => {
    expect(await renderWebTypes()).toBe(await renderWebTypes());
  });
});

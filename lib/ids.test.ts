import { describe, expect, it } from "vitest";
import { derivedId, newId } from "./ids.js";

describe("ids", () => {
  it("makes new ids of a prefix and 96 random bits", () => {
    const [a, b] = [newId("run"), newId("run")];
    expect(a).toMatch(/^run_[0-9a-f]{24}$/);
    expect(a).not.toBe(b);
  });

  it("derives the ids recorded before it existed, byte for byte (runs in flight find theirs again)", () => {
    // Values made by the recipes each caller spelled out before derivedId.
    expect(derivedId("agr", ["run_a", "n1", 3])).toBe("agr_c010e442613be7df460d4f32");
    expect(derivedId("run", ["run_a", "n1", 7])).toBe("run_3b5d848e885b7734efab7185");
    expect(derivedId("whd", ["evt_1", "whe_2"])).toBe("whd_13cb34eba3a8ee30767c4c71");
    expect(derivedId("blob", ["run_a", "blob_x"], 32)).toBe("blob_d08b536bacb759a80e35f6e024da0fa8");
    expect(derivedId("alog", ["agr_1:2"])).toBe("alog_69853dd8cf445fc49299d16c");
    expect(derivedId("run", ["schedule", "fire-1"])).toBe("run_ed6b4a21e0feee7c1adc945f");
  });

  it("keeps parts apart: moving text between parts changes the id", () => {
    expect(derivedId("run", ["ab", "c"])).not.toBe(derivedId("run", ["a", "bc"]));
  });
});

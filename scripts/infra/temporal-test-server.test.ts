import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { locateTemporalTestServer } from "./temporal-test-server.js";

describe("locateTemporalTestServer", () => {
  it("uses TEMPORAL_TEST_SERVER when it names an executable, and names the setting when it does not", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "test-server-"));
    const launcher = path.join(dir, "server");
    writeFileSync(launcher, "#!/bin/sh\n");
    await expect(locateTemporalTestServer({ TEMPORAL_TEST_SERVER: launcher })).rejects.toThrow(
      /TEMPORAL_TEST_SERVER=.* is not an executable file/,
    );
    chmodSync(launcher, 0o755);
    await expect(locateTemporalTestServer({ TEMPORAL_TEST_SERVER: launcher })).resolves.toBe(launcher);
  });
});

import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { locateTemporalCli, startTemporalDevServer } from "./temporal.js";

const scratch = mkdtempSync(path.join(os.tmpdir(), "svc-dev-server-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("startTemporalDevServer", () => {
  it("starts the server again when one of the ports it picked itself was taken, and only for that", async () => {
    const cli = await locateTemporalCli(process.env, () => {});
    // A CLI whose first start fails as the real one does when its HTTP port is taken meanwhile.
    const tried = path.join(scratch, "tried");
    const flaky = path.join(scratch, "flaky-temporal");
    writeFileSync(
      flaky,
      `#!/bin/sh
if [ ! -e ${JSON.stringify(tried)} ]; then
  touch ${JSON.stringify(tried)}
  echo 'failed listening for HTTP API on 127.0.0.1:40459: listen tcp 127.0.0.1:40459: bind: address already in use' >&2
  exit 1
fi
exec ${JSON.stringify(cli)} "$@"
`,
    );
    chmodSync(flaky, 0o755);
    const lines: string[] = [];
    const server = await startTemporalDevServer({ cli: flaky, uiPort: false, log: (line) => lines.push(line) });
    try {
      expect(existsSync(tried)).toBe(true);
      expect(lines.join("\n")).toMatch(/found a port taken \(1 of 3\)/);
      expect(server.process.exitCode).toBeNull();
    } finally {
      await server.stop();
    }

    // Any other failure is not retried.
    const broken = path.join(scratch, "broken-temporal");
    writeFileSync(broken, "#!/bin/sh\necho 'no such namespace' >&2\nexit 1\n");
    chmodSync(broken, 0o755);
    const refused: string[] = [];
    await expect(
      startTemporalDevServer({ cli: broken, uiPort: false, log: (line) => refused.push(line) }),
    ).rejects.toThrow(/exited with code 1/);
    expect(refused).toEqual([]);
  });
});

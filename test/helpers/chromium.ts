// Debian's Chromium through playwright-core, for the browser tests (the dashboard, hook answers).
import { chromium, type Browser } from "playwright-core";
import { findOnPath, isExecutable } from "../../scripts/infra/process.js";

/** CHROMIUM_PATH, else Debian's /usr/bin/chromium, else chromium on PATH. */
export function locateChromium(): string {
  const candidates = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", findOnPath("chromium")];
  const found = candidates.find((candidate): candidate is string => !!candidate && isExecutable(candidate));
  if (!found) {
    throw new Error(
      "No Chromium for the browser tests: install Debian's chromium package (apt-get install chromium; .ci/run does) or set CHROMIUM_PATH",
    );
  }
  return found;
}

/** A headless Chromium; close it after the tests. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: locateChromium(),
    headless: true,
    // Root in a container has no user namespaces for Chromium's sandbox.
    args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
  });
}

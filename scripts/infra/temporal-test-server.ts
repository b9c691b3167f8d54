// Temporal's time-skipping test server for the tests of durable timers (delays, webhook retry
// schedules). The TypeScript SDK would download a native build of it from Temporal's own hosts at
// run time, which only the package registries are reachable from here; the same server is
// published on Maven Central as a Java library, so it is fetched with Maven into
// .tools/temporal-test-server/<version> and run through a launcher the SDK starts with
// `TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: "existing-path" } } })`.
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { toolsDir } from "./paths.js";
import { findOnPath, freePort, isExecutable, isPortInUse, run, spawn, stopChild, waitFor } from "./process.js";

export const TEMPORAL_TEST_SERVER_VERSION = "1.38.0";
const MAIN_CLASS = "io.temporal.testserver.TestServer";

type Log = (line: string) => void;

const pom = (version: string) => `<?xml version="1.0" encoding="UTF-8"?>
<!-- Written by scripts/infra/temporal-test-server.ts: the one library whose jars it copies. -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.svc</groupId>
  <artifactId>temporal-test-server-jars</artifactId>
  <version>1</version>
  <dependencies>
    <dependency>
      <groupId>io.temporal</groupId>
      <artifactId>temporal-test-server</artifactId>
      <version>${version}</version>
    </dependency>
    <!-- Silences SLF4J's "no binding" warning on every start. -->
    <dependency>
      <groupId>org.slf4j</groupId>
      <artifactId>slf4j-nop</artifactId>
      <version>1.7.36</version>
    </dependency>
  </dependencies>
</project>
`;

/**
 * The JVM flags of the launcher. The SDK gives the server 5 s to answer after starting it, and a
 * plain JVM took 2.6–3.6 s to load the server's classes on a loaded 2-core machine: a class-data
 * archive made once at install (`classes.jsa`) brings that to ~0.6 s, and the quick JIT tier and
 * the serial collector suit a short-lived test process.
 */
const QUICK_START = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"];

/**
 * The test server's launcher: TEMPORAL_TEST_SERVER when set, else the one in .tools, installed
 * there with Maven (and the JVM it runs on) when missing.
 */
export async function locateTemporalTestServer(
  env: NodeJS.ProcessEnv = process.env,
  log: Log = () => {},
): Promise<string> {
  if (env.TEMPORAL_TEST_SERVER) {
    if (!isExecutable(env.TEMPORAL_TEST_SERVER)) {
      throw new Error(`TEMPORAL_TEST_SERVER=${env.TEMPORAL_TEST_SERVER} is not an executable file`);
    }
    return env.TEMPORAL_TEST_SERVER;
  }
  const dir = toolsDir("temporal-test-server", TEMPORAL_TEST_SERVER_VERSION);
  const launcher = path.join(dir, "temporal-test-server");
  if (isExecutable(launcher)) return launcher;

  const java = findOnPath("java", env.PATH);
  const mvn = findOnPath("mvn", env.PATH);
  if (!java || !mvn) {
    throw new Error(
      `Temporal's time-skipping test server needs ${!java ? "Java" : "Maven"} to install it: install Debian's ` +
        "maven package (it brings a Java runtime), or set TEMPORAL_TEST_SERVER to a test server executable",
    );
  }
  log(`Fetching Temporal's test server ${TEMPORAL_TEST_SERVER_VERSION} from Maven Central into ${dir}...`);
  // Built beside its final place and renamed into it, so a half-made copy is never used.
  const staging = `${dir}.staging-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    writeFileSync(path.join(staging, "pom.xml"), pom(TEMPORAL_TEST_SERVER_VERSION));
    await run(mvn, ["-q", "-B", "dependency:copy-dependencies", "-DoutputDirectory=lib"], {
      cwd: staging,
      env,
      timeoutMs: 15 * 60_000,
    });
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
  } finally {
    // A failed fetch leaves nothing behind in .tools (after the rename, there is nothing to remove).
    rmSync(staging, { recursive: true, force: true });
  }

  // The class-data archive names the jars by path, so it is made in the final directory.
  const archived = await createClassArchive(java, dir).then(
    () => existsSync(path.join(dir, "classes.jsa")),
    (error: Error) => {
      log(`The test server runs without a class-data archive: ${error.message}`);
      return false;
    },
  );
  const archive = archived
    ? ['-XX:SharedArchiveFile="$here/classes.jsa"', "-Xlog:cds=off", "-Xlog:cds+dynamic=off"]
    : [];
  writeFileSync(
    launcher,
    [
      "#!/bin/sh",
      "# Temporal's test server: <port> [--enable-time-skipping]. Made by scripts/infra/temporal-test-server.ts.",
      'here="$(cd "$(dirname "$0")" && pwd -P)"',
      `exec "${java}" ${[...archive, ...QUICK_START, '-cp "$here/lib/*"'].join(" ")} ${MAIN_CLASS} "$@"`,
      "",
    ].join("\n"),
    { mode: 0o755 },
  );
  return launcher;
}

/** Starts the server once with class archiving on, waits until it listens, then stops it. */
async function createClassArchive(java: string, dir: string): Promise<void> {
  const port = await freePort();
  const args = [`-XX:ArchiveClassesAtExit=${dir}/classes.jsa`, ...QUICK_START, "-cp", `${dir}/lib/*`];
  const child = spawn(java, [...args, MAIN_CLASS, String(port)], { stdio: "ignore" });
  try {
    await waitFor("the test server to listen", () => isPortInUse(port), {
      timeoutMs: 60_000,
      abort: () => (child.exitCode !== null ? `it exited with code ${child.exitCode}` : undefined),
    });
  } finally {
    // The archive is written as the JVM exits.
    await stopChild(child, 30_000);
  }
}

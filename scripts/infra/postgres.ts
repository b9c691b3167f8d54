// An embedded PostgreSQL cluster built from the machine's own PostgreSQL server binaries
// (initdb, pg_ctl): the same server users run in production, no download at run time.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chownSync,
  closeSync,
  existsSync,
  fchownSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import pg from "pg";
import { portRefusal } from "../../lib/port-refusal.js";
import { findOnPath, freePort, isExecutable, isPortInUse, run, waitFor } from "./process.js";

export interface EmbeddedPostgres {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Directory holding the cluster (`pgdata/`), its log and credentials; created when missing. */
  dir: string;
  /** Database to create when missing. */
  database: string;
  /** TCP port on 127.0.0.1; a free one when 0 or absent. */
  port?: number;
  env?: NodeJS.ProcessEnv;
  /** Server settings (`-c name=value`) for a server started by startEmbeddedPostgres (benchmarks). */
  settings?: Record<string, string>;
}

interface Credentials {
  user: string;
  password: string;
}

const SEARCH_HINT =
  "install the PostgreSQL server (Debian: apt-get install postgresql; macOS: brew install postgresql), " +
  "set PG_BIN to the directory holding initdb and pg_ctl, or set DATABASE_URL to use an existing server";

/** Finds the directory of initdb and pg_ctl: PG_BIN, then PATH, then the usual install locations. */
export function findPostgresBinDir(env: NodeJS.ProcessEnv = process.env): string {
  const candidates: string[] = [];
  if (env.PG_BIN) candidates.push(env.PG_BIN);
  const onPath = findOnPath("initdb", env.PATH);
  if (onPath) candidates.push(path.dirname(realpathSync(onPath)));
  for (const root of ["/usr/lib/postgresql", "/usr/local/opt", "/opt/homebrew/opt"]) {
    if (!existsSync(root)) continue;
    const versions = readdirSync(root)
      .filter((name) => /^(postgresql@)?\d+$/.test(name))
      .sort((a, b) => Number(b.replace(/\D/g, "")) - Number(a.replace(/\D/g, "")));
    for (const version of versions) candidates.push(path.join(root, version, "bin"));
  }
  const found = candidates.find(
    (dir) => isExecutable(path.join(dir, "initdb")) && isExecutable(path.join(dir, "pg_ctl")),
  );
  if (!found) {
    const detail = env.PG_BIN ? `PG_BIN=${env.PG_BIN} holds no initdb and pg_ctl` : "initdb and pg_ctl not found";
    throw new Error(`PostgreSQL server binaries: ${detail}; ${SEARCH_HINT}`);
  }
  return found;
}

/**
 * PostgreSQL refuses to run as root. When we are root, the cluster belongs to an unprivileged
 * OS user (EMBEDDED_POSTGRES_OS_USER, default `postgres`) and its tools run through runuser.
 */
async function osUser(env: NodeJS.ProcessEnv): Promise<{ name: string; uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const name = env.EMBEDDED_POSTGRES_OS_USER || "postgres";
  try {
    const uid = Number((await run("id", ["-u", name])).stdout.trim());
    const gid = Number((await run("id", ["-g", name])).stdout.trim());
    return { name, uid, gid };
  } catch {
    throw new Error(
      `Running as root: PostgreSQL needs an unprivileged OS user to own its cluster, and user "${name}" does not exist; ` +
        "create it or set EMBEDDED_POSTGRES_OS_USER",
    );
  }
}

/** A cluster's files and the tools that run it, as the OS user that owns it. */
interface Cluster {
  binDir: string;
  owner?: { name: string; uid: number; gid: number };
  pgdata: string;
  logFile: string;
  credentials: Credentials;
  tool(name: string, args: string[]): Promise<unknown>;
}

/** The cluster of `options.dir`, made (initdb, credentials) when missing. */
async function prepareCluster(options: EmbeddedPostgresOptions): Promise<Cluster> {
  const env = options.env ?? process.env;
  const binDir = findPostgresBinDir(env);
  const owner = await osUser(env);
  const dir = path.resolve(options.dir);
  const pgdata = path.join(dir, "pgdata");
  const logFile = path.join(dir, "postgres.log");
  const credentialsFile = path.join(dir, "credentials.json");

  const tool = (name: string, args: string[]) => {
    const command = path.join(binDir, name);
    return owner ? run("runuser", ["-u", owner.name, "--", command, ...args]) : run(command, args);
  };

  mkdirSync(path.dirname(dir), { recursive: true });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (owner) chownSync(dir, owner.uid, owner.gid);

  let credentials: Credentials;
  if (!existsSync(path.join(pgdata, "PG_VERSION"))) {
    credentials = { user: "svc", password: randomBytes(18).toString("base64url") };
    rmSync(pgdata, { recursive: true, force: true });
    const passwordFile = path.join(dir, ".initdb-password");
    writeFileSync(passwordFile, `${credentials.password}\n`, { mode: 0o600 });
    if (owner) chownSync(passwordFile, owner.uid, owner.gid);
    try {
      await tool("initdb", [
        "-D",
        pgdata,
        "-U",
        credentials.user,
        "--pwfile",
        passwordFile,
        "--auth",
        "scram-sha-256",
        "--encoding",
        "UTF8",
        "--locale",
        "C",
      ]);
    } finally {
      rmSync(passwordFile, { force: true });
    }
    writeFileSync(credentialsFile, JSON.stringify(credentials), { mode: 0o600 });
  } else {
    credentials = JSON.parse(readFileSync(credentialsFile, "utf8")) as Credentials;
  }
  return { binDir, owner, pgdata, logFile, credentials, tool };
}

/** The port a running server of the cluster listens on, or undefined when none runs. */
async function runningPort(cluster: Cluster): Promise<number | undefined> {
  const running = await cluster.tool("pg_ctl", ["status", "-D", cluster.pgdata]).then(
    () => true,
    () => false,
  );
  if (!running) return undefined;
  return Number(readFileSync(path.join(cluster.pgdata, "postmaster.pid"), "utf8").split("\n")[3]);
}

/** A port for a new server: the one asked for (refused by name when taken), else a free one. */
async function portToListenOn(port: number): Promise<number> {
  if (port && (await isPortInUse(port))) throw new Error(portRefusal("EMBEDDED_POSTGRES_PORT", "127.0.0.1", port));
  return port || freePort();
}

const serverOptions = (port: number, settings: Record<string, string> = {}) => [
  "-p",
  String(port),
  "-c",
  "listen_addresses=127.0.0.1",
  "-c",
  "unix_socket_directories=",
  ...Object.entries(settings).flatMap(([name, value]) => ["-c", `${name}=${value}`]),
];

/** Settings that reach pg_ctl's shell unquoted: plain names and values only. */
function checkSettings(settings: Record<string, string> = {}): Record<string, string> {
  for (const [name, value] of Object.entries(settings)) {
    if (!/^[a-z_.]+$/.test(name) || !/^[A-Za-z0-9_.,]+$/.test(value)) throw new Error(`Invalid setting: ${name}`);
  }
  return settings;
}

const logTail = (cluster: Cluster) =>
  existsSync(cluster.logFile) ? readFileSync(cluster.logFile, "utf8").split("\n").slice(-8).join("\n") : "";

const serverUrl = (cluster: Cluster, port: number) =>
  `postgresql://${cluster.credentials.user}:${encodeURIComponent(cluster.credentials.password)}@127.0.0.1:${port}`;

/**
 * A cluster run in the background by pg_ctl (tools and tests). One of this data directory left
 * running by a process that died is adopted on the port it listens on.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const settings = checkSettings(options.settings);
  const cluster = await prepareCluster(options);
  let port = await runningPort(cluster);
  if (port === undefined) {
    // Checked here, not before: a cluster of this data directory left running holds its own port.
    port = await portToListenOn(options.port || 0);
    try {
      await cluster.tool("pg_ctl", [
        "start",
        "-D",
        cluster.pgdata,
        "-l",
        cluster.logFile,
        "-w",
        "-t",
        "60",
        "-o",
        // pg_ctl hands -o to a shell: the empty value is quoted.
        serverOptions(port, settings)
          .map((arg) => (arg.endsWith("=") ? `${arg}''` : arg))
          .join(" "),
      ]);
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${logTail(cluster)}`);
    }
  }

  const base = serverUrl(cluster, port);
  await ensureDatabase(`${base}/postgres`, options.database);

  let stopped = false;
  return {
    url: `${base}/${options.database}`,
    port,
    async stop() {
      if (stopped) return;
      stopped = true;
      await cluster
        .tool("pg_ctl", ["stop", "-D", cluster.pgdata, "-m", "fast", "-w", "-t", "60"])
        .catch((error: Error) => {
          if (!/no server running|PID file .* does not exist/i.test(error.message)) throw error;
        });
    },
  };
}

/** npm start's cluster: a server it runs as its own child, to restart when it exits. */
export interface SupervisedPostgres {
  url: string;
  port: number;
  /** Starts the server in the foreground (its log appended to postgres.log). */
  spawn(): ChildProcess;
  /** Resolves once the server answers and the database exists; rejects when `abort` gives a reason. */
  ready(abort: () => string | undefined): Promise<void>;
  /** The end of the server's log, to explain an exit. */
  logTail(): string;
}

/**
 * Prepares npm start's cluster. The server runs as a child (`postgres`, not `pg_ctl start`, which
 * detaches it), so that its exit is seen and it starts again on the same data directory and port.
 * A server of the data directory already running belongs to no live npm start (the service file
 * said so): it is stopped, and its port kept when no port is asked for.
 */
export async function prepareEmbeddedPostgres(
  options: EmbeddedPostgresOptions & { say?: (line: string) => void },
): Promise<SupervisedPostgres> {
  const cluster = await prepareCluster(options);
  const leftPort = await runningPort(cluster);
  if (leftPort !== undefined) {
    options.say?.(`stopping the embedded PostgreSQL left running on port ${leftPort}`);
    await cluster.tool("pg_ctl", ["stop", "-D", cluster.pgdata, "-m", "fast", "-w", "-t", "60"]);
  }
  const port = await portToListenOn(options.port || leftPort || 0);
  const base = serverUrl(cluster, port);
  return {
    url: `${base}/${options.database}`,
    port,
    spawn() {
      const log = openSync(cluster.logFile, "a", 0o600);
      try {
        if (cluster.owner) fchownSync(log, cluster.owner.uid, cluster.owner.gid);
        return spawn(path.join(cluster.binDir, "postgres"), ["-D", cluster.pgdata, ...serverOptions(port)], {
          stdio: ["ignore", log, log],
          // Its own process group: a terminal's Ctrl-C reaches npm start, which stops it last.
          detached: true,
          ...(cluster.owner ? { uid: cluster.owner.uid, gid: cluster.owner.gid } : {}),
        });
      } finally {
        closeSync(log);
      }
    },
    async ready(abort) {
      await waitFor(
        "the embedded PostgreSQL",
        async () => {
          const client = new pg.Client({ connectionString: `${base}/postgres`, connectionTimeoutMillis: 2000 });
          try {
            await client.connect();
            return true;
          } finally {
            await client.end().catch(() => undefined);
          }
        },
        { timeoutMs: 60_000, intervalMs: 100, abort },
      );
      await ensureDatabase(`${base}/postgres`, options.database);
    },
    logTail: () => logTail(cluster),
  };
}

/** Creates `database` on the server of `adminUrl` unless it exists. */
export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`Invalid database name: ${database}`);
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${database}"`);
  } finally {
    await client.end();
  }
}

export async function dropDatabase(adminUrl: string, database: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`Invalid database name: ${database}`);
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

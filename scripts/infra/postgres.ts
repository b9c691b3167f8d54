// An embedded PostgreSQL cluster built from the machine's own PostgreSQL server binaries
// (initdb, pg_ctl): the same server users run in production, no download at run time.
import { randomBytes } from "node:crypto";
import {
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import pg from "pg";
import { portRefusal } from "../../lib/port-refusal.js";
import { findOnPath, freePort, isExecutable, isPortInUse, run } from "./process.js";

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

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
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

  // A cluster left running by a process that died is adopted on the port it listens on.
  let port = options.port || 0;
  const running = await tool("pg_ctl", ["status", "-D", pgdata]).then(
    () => true,
    () => false,
  );
  if (running) {
    port = Number(readFileSync(path.join(pgdata, "postmaster.pid"), "utf8").split("\n")[3]);
  } else {
    // Checked here, not before: a cluster of this data directory left running holds its own port.
    if (port && (await isPortInUse(port))) throw new Error(portRefusal("EMBEDDED_POSTGRES_PORT", "127.0.0.1", port));
    port ||= await freePort();
    const serverOptions = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`;
    try {
      await tool("pg_ctl", ["start", "-D", pgdata, "-l", logFile, "-w", "-t", "60", "-o", serverOptions]);
    } catch (error) {
      const tail = existsSync(logFile) ? readFileSync(logFile, "utf8").split("\n").slice(-8).join("\n") : "";
      throw new Error(`${(error as Error).message}\n${tail}`);
    }
  }

  const base = `postgresql://${credentials.user}:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}`;
  await ensureDatabase(`${base}/postgres`, options.database);

  let stopped = false;
  return {
    url: `${base}/${options.database}`,
    port,
    async stop() {
      if (stopped) return;
      stopped = true;
      await tool("pg_ctl", ["stop", "-D", pgdata, "-m", "fast", "-w", "-t", "60"]).catch((error: Error) => {
        if (!/no server running|PID file .* does not exist/i.test(error.message)) throw error;
      });
    },
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

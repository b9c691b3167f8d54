// What `npm start` brought up, recorded in the data directory: command-line tools (user:create,
// db:migrate, svc) reach the same embedded database without configuration, and the file is npm
// start's lock on the directory. It names npm start and every process it started, so that the
// next npm start, after one that was killed, stops what it left running instead of refusing.
import { existsSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import pg from "pg";
import { dataDir } from "./paths.js";
import { isStillRunning, recordThisProcess, stopRecordedProcess, type RecordedProcess } from "./process-identity.js";
import { applyMigrations } from "./prisma-cli.js";
import { startEmbeddedPostgres } from "./postgres.js";

export const EMBEDDED_DATABASE = "svc";

export interface ServiceFile {
  /** The npm start that holds the data directory. */
  supervisor: RecordedProcess;
  /** Every process it started, as last (re)started, in start order. */
  children: RecordedProcess[];
  /** Each known once its part is up. */
  databaseUrl?: string;
  temporalAddress?: string;
  temporalUiUrl?: string;
  apiUrl?: string;
}

type Addresses = Pick<ServiceFile, "databaseUrl" | "temporalAddress" | "temporalUiUrl" | "apiUrl">;

const serviceFilePath = () => dataDir("service.json");
/** The file this process holds, once claimed. */
let held: ServiceFile | undefined;

export function readServiceFile(): ServiceFile | undefined {
  if (!existsSync(serviceFilePath())) return undefined;
  try {
    return JSON.parse(readFileSync(serviceFilePath(), "utf8")) as ServiceFile;
  } catch {
    // Written whole (rename, link), so unreadable means damaged: nothing in it can be trusted.
    return undefined;
  }
}

/** A whole file under a name of its own, to be renamed or linked into place. */
function writeDraft(service: ServiceFile): string {
  mkdirSync(dataDir(), { recursive: true });
  const draft = `${serviceFilePath()}.${process.pid}.draft`;
  writeFileSync(draft, JSON.stringify(service, null, 2), { mode: 0o600 });
  return draft;
}

function rewrite(): void {
  if (held) renameSync(writeDraft(held), serviceFilePath());
}

/**
 * Makes this process the npm start of the data directory. The service file is created only where
 * none exists (the lock); one whose npm start still runs refuses with its pid; one whose npm start
 * died (killed, out of memory) is taken over once the processes it recorded that still run, and
 * only those (pid, start time and command line match), are stopped.
 */
export async function claimServiceFile(say: (line: string) => void): Promise<void> {
  const mine: ServiceFile = { supervisor: recordThisProcess("npm start"), children: [] };
  // Bounded: each round either takes the file or removes a stale one another start may race for.
  for (let round = 0; round < 3; round++) {
    const draft = writeDraft(mine);
    try {
      linkSync(draft, serviceFilePath());
      held = mine;
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    } finally {
      rmSync(draft, { force: true });
    }
    const previous = readServiceFile();
    if (previous?.supervisor && isStillRunning(previous.supervisor)) {
      const pid = previous.supervisor.pid;
      throw new Error(
        `npm start is already running on ${dataDir()} (pid ${pid}): stop it (Ctrl-C, or kill ${pid}) ` +
          "or set SVC_DATA_DIR to another directory",
      );
    }
    const left = (previous?.children ?? []).filter(isStillRunning);
    if (left.length > 0) {
      const names = left.map((child) => `${child.name} (pid ${child.pid})`).join(", ");
      say(`the npm start of pid ${previous?.supervisor?.pid} is gone; stopping what it left running: ${names}`);
      // Reverse start order: the API and the workers before the dev servers they use.
      for (const child of [...left].reverse()) await stopRecordedProcess(child);
    }
    // Only the file judged stale: another start may have claimed the directory meanwhile.
    if (JSON.stringify(readServiceFile()) === JSON.stringify(previous)) rmSync(serviceFilePath(), { force: true });
  }
  throw new Error(`Could not claim ${serviceFilePath()}: another npm start is claiming it at the same time`);
}

/** Records a process npm start (re)started, replacing the one of the same name. */
export function recordServiceChild(child: RecordedProcess | undefined): void {
  if (!held || !child) return;
  const at = held.children.findIndex((recorded) => recorded.name === child.name);
  if (at === -1) held.children.push(child);
  else held.children[at] = child;
  rewrite();
}

export function recordServiceAddresses(addresses: Addresses): void {
  if (!held) return;
  Object.assign(held, addresses);
  rewrite();
}

/** Removes the service file, if this process holds it. */
export function releaseServiceFile(): void {
  if (!held) return;
  held = undefined;
  rmSync(serviceFilePath(), { force: true });
}

async function answers(databaseUrl: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Runs `task` against the service's database: DATABASE_URL when set, else the embedded database of
 * a running `npm start`, else the embedded cluster started just for this task (and migrated).
 */
export async function withServiceDatabase<T>(task: (databaseUrl: string) => Promise<T>): Promise<T> {
  if (process.env.DATABASE_URL) return task(process.env.DATABASE_URL);
  const running = readServiceFile();
  if (running?.databaseUrl && (await answers(running.databaseUrl))) return task(running.databaseUrl);
  if (running?.supervisor && isStillRunning(running.supervisor)) {
    // Its cluster is starting or restarting: a second server on the same files must not race it.
    throw new Error(
      `npm start (pid ${running.supervisor.pid}) holds ${dataDir()} and its database does not answer yet: try again shortly`,
    );
  }
  const embedded = await startEmbeddedPostgres({ dir: dataDir("postgres"), database: EMBEDDED_DATABASE });
  try {
    await applyMigrations(embedded.url);
    return await task(embedded.url);
  } finally {
    await embedded.stop();
  }
}

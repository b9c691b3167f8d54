// Which process a pid names: its start time and command line, read from /proc (Linux). A pid
// recorded by an earlier npm start is signalled only while both still match, so that a pid the
// system has since given to another process is never killed.
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { sleep } from "./process.js";

export interface RecordedProcess {
  /** What npm start calls it: api, worker-1, temporal, postgres, npm start. */
  name: string;
  pid: number;
  /** Start time in clock ticks after boot (/proc/<pid>/stat); absent where there is no /proc. */
  startTime?: string;
  /** The command line it was started with (argv). */
  command: string[];
  /** The signal that stops it cleanly (PostgreSQL's fast shutdown is SIGINT). */
  stopSignal: NodeJS.Signals;
}

interface ProcStat {
  state: string;
  startTime: string;
}

function procStat(pid: number): ProcStat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) is in parentheses and may hold spaces: count from the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const [state, startTime] = [fields[0], fields[19]];
    return state && startTime ? { state, startTime } : undefined;
  } catch {
    return undefined;
  }
}

function commandLine(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").slice(0, -1);
  } catch {
    return undefined;
  }
}

/** The record of a process just started (or of this one): what later identifies it. */
export function recordProcess(
  name: string,
  pid: number,
  command: string[],
  stopSignal: NodeJS.Signals = "SIGTERM",
): RecordedProcess {
  return { name, pid, startTime: procStat(pid)?.startTime, command, stopSignal };
}

/** The record of this process, with its command line as the system shows it. */
export function recordThisProcess(name: string): RecordedProcess {
  const fallback = [process.execPath, ...process.execArgv, ...process.argv.slice(1)];
  return recordProcess(name, process.pid, commandLine(process.pid) ?? fallback);
}

/** The record of a child of ours, with the command line it was spawned with. */
export function recordChild(name: string, child: ChildProcess, stopSignal: NodeJS.Signals = "SIGTERM") {
  if (child.pid === undefined) return undefined;
  return recordProcess(name, child.pid, child.spawnargs, stopSignal);
}

/**
 * Whether the recorded process still runs: same pid, same start time, same command line, not a
 * zombie. Never true where it cannot be verified (no /proc, or an older record without a start time).
 */
export function isStillRunning(record: RecordedProcess): boolean {
  if (!record.startTime || !Number.isInteger(record.pid) || record.pid <= 0) return false;
  const stat = procStat(record.pid);
  if (!stat || stat.state === "Z" || stat.startTime !== record.startTime) return false;
  const command = commandLine(record.pid);
  return command !== undefined && command.join("\0") === record.command.join("\0");
}

/**
 * Stops a recorded process that still runs: its stop signal, then SIGKILL after `graceMs`.
 * Resolves to whether it was running (and is now gone).
 */
export async function stopRecordedProcess(record: RecordedProcess, graceMs = 20_000): Promise<boolean> {
  if (!isStillRunning(record)) return false;
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(record.pid, name);
    } catch {
      // Gone between the check and the signal.
    }
  };
  signal(record.stopSignal);
  const killAt = Date.now() + graceMs;
  let killed = false;
  // Bounded: the grace, then at most 10 s more after SIGKILL (which cannot be refused).
  while (isStillRunning(record) && Date.now() < killAt + 10_000) {
    if (!killed && Date.now() >= killAt) {
      signal("SIGKILL");
      killed = true;
    }
    await sleep(100);
  }
  return true;
}

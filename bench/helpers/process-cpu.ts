// CPU seconds of processes, from /proc (ticks of 1/100 s).
import { readdirSync, readFileSync } from "node:fs";

/** The fields of a /proc stat line after the command name (field 3 on). */
const statFields = (stat: string) => stat.slice(stat.lastIndexOf(") ") + 2).split(" ");

/** CPU ticks (user + system) of a /proc stat line; with `children`, those of its reaped children too. */
export function statTicks(stat: string, { children = false } = {}): number {
  const fields = statFields(stat);
  const own = Number(fields[11]) + Number(fields[12]);
  return children ? own + Number(fields[13]) + Number(fields[14]) : own;
}

/** CPU seconds a process has used (user + system), and what its reaped children used. */
export function cpuSeconds(pid: number, { children = false } = {}): number {
  return statTicks(readFileSync(`/proc/${pid}/stat`, "utf8"), { children }) / 100;
}

/** The live processes: pid and stat line. */
function processes(): { pid: number; stat: string }[] {
  const found: { pid: number; stat: string }[] = [];
  for (const name of readdirSync("/proc").filter((entry) => /^\d+$/.test(entry))) {
    try {
      found.push({ pid: Number(name), stat: readFileSync(`/proc/${name}/stat`, "utf8") });
    } catch {
      // the process ended
    }
  }
  return found;
}

/** CPU seconds of one PostgreSQL server: its postmaster with the children it reaped, and its live children. */
export function postmasterCpuSeconds(postmaster: number): number {
  let ticks = statTicks(readFileSync(`/proc/${postmaster}/stat`, "utf8"), { children: true });
  for (const { stat } of processes()) {
    if (Number(statFields(stat)[1]) === postmaster) ticks += statTicks(stat);
  }
  return ticks / 100;
}

/** CPU seconds of every PostgreSQL server on the machine: for a server the benchmark did not start. */
export function machinePostgresCpuSeconds(): number {
  const all = processes().filter(({ stat }) => stat.includes("(postgres)"));
  const isPostgres = new Set(all.map(({ pid }) => pid));
  // A postmaster's parent is not PostgreSQL: its ticks take in the children it reaped.
  return all.reduce(
    (total, { stat }) => total + statTicks(stat, { children: !isPostgres.has(Number(statFields(stat)[1])) }) / 100,
    0,
  );
}

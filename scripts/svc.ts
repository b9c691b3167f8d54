// npm run svc -- <command>: the operator's command line. It talks to the service's database and
// Temporal directly (DATABASE_URL and TEMPORAL_ADDRESS from the environment or .env, else those of
// a running `npm start`), like the server processes themselves; no session is involved.
//
//   users create --email E --password P --name N --workspace W
//   users reset-link --email E            (mailed to E when SMTP_HOST is set, else printed)
//   flows list [--workspace ws_…] [--json]
//   runs list [--flow wf_…] [--status S] [--limit N] [--json]
//   runs start <flow id> [--input JSON] [--follow]
//   runs follow <run id>
//   runs link <run id>
//   logs tail [--run run_…] [--level L] [--limit N] [--follow]
//   workspaces weight <workspace id> --weight W|default   (its share of the task queue, 1 by default)
//   webhooks verify --secret S --body-file F (--signature "sha256=…" | --id I --timestamp T --standard "v1,…")
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { z, ZodError } from "zod";
import { DomainError } from "../core/errors.js";
import { RUN_STATUSES, type RunStatus } from "../core/contracts/run-flow.js";
import { LOG_LEVELS, levelsFrom, type LogLevel } from "../core/contracts/log-levels.js";
import { createRunsService } from "../core/runs/runs.service.js";
import { createLinkDelivery } from "../core/workspaces/link-delivery.js";
import { createPasswordResetsService } from "../core/workspaces/password-resets.service.js";
import { emailSchema, newUserSchema } from "../core/users/users.schema.js";
import { createUserWithWorkspace } from "../core/users/users.service.js";
import { systemClock } from "../lib/clock.js";
import { ConfigError, loadDotEnv, parseConfig, type Config } from "../lib/config.js";
import { createJsonSeal, type JsonSeal } from "../lib/crypto/sealed-json.js";
import { createPrismaClient, type PrismaClient } from "../lib/db.js";
import { readServiceFile } from "./infra/local-service.js";
import { localEncryptionKey } from "./infra/encryption-key.js";
import { createRunEndListener } from "../lib/run-end-notices.js";
import { createLogger } from "../lib/logger.js";
import { createMailer } from "../lib/mail.js";
import { createTemporalClient } from "../lib/temporal/client.js";
import { connectTemporalClient } from "../lib/temporal/connection.js";
import { verifyStandardSignature, verifySvcSignature } from "../core/webhooks/verify-example.js";
import { loadNodeRegistry } from "../core/custom-nodes.js";
import { createDataConverter } from "../core/engine/data-converter.js";
import { setWorkspaceWeight, WORKSPACE_WEIGHT } from "../core/engine/workspace-weights.js";

const USAGE = `usage: npm run svc -- <command>
  users create --email E --password P --name N --workspace W
  users reset-link --email E
  flows list [--workspace ws_…] [--json]
  runs list [--flow wf_…] [--status running|success|failed|cancelled] [--limit N] [--json]
  runs start <flow id> [--input JSON] [--follow]
  runs follow <run id>
  runs link <run id>
  logs tail [--run run_…] [--level debug|info|warn|error] [--limit N] [--follow]
  workspaces weight <workspace id> --weight 0.001…1000|default
  webhooks verify --secret S --body-file F (--signature "sha256=…" | --id I --timestamp T --standard "v1,…")`;

class UsageError extends Error {}

function fail(message: string, code = 1): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

const OPTIONS = {
  email: { type: "string" },
  password: { type: "string" },
  name: { type: "string" },
  workspace: { type: "string" },
  flow: { type: "string" },
  status: { type: "string" },
  limit: { type: "string" },
  input: { type: "string" },
  run: { type: "string" },
  level: { type: "string" },
  secret: { type: "string" },
  "body-file": { type: "string" },
  signature: { type: "string" },
  id: { type: "string" },
  timestamp: { type: "string" },
  standard: { type: "string" },
  weight: { type: "string" },
  follow: { type: "boolean" },
  json: { type: "boolean" },
  help: { type: "boolean" },
} as const;

let parsed;
try {
  parsed = parseArgs({ options: OPTIONS, allowPositionals: true, strict: true });
} catch (error) {
  fail(`${(error as Error).message}\n${USAGE}`, 2);
}
const { values: flags, positionals } = parsed;
const [group, action, target] = positionals;
if (flags.help || !group) fail(USAGE, flags.help ? 0 : 2);

/** The service's configuration, completed with a running `npm start`'s addresses and key. */
function serviceConfig(): Config {
  loadDotEnv();
  const running = readServiceFile();
  const env = {
    ...process.env,
    DATABASE_URL: process.env.DATABASE_URL ?? running?.databaseUrl,
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS ?? running?.temporalAddress,
    TEMPORAL_UI_URL: process.env.TEMPORAL_UI_URL ?? running?.temporalUiUrl,
    LOG_LEVEL: process.env.LOG_LEVEL ?? "error",
    // The runs it starts carry their input sealed, as the API's do (core/engine/data-converter.ts).
    SVC_ENCRYPTION_KEY: localEncryptionKey(process.env, { create: false })?.value,
  };
  if (!env.DATABASE_URL) {
    throw new UsageError("No database: set DATABASE_URL (or .env), or start the service with npm start");
  }
  return parseConfig(env);
}

const limitOf = (fallback: number) => {
  if (flags.limit === undefined) return fallback;
  const limit = Number(flags.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError("--limit: 1 to 1000");
  return limit;
};

/** Rows as aligned columns. */
function table(rows: Array<Record<string, unknown>>, columns: string[]): string {
  if (rows.length === 0) return "(none)\n";
  const cell = (value: unknown) => (value === null || value === undefined ? "-" : String(value));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((row) => cell(row[c]).length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return `${[line(columns.map((c) => c.toUpperCase())), ...rows.map((row) => line(columns.map((c) => cell(row[c]))))].join("\n")}\n`;
}

const print = (text: string) => process.stdout.write(text);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const STEP_SYMBOL: Record<string, string> = { running: "…", success: "✓", failed: "✗", skipped: "-", cancelled: "✗" };

type StepRow = Awaited<ReturnType<PrismaClient["runStep"]["findMany"]>>[number];

/** A step's line: its symbol, node, attempt, status, time and error. */
function stepLine(seal: JsonSeal, step: StepRow): string {
  const timing = step.durationMs === null ? "" : ` ${step.durationMs} ms`;
  const stepError = seal.open(step.error) as { message?: string } | null;
  const error = stepError ? `: ${stepError.message ?? JSON.stringify(stepError)}` : "";
  return `  ${STEP_SYMBOL[step.status] ?? "?"} ${step.nodeId} (${step.type}) attempt ${step.attempt} ${step.status}${timing}${error}\n`;
}

/** A bar of the nodes done out of `total`. */
function progressLine(done: number, total: number): string {
  const width = 20;
  const filled = Math.round((Math.min(done, total) / total) * width);
  return `  [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${Math.min(done, total)}/${total} nodes\n`;
}

/** Prints each step as it changes and a progress line, until the run ends; the exit code says how. */
async function follow(prisma: PrismaClient, seal: JsonSeal, runId: string, timeoutMs = 3_600_000): Promise<number> {
  const run = await prisma.run.findUnique({ where: { id: runId } });
  if (!run) throw new UsageError(`No run ${runId}`);
  const version = await prisma.flowVersion.findUnique({
    where: { flowId_version: { flowId: run.flowId, version: run.version } },
  });
  const total = (version?.definition as { nodes?: unknown[] } | undefined)?.nodes?.length ?? 0;
  print(`run ${runId} of "${run.flowName}" (version ${run.version}), ${total} nodes\n`);
  const seen = new Map<string, string>();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // The run first, then its steps: a run read ended has all its rows (its end writes the last
    // ones in the same statement), so the steps read after it are complete.
    const current = await prisma.run.findUniqueOrThrow({ where: { id: runId } });
    const steps = await prisma.runStep.findMany({
      where: { runId },
      orderBy: [{ startedAt: "asc" }, { nodeId: "asc" }, { attempt: "asc" }],
    });
    const changed = steps.filter((step) => seen.get(`${step.nodeId}#${step.attempt}`) !== step.status);
    for (const step of changed) {
      seen.set(`${step.nodeId}#${step.attempt}`, step.status);
      print(stepLine(seal, step));
    }
    const done = new Set(steps.filter((s) => s.status !== "running").map((s) => s.nodeId)).size;
    if (changed.length > 0 && total > 0) print(progressLine(done, total));
    if (current.status !== "running") {
      const runError = seal.open(current.error) as { message?: string } | null;
      const error = runError ? ` — ${runError.message}` : "";
      print(`run ${current.status} in ${current.durationMs ?? 0} ms${error}\n`);
      if (current.status === "success") print(`output: ${JSON.stringify(seal.open(current.output))}\n`);
      return current.status === "success" ? 0 : 1;
    }
    if (Date.now() > deadline) throw new Error(`The run is still running after ${timeoutMs} ms`);
    await sleep(250);
  }
}

/** What the commands that use the service's data get. */
interface Cli {
  config: Config;
  prisma: PrismaClient;
  /** Run payloads and log entries are stored sealed: opened with the service's key to be shown. */
  seal: JsonSeal;
}

/** Rows as JSON (--json) or as a table of `columns`. */
const printRows = (rows: Array<Record<string, unknown>>, columns: string[]) =>
  print(flags.json ? `${JSON.stringify(rows, null, 2)}\n` : table(rows, columns));

/** webhooks verify: checks a delivery's signature offline (no database). */
function verifyWebhook(): number {
  if (!flags.secret || !flags["body-file"]) throw new UsageError("--secret and --body-file are required");
  const body = readFileSync(flags["body-file"], "utf8");
  const valid = flags.signature
    ? verifySvcSignature(flags.secret, body, flags.signature)
    : verifyStandardSignature(flags.secret, body, {
        id: flags.id,
        timestamp: flags.timestamp,
        signature: flags.standard,
      });
  if (!flags.signature && !flags.standard)
    throw new UsageError("give --signature, or --id, --timestamp and --standard");
  print(valid ? "valid\n" : "invalid\n");
  return valid ? 0 : 1;
}

async function createUser({ prisma, config }: Cli): Promise<number> {
  const user = newUserSchema.parse({
    email: flags.email,
    password: flags.password,
    name: flags.name,
    workspace: flags.workspace,
  });
  const created = await createUserWithWorkspace(prisma, user, { iterations: config.PASSWORD_HASH_ITERATIONS });
  print(`${JSON.stringify(created, null, 2)}\n`);
  return 0;
}

// The operator's way to a reset link for any account (admins may issue one only for members
// whose every workspace they manage). With a mail server (SMTP_HOST) it is mailed to the account's
// address, as the API's are, and not printed: the address's owner gets it, whoever asked. Without
// one it is printed, for the operator to pass on.
async function resetLink({ prisma, config }: Cli): Promise<number> {
  const { email } = z.object({ email: emailSchema }).parse({ email: flags.email });
  const user = await prisma.user.findUnique({ where: { email }, select: { id: true } });
  if (!user) throw new DomainError("not_found", "not_found", `No account has the e-mail ${email}`);
  const mailer = createMailer(config);
  try {
    const delivery = createLinkDelivery({ mailer, config, logger: createLogger(config, "svc") });
    const resets = createPasswordResetsService({ prisma, clock: systemClock, config, delivery });
    const issued = await resets.issue(user.id, null);
    print(`${JSON.stringify(issued, null, 2)}\n`);
    if (issued.delivery === "mail") print(`sent to ${issued.email}\n`);
    return 0;
  } finally {
    mailer?.close();
  }
}

async function listFlows({ prisma }: Cli): Promise<number> {
  const flows = await prisma.flow.findMany({
    where: flags.workspace ? { workspaceId: flags.workspace } : {},
    orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
    take: limitOf(100),
    select: { id: true, workspaceId: true, name: true, status: true, version: true, updatedAt: true },
  });
  const rows = flows.map((f) => ({
    id: f.id,
    workspace: f.workspaceId,
    name: f.name,
    status: f.status,
    version: f.version,
    updated: f.updatedAt.toISOString(),
  }));
  printRows(rows, ["id", "name", "status", "version", "workspace", "updated"]);
  return 0;
}

async function listRuns({ prisma }: Cli): Promise<number> {
  const statuses: readonly string[] = RUN_STATUSES;
  if (flags.status && !statuses.includes(flags.status)) {
    throw new UsageError(`--status: one of ${RUN_STATUSES.join(", ")}`);
  }
  const runs = await prisma.run.findMany({
    where: {
      ...(flags.flow ? { flowId: flags.flow } : {}),
      ...(flags.status ? { status: flags.status as RunStatus } : {}),
    },
    orderBy: [{ startedAt: "desc" }, { id: "desc" }],
    take: limitOf(20),
  });
  const rows = runs.map((r) => ({
    id: r.id,
    flow: r.flowName,
    status: r.status,
    trigger: r.trigger,
    started: r.startedAt.toISOString(),
    duration_ms: r.durationMs,
  }));
  printRows(rows, ["id", "flow", "status", "trigger", "started", "duration_ms"]);
  return 0;
}

async function followRun({ prisma, seal }: Cli): Promise<number> {
  if (!target) throw new UsageError(`runs ${action} <run id>`);
  return follow(prisma, seal, target);
}

/** The run's page in the Temporal UI. */
async function runLink({ prisma, config }: Cli): Promise<number> {
  if (!target) throw new UsageError(`runs ${action} <run id>`);
  if (!(await prisma.run.findUnique({ where: { id: target } }))) throw new UsageError(`No run ${target}`);
  if (!config.TEMPORAL_UI_URL) throw new UsageError("No Temporal UI address: set TEMPORAL_UI_URL");
  print(`${config.TEMPORAL_UI_URL}/namespaces/${encodeURIComponent(config.TEMPORAL_NAMESPACE)}/workflows/${target}\n`);
  return 0;
}

/** --input: a JSON object, `{}` when absent. */
function runInput(): Record<string, unknown> {
  if (flags.input === undefined) return {};
  let input: unknown;
  try {
    input = JSON.parse(flags.input);
  } catch {
    throw new UsageError("--input: not valid JSON");
  }
  if (typeof input !== "object" || input === null || Array.isArray(input))
    throw new UsageError("--input: a JSON object");
  return input as Record<string, unknown>;
}

/** runs start: the one run starter, as the API's run endpoint uses it (trigger "cli"). */
async function startRun({ prisma, seal, config }: Cli): Promise<number> {
  if (!target) throw new UsageError("runs start <flow id> [--input JSON] [--follow]");
  const input = runInput();
  const flow = await prisma.flow.findUnique({ where: { id: target }, select: { workspaceId: true } });
  if (!flow) throw new UsageError(`No flow ${target}`);
  const connection = await connectTemporalClient(config);
  try {
    const runs = createRunsService({
      prisma,
      clock: systemClock,
      temporal: createTemporalClient(config, connection, { dataConverter: createDataConverter(config) }),
      nodes: await loadNodeRegistry(config.CUSTOM_NODES_DIR),
      logger: createLogger(config, "svc"),
      config,
      // Connects only when something waits for a run's end, which `runs start` does not.
      runEnds: createRunEndListener({ databaseUrl: config.DATABASE_URL, logger: createLogger(config, "svc") }),
    });
    const { run } = await runs.startFromTrigger(flow.workspaceId, target, input, { trigger: "cli" });
    print(`started ${run.id}\n`);
    return flags.follow ? await follow(prisma, seal, run.id) : 0;
  } finally {
    await connection.close();
  }
}

type LogRow = Awaited<ReturnType<PrismaClient["logEntry"]["findMany"]>>[number];

const logLine = (seal: JsonSeal, entry: LogRow) =>
  `${entry.createdAt.toISOString()} ${entry.level.toUpperCase().padEnd(5)} ${entry.runId ?? "-"}${entry.nodeId ? `/${entry.nodeId}` : ""} ${seal.openText(entry.message)}\n`;

async function tailLogs({ prisma, seal }: Cli): Promise<number> {
  const levels: readonly string[] = LOG_LEVELS;
  if (flags.level && !levels.includes(flags.level)) {
    throw new UsageError(`--level: one of ${LOG_LEVELS.join(", ")}`);
  }
  const where = {
    ...(flags.run ? { runId: flags.run } : {}),
    ...(flags.level ? { level: { in: levelsFrom(flags.level as LogLevel) } } : {}),
  };
  const show = (entry: LogRow) => print(logLine(seal, entry));
  const latest = await prisma.logEntry.findMany({ where, orderBy: { id: "desc" }, take: limitOf(50) });
  latest.reverse().forEach(show);
  let last = latest.at(-1)?.id ?? 0n;
  // --follow: new entries as they come, until interrupted (or an hour at most).
  for (const deadline = Date.now() + 3_600_000; flags.follow && Date.now() < deadline;) {
    await sleep(500);
    const fresh = await prisma.logEntry.findMany({
      where: { ...where, id: { gt: last } },
      orderBy: { id: "asc" },
      take: 500,
    });
    fresh.forEach(show);
    last = fresh.at(-1)?.id ?? last;
  }
  return 0;
}

/**
 * Weighs a workspace's runs in their fair share of the task queue (docs/engine.md, "Flow control
 * on Temporal"): kept in the task queue's config on Temporal, applied to runs already waiting.
 */
async function weighWorkspace({ prisma, config }: Cli): Promise<number> {
  const usage = "workspaces weight <workspace id> --weight 0.001…1000|default";
  if (!target || flags.weight === undefined) throw new UsageError(usage);
  const weight = flags.weight === "default" ? null : Number(flags.weight);
  if (weight !== null && !(weight >= WORKSPACE_WEIGHT.min && weight <= WORKSPACE_WEIGHT.max)) {
    throw new UsageError(`--weight: from ${WORKSPACE_WEIGHT.min} to ${WORKSPACE_WEIGHT.max}, or default`);
  }
  const workspace = await prisma.workspace.findUnique({ where: { id: target }, select: { name: true } });
  if (!workspace) throw new UsageError(`No workspace ${target}`);
  const connection = await connectTemporalClient(config);
  try {
    const temporal = createTemporalClient(config, connection, { dataConverter: createDataConverter(config) });
    await setWorkspaceWeight(temporal, config.TEMPORAL_TASK_QUEUE, target, weight);
  } finally {
    await connection.close();
  }
  print(`${workspace.name} (${target}) weighs ${weight ?? "1 (default)"} on ${config.TEMPORAL_TASK_QUEUE}\n`);
  return 0;
}

/** The commands that use the service's data, by "<group> <action>". */
const COMMANDS = new Map<string, (cli: Cli) => Promise<number>>([
  ["users create", createUser],
  ["users reset-link", resetLink],
  ["flows list", listFlows],
  ["runs list", listRuns],
  ["runs follow", followRun],
  ["runs link", runLink],
  ["runs start", startRun],
  ["logs tail", tailLogs],
  ["workspaces weight", weighWorkspace],
]);

async function main(): Promise<number> {
  if (group === "webhooks" && action === "verify") return verifyWebhook();
  const config = serviceConfig();
  const prisma = createPrismaClient(config.DATABASE_URL, { maxConnections: 2 });
  try {
    const command = COMMANDS.get(`${group} ${action}`);
    if (!command) throw new UsageError(`Unknown command: ${positionals.join(" ")}`);
    return await command({ config, prisma, seal: createJsonSeal(config.SVC_ENCRYPTION_KEY) });
  } finally {
    await prisma.$disconnect();
  }
}

try {
  process.exitCode = await main();
} catch (error) {
  if (error instanceof UsageError) fail(`${error.message}\n${USAGE}`, 2);
  if (error instanceof ZodError) fail(error.issues.map((i) => `--${i.path.join(".")}: ${i.message}`).join("; "), 2);
  if (error instanceof DomainError || error instanceof ConfigError) fail(error.message);
  throw error;
}

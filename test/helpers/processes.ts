import { inject } from "vitest";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { projectRoot } from "../../scripts/infra/paths.js";
import { waitFor } from "../../scripts/infra/process.js";

/** The environment of the test process without the keys that point at a running service. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of ["DATABASE_URL", "TEMPORAL_ADDRESS", "TEMPORAL_UI_URL", "PORT", "SVC_DATA_DIR", "NODE_OPTIONS"]) {
    delete env[key];
  }
  // Nor how to reach another Temporal (a test that wants TLS passes its own).
  for (const key of Object.keys(env).filter((name) => /^TEMPORAL_(TLS|API_KEY)/.test(name))) delete env[key];
  // Several spawned processes run at once: operator metrics stay off unless a test asks for them.
  // Every test's logins come from 127.0.0.1 and the per-source count lives in the shared
  // database: over a whole suite they pass the default 100 per 15 min (testConfig lifts it too).
  return {
    ...env,
    API_METRICS_PORT: "0",
    WORKER_METRICS_PORT: "0",
    TEMPORAL_METRICS_PORT: "0",
    LOGIN_MAX_ATTEMPTS_PER_IP: "1000000",
    PASSWORD_RESET_MAX_REQUESTS_PER_IP: "1000000",
    // The run's workflow bundle (global setup builds it once): a spawned worker or API does not
    // bundle its workflows again (seconds of CPU each).
    WORKFLOW_BUNDLE: inject("workflowBundlePath"),
    ...extra,
  };
}

export interface Spawned {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves when the output matches `pattern`; rejects if the process exits first or time runs out. */
  waitForOutput(pattern: RegExp, timeoutMs: number): Promise<void>;
}

/** Runs one of the project's TypeScript entry points (as `npm run …` does) and records its output. */
export function spawnEntry(entry: string, args: string[], env: NodeJS.ProcessEnv): Spawned {
  return spawnNode(["--import", "tsx", entry, ...args], env);
}

/** Runs node with `args` in the project's folder (a compiled entry point: no tsx) and records its output. */
export function spawnNode(args: string[], env: NodeJS.ProcessEnv): Spawned {
  const child = spawn(process.execPath, args, { cwd: projectRoot, env });
  let output = "";
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    output: () => output,
    exited,
    waitForOutput(pattern, timeoutMs) {
      return new Promise((resolve, reject) => {
        const done = (error?: Error) => {
          clearTimeout(timer);
          listeners.delete(check);
          if (error) reject(error);
          else resolve();
        };
        const check = () => {
          if (pattern.test(output)) done();
        };
        const timer = setTimeout(
          () => done(new Error(`no output matching ${pattern} within ${timeoutMs} ms:\n${output}`)),
          timeoutMs,
        );
        listeners.add(check);
        void exited.then(({ code, signal }) =>
          done(new Error(`exited (${signal ?? code}) before ${pattern}:\n${output}`)),
        );
        check();
      });
    },
  };
}

/** Runs an entry point to completion. */
export async function runEntry(entry: string, args: string[], env: NodeJS.ProcessEnv) {
  const spawned = spawnEntry(entry, args, env);
  const { code } = await spawned.exited;
  return { code, output: spawned.output() };
}

/**
 * The API and one worker as processes of their own, as npm start runs them, on `env` (its PORT);
 * both are added to `spawned` at once (for the caller to stop), and this resolves when the API
 * answers /healthz.
 */
export async function startApiAndWorker(env: NodeJS.ProcessEnv, spawned: Spawned[]) {
  if (!env.PORT) throw new Error("startApiAndWorker needs the API's PORT in env");
  const worker = spawnEntry("worker/main.ts", [], env);
  const api = spawnEntry("api/server.ts", [], env);
  spawned.push(worker, api);
  const base = `http://127.0.0.1:${env.PORT}`;
  await waitFor("the API to answer", async () => (await fetch(`${base}/healthz`).catch(() => undefined))?.ok, {
    timeoutMs: 60_000,
    abort: () => (api.child.exitCode !== null ? `the API exited:\n${api.output()}` : undefined),
  });
  return { api, worker, base };
}

/** Logs in over HTTP; the session cookie to send (`svc_session=…`). */
export async function loginOverHttp(base: string, email: string, password: string): Promise<string> {
  const res = await fetch(`${base}/api/auth/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  if (!res.ok) throw new Error(`login answered ${res.status}: ${await res.text()}`);
  return res.headers.get("set-cookie")!.split(";")[0]!;
}

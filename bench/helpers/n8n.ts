// n8n as the peer benchmark's other system, when it is installed as ../shared/bench/n8n/README.md
// describes (N8N_HOME, default ~/n8n): started here in its default (regular) mode against the
// machine's PostgreSQL, with an owner, and with workflows made for the benchmark, deleted at the end.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort, stopChild, waitFor } from "../../scripts/infra/process.js";

/** n8n's database, as the recipe sets it up (role root, database n8n on 127.0.0.1:5432). */
export const N8N_POSTGRES_URL = process.env.N8N_POSTGRES_URL ?? "postgresql://root:root@127.0.0.1:5432/n8n";

export interface N8nNode {
  name: string;
  type: string;
  typeVersion: number;
  parameters: Record<string, unknown>;
}

/** Where n8n is installed, or why it cannot run here. */
export async function findN8n(): Promise<{ home: string } | { missing: string }> {
  const home = process.env.N8N_HOME ?? path.join(os.homedir(), "n8n");
  if (!existsSync(path.join(home, "node_modules", ".bin", "n8n"))) {
    return { missing: `n8n is not installed in ${home} (N8N_HOME); see ../shared/bench/n8n/README.md` };
  }
  const client = new pg.Client({ connectionString: N8N_POSTGRES_URL });
  try {
    await client.connect();
  } catch (error) {
    return {
      missing: `n8n's PostgreSQL (${new URL(N8N_POSTGRES_URL).host}) does not answer: ${(error as Error).message}`,
    };
  } finally {
    await client.end().catch(() => undefined);
  }
  return { home };
}

/** n8n's settings: its default (regular) mode on `port`, against N8N_POSTGRES_URL, telemetry and banners off. */
function n8nEnv(home: string, port: number): NodeJS.ProcessEnv {
  const database = new URL(N8N_POSTGRES_URL);
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    N8N_USER_FOLDER: path.join(home, "home"),
    N8N_PORT: String(port),
    N8N_LISTEN_ADDRESS: "127.0.0.1",
    N8N_DIAGNOSTICS_ENABLED: "false",
    N8N_VERSION_NOTIFICATIONS_ENABLED: "false",
    N8N_TEMPLATES_ENABLED: "false",
    N8N_PERSONALIZATION_ENABLED: "false",
    N8N_HIRING_BANNER_ENABLED: "false",
    N8N_LOG_LEVEL: "warn",
    N8N_RUNNERS_ENABLED: "false",
    N8N_SECURE_COOKIE: "false",
    N8N_BLOCK_ENV_ACCESS_IN_NODE: "true",
    EXECUTIONS_MODE: "regular",
    DB_TYPE: "postgresdb",
    DB_POSTGRESDB_HOST: database.hostname,
    DB_POSTGRESDB_PORT: database.port || "5432",
    DB_POSTGRESDB_DATABASE: database.pathname.slice(1),
    DB_POSTGRESDB_USER: decodeURIComponent(database.username),
    DB_POSTGRESDB_PASSWORD: decodeURIComponent(database.password),
  };
}

/** n8n's REST API, with the session cookie of the last login. */
class N8nRest {
  private cookie = "";

  constructor(readonly base: string) {}

  async call(method: string, route: string, body?: unknown) {
    const res = await fetch(this.base + route, {
      method,
      headers: { "Content-Type": "application/json", ...(this.cookie ? { Cookie: this.cookie } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    for (const line of res.headers.getSetCookie()) if (line.startsWith("n8n-auth=")) this.cookie = line.split(";")[0]!;
    const text = await res.text();
    if (!res.ok) throw new Error(`n8n ${method} ${route}: ${res.status} ${text.slice(0, 300)}`);
    return (text ? JSON.parse(text) : null) as { data: Record<string, unknown> };
  }
}

/** Waits until n8n serves its REST API, then logs in as the owner (set up on first use). */
async function logInWhenUp(rest: N8nRest, abort: () => string | undefined): Promise<void> {
  // /healthz answers before the REST routes are in place; /rest/settings once they are.
  // While a new database migrates, every path answers "n8n is starting up. Please wait" as text.
  const answersJson = async () => {
    const res = await fetch(`${rest.base}/rest/settings`);
    return res.ok && (res.headers.get("content-type") ?? "").includes("json");
  };
  await waitFor("n8n to answer", answersJson, { timeoutMs: 180_000, intervalMs: 500, abort });
  // The recipe's setup.mjs makes this same owner.
  const owner = { email: "owner@example.com", password: "Bench-password-1", firstName: "B", lastName: "O" };
  // An owner set up by an earlier run answers 400: then it logs in.
  await rest.call("POST", "/rest/owner/setup", owner).catch((error: Error) => {
    if (!error.message.includes(": 400 ")) throw error;
  });
  await rest.call("POST", "/rest/login", { emailOrLdapLoginId: owner.email, password: owner.password });
}

/**
 * Creates and activates a workflow whose first node is a webhook answering with the last node's
 * output; `chain` connects the nodes: [from, to, output index]. Its id goes to `created`; its URL is returned.
 */
async function createWebhookWorkflow(
  rest: N8nRest,
  created: string[],
  name: string,
  nodes: N8nNode[],
  chain: Array<[string, string, number?]>,
  { saveProgress, allEntries }: { saveProgress: boolean; allEntries?: boolean },
): Promise<string> {
  const hookPath = `peer-${randomUUID()}`;
  const webhook: N8nNode & { webhookId: string } = {
    name: "Webhook",
    type: "n8n-nodes-base.webhook",
    typeVersion: 2,
    webhookId: randomUUID(),
    parameters: {
      httpMethod: "POST",
      path: hookPath,
      responseMode: "lastNode",
      // Every item of the last node, not only the first: a node that ran per item answers them all.
      ...(allEntries ? { responseData: "allEntries" } : {}),
      options: {},
    },
  };
  const connections: Record<string, { main: Array<Array<{ node: string; type: "main"; index: 0 }>> }> = {};
  for (const [from, to, output = 0] of chain) {
    const main = (connections[from] ??= { main: [] }).main;
    while (main.length <= output) main.push([]);
    main[output]!.push({ node: to, type: "main", index: 0 });
  }
  const all = [webhook, ...nodes].map((node, i) => ({ id: randomUUID(), position: [i * 200, 0], ...node }));
  const workflow = (
    await rest.call("POST", "/rest/workflows", {
      name: `${name} ${hookPath}`,
      active: false,
      nodes: all,
      connections,
      settings: { executionOrder: "v1", ...(saveProgress ? { saveExecutionProgress: true } : {}) },
    })
  ).data as { id: string; versionId: string };
  created.push(workflow.id);
  await rest.call("POST", `/rest/workflows/${workflow.id}/activate`, { versionId: workflow.versionId });
  return `${rest.base}/webhook/${hookPath}`;
}

export async function startN8n(home: string) {
  const port = await freePort();
  const child = spawn(path.join(home, "node_modules", ".bin", "n8n"), ["start"], {
    cwd: home,
    env: n8nEnv(home, port),
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-5000)));
  const rest = new N8nRest(`http://127.0.0.1:${port}`);
  const created: string[] = [];
  try {
    await logInWhenUp(rest, () => (child.exitCode !== null ? `n8n exited:\n${stderr}` : undefined));
  } catch (error) {
    await stopChild(child);
    throw error;
  }

  return {
    pid: child.pid!,
    /**
     * Creates and activates a workflow whose first node is a webhook answering with the last
     * node's output; `chain` connects the nodes: [from, to, output index].
     */
    webhookWorkflow: (
      name: string,
      nodes: N8nNode[],
      chain: Array<[string, string, number?]>,
      /**
       * saveProgress: n8n's "save execution progress", each node's result written as it finishes, like
       * our step rows. allEntries: the answer holds every item of the last node.
       */
      { saveProgress = false, allEntries = false }: { saveProgress?: boolean; allEntries?: boolean } = {},
    ): Promise<string> => createWebhookWorkflow(rest, created, name, nodes, chain, { saveProgress, allEntries }),
    async close() {
      for (const id of created) {
        await rest.call("POST", `/rest/workflows/${id}/deactivate`, {}).catch(() => undefined);
        await rest.call("POST", `/rest/workflows/${id}/archive`, {}).catch(() => undefined);
        await rest.call("DELETE", `/rest/workflows/${id}`).catch(() => undefined);
      }
      await stopChild(child);
    },
  };
}

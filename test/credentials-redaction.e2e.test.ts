// The proof of issue 30: a flow calls APIs with a stored bearer token and an OAuth2 client
// secret (a loopback token endpoint, a loopback API that checks them and echoes what it gets);
// the calls succeed with the right credential, then the secrets are searched everywhere a run
// leaves a trace: every row of every table, the run and step APIs, the API's and the worker's log
// output, and each run's Temporal history. They must be nowhere, also after calls that fail.
// The histories hold the runs' data only sealed (the payload codec); opened with the key, they
// still hold no secret. The runs' payloads (their input, the remote's answers in step outputs and
// errors) are in the database only sealed too, and the APIs show them. Issue 39: answers holding
// the secret where no value is (JSON keys, nested keys, a header's name, an error body; a bearer
// and a headers credential, also through the node test) leave no trace either.
import { randomBytes, randomUUID } from "node:crypto";
import { Client, Connection } from "@temporalio/client";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import { newKeyRingEntry, parseKeyRing, type RingKey } from "../lib/crypto/key-ring.js";
import { createDataConverter } from "../core/engine/data-converter.js";
import { freePort } from "../scripts/infra/process.js";
import { exportedHistory, openedHistory, searchableText } from "./helpers/histories.js";
import { createTestUser, TEST_PASSWORD } from "./helpers/identity.js";
import { startLoopbackServer } from "./helpers/loopback-server.js";
import { cleanEnv, loginOverHttp, startApiAndWorker, type Spawned } from "./helpers/processes.js";

/** Every row of every table of the database, as text. */
async function databaseText(databaseUrl: string): Promise<{ text: string; tables: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows: tables } = await client.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables
       WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
    );
    const dumps: string[] = [];
    for (const { name } of tables) {
      const { rows } = await client.query<{ row: string }>(`SELECT t::text AS row FROM "${name}" t`);
      dumps.push(`-- ${name}\n${rows.map((r) => r.row).join("\n")}`);
    }
    return { text: dumps.join("\n"), tables: tables.length };
  } finally {
    await client.end();
  }
}

describe("stored credentials leave no trace", () => {
  const spawned: Spawned[] = [];
  const closers: Array<() => void> = [];
  afterAll(() => {
    for (const process of spawned) if (process.child.exitCode === null) process.child.kill("SIGKILL");
    for (const close of closers) close();
  });

  it("in the database, the run and step APIs, the logs and Temporal's history, after calls that pass and fail", async () => {
    // Mixed case: an answer may echo it lower-cased (header names are).
    const bearerToken = `Bt-${randomBytes(20).toString("hex")}-XyZ`;
    const headerSecret = `Hs-${randomBytes(20).toString("hex")}-QrS`;
    const clientId = "svc-redaction-client";
    const clientSecret = `cs-${randomBytes(20).toString("hex")}`;
    const basicClient = Buffer.from(`${clientId}:${clientSecret}`).toString("base64");
    const issued: string[] = [];
    // Run payloads, not secrets: readable through the API, sealed in the database.
    const inputMarker = `in-${randomBytes(12).toString("hex")}`;
    const answerMarker = `out-${randomBytes(12).toString("hex")}`;
    const received: Array<{ path: string; authorization?: string }> = [];

    const remote = await startLoopbackServer((req, res) => {
      const url = new URL(req.url!, "http://x");
      const authorization = req.headers.authorization;
      if (url.pathname === "/oauth/token") {
        if (authorization !== `Basic ${basicClient}`) {
          res.writeHead(401, { "Content-Type": "application/json" }).end('{"error":"invalid_client"}');
          return;
        }
        const token = `at-${randomBytes(20).toString("hex")}`;
        issued.push(token);
        res
          .writeHead(200, { "Content-Type": "application/json" })
          .end(JSON.stringify({ access_token: token, token_type: "Bearer", expires_in: 3600 }));
        return;
      }
      received.push({ path: url.pathname, authorization });
      if (url.pathname === "/keys" || url.pathname === "/keys-error") {
        // The secret it was sent, as JSON keys (top level, nested, in an array) and in a header's name.
        const sent = authorization ?? String(req.headers["x-api-secret"]);
        const token = sent.replace(/^Bearer /, "");
        res
          .writeHead(url.pathname === "/keys" ? 200 : 400, {
            "Content-Type": "application/json",
            [`X-Echo-${token}`]: "seen",
          })
          .end(JSON.stringify({ [sent]: "x", marker: answerMarker, nested: { list: [{ [`got ${token}`]: true }] } }));
        return;
      }
      const valid =
        (url.pathname === "/bearer" && authorization === `Bearer ${bearerToken}`) ||
        (url.pathname === "/oauth" && issued.some((token) => authorization === `Bearer ${token}`));
      const status = url.pathname === "/broken" ? 500 : url.pathname === "/reject" ? 401 : valid ? 200 : 403;
      // Echoes the request's headers in its answer, whatever the status, as httpbin does.
      res
        .writeHead(status, { "Content-Type": "application/json", "X-Seen-Authorization": authorization ?? "" })
        .end(JSON.stringify({ status, marker: answerMarker, seen: { url: req.url, headers: req.headers } }));
    });
    closers.push(remote.close);

    const port = await freePort();
    const encryptionKey = newKeyRingEntry("e2e", randomBytes(32));
    const env = cleanEnv({
      DATABASE_URL: inject("databaseUrl"),
      TEMPORAL_ADDRESS: inject("temporalAddress"),
      TEMPORAL_TASK_QUEUE: `redaction-${randomUUID()}`,
      PORT: String(port),
      EGRESS_ALLOWLIST: "127.0.0.1",
      SVC_ENCRYPTION_KEY: encryptionKey,
      // As much as the processes say: every line is searched.
      LOG_LEVEL: "trace",
      LOG_FORMAT: "json",
      WEBHOOK_DISPATCHER: "false",
    });
    const { api, worker, base } = await startApiAndWorker(env, spawned);
    await worker.waitForOutput(/worker started/, 60_000);

    const user = await createTestUser("redaction");
    const cookie = await loginOverHttp(base, user.email, TEST_PASSWORD);
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { "Content-Type": "application/json", Cookie: cookie },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, text: await res.text() };
    };
    const json = (res: { text: string }) => JSON.parse(res.text) as Record<string, unknown>;

    const bearer = await call("POST", "/api/credentials", {
      name: "API token",
      type: "bearer",
      data: { token: bearerToken },
    });
    const oauth = await call("POST", "/api/credentials", {
      name: "API client",
      type: "oauth2_client_credentials",
      data: { token_url: `${remote.url}/oauth/token`, client_id: clientId, client_secret: clientSecret, scope: "read" },
    });
    const headers = await call("POST", "/api/credentials", {
      name: "API headers",
      type: "headers",
      data: { headers: { "X-Api-Secret": headerSecret } },
    });
    expect([bearer.status, oauth.status, headers.status]).toEqual([201, 201, 201]);
    const bearerId = json(bearer).id as string;
    const oauthId = json(oauth).id as string;
    const headersId = json(headers).id as string;
    const request = (id: string, path: string, credential_id: string, extra: object = {}) => ({
      id,
      type: "http_request",
      config: { url: `${remote.url}${path}`, credential_id },
      ...extra,
    });
    /** Nodes one after another, or side by side after the trigger. */
    const createFlow = async (name: string, nodes: object[], shape: "chain" | "parallel" = "chain") => {
      const ids = nodes.map((node) => (node as { id: string }).id);
      const res = await call("POST", "/api/flows", {
        name,
        definition: {
          nodes: [{ id: "start", type: "manual" }, ...nodes],
          edges: ids.map((id, i) => ({ from: i === 0 || shape === "parallel" ? "start" : ids[i - 1], to: id })),
        },
      });
      expect(res.status, res.text).toBe(201);
      return json(res).id as string;
    };
    const runToEnd = async (flowId: string) => {
      const started = await call("POST", `/api/workflows/${flowId}/run`, { input: { order: 7, note: inputMarker } });
      expect(started.status, started.text).toBe(201);
      const runId = json(started).run_id as string;
      let run: { status: string } = { status: "running" };
      await expect
        .poll(
          async () => {
            run = json(await call("GET", `/api/runs/${runId}`)).run as { status: string };
            return run.status;
          },
          { timeout: 60_000, interval: 200 },
        )
        .not.toBe("running");
      return { runId, status: run.status };
    };

    const passing = await runToEnd(
      await createFlow("Calls with credentials", [
        request("with_token", "/bearer", bearerId),
        request("with_oauth", "/oauth", oauthId),
      ]),
    );
    expect(passing.status).toBe("success");
    expect(received).toEqual([
      { path: "/bearer", authorization: `Bearer ${bearerToken}` },
      { path: "/oauth", authorization: `Bearer ${issued[0]}` },
    ]);

    const failing = await runToEnd(
      await createFlow(
        "Calls that fail",
        [
          request("refused", "/reject", oauthId),
          request("broken", "/broken", bearerId, { retry: { max_attempts: 2, initial_interval_ms: 100 } }),
        ],
        "parallel",
      ),
    );
    expect(failing.status).toBe("failed");
    const failed = received.slice(2);
    // The 401 made the worker fetch a new token and try once more; the 500 was tried twice.
    expect(failed.map((r) => r.path).sort()).toEqual(["/broken", "/broken", "/reject", "/reject"]);
    expect(failed.filter((r) => r.path === "/reject").map((r) => r.authorization)).toEqual([
      `Bearer ${issued[0]}`,
      `Bearer ${issued[1]}`,
    ]);
    expect(issued).toHaveLength(2);

    // Answers that hold the secret where values are not: keys, nested keys, a header's name, an error body.
    const inKeys = await runToEnd(
      await createFlow(
        "Answers with the secret in keys",
        [
          request("keys_bearer", "/keys", bearerId),
          request("keys_headers", "/keys", headersId),
          request("keys_error", "/keys-error", bearerId),
        ],
        "parallel",
      ),
    );
    expect(inKeys.status).toBe("failed");
    const nodeTests = [];
    for (const credential_id of [bearerId, headersId]) {
      const tested = await call("POST", "/api/nodes/test", {
        type: "http_request",
        config: { url: `${remote.url}/keys`, credential_id },
      });
      expect(tested.status, tested.text).toBe(200);
      nodeTests.push(tested.text);
    }
    // Each answered with the secret (the remote saw it), scrubbed before anything kept it.
    expect(received.filter((r) => r.path.startsWith("/keys"))).toHaveLength(5);
    const testedOutput = JSON.parse(nodeTests[0]!) as { status: string; output: { headers: object; body: object } };
    expect(testedOutput.status).toBe("success");
    expect(testedOutput.output.body).toMatchObject({
      "Bearer [redacted]": "x",
      nested: { list: [{ "got [redacted]": true }] },
    });
    expect(testedOutput.output.headers).toMatchObject({ "x-echo-[redacted]": "seen" });
    expect(JSON.parse(nodeTests[1]!)).toMatchObject({ status: "success", output: { body: { "[redacted]": "x" } } });

    const secrets = {
      bearerToken,
      "bearer token, lower-cased": bearerToken.toLowerCase(),
      headerSecret,
      "header secret, lower-cased": headerSecret.toLowerCase(),
      clientSecret,
      basicClient,
      ...Object.fromEntries(issued.map((t, i) => [`access token ${i + 1}`, t])),
    };
    const apiViews: string[] = [];
    for (const { runId } of [passing, failing]) {
      apiViews.push(
        (await call("GET", `/api/runs/${runId}`)).text,
        (await call("GET", `/api/runs/${runId}/steps`)).text,
      );
    }
    apiViews.push(
      (await call("GET", `/api/runs/${inKeys.runId}`)).text,
      (await call("GET", `/api/runs/${inKeys.runId}/steps`)).text,
      ...nodeTests,
    );
    const keySteps = JSON.parse(apiViews[5]!) as { items: Array<{ node_id: string; output: unknown; error: unknown }> };
    const keyStep = (nodeId: string) => keySteps.items.find((s) => s.node_id === nodeId)!;
    expect(keyStep("keys_bearer").output).toMatchObject({
      headers: { "x-echo-[redacted]": "seen" },
      body: { "Bearer [redacted]": "x", nested: { list: [{ "got [redacted]": true }] } },
    });
    expect(keyStep("keys_headers").output).toMatchObject({ body: { "[redacted]": "x" } });
    expect(keyStep("keys_error").error).toMatchObject({ message: `GET ${remote.url}/keys-error answered 400` });
    const steps = JSON.parse(apiViews[3]!) as { items: Array<{ node_id: string; status: string; error: unknown }> };
    const errors = (nodeId: string) =>
      JSON.stringify(steps.items.filter((s) => s.node_id === nodeId).map((s) => s.error));
    expect(
      steps.items
        .filter((s) => s.status === "failed")
        .map((s) => s.node_id)
        .sort(),
    ).toEqual(["broken", "broken", "refused"]);
    expect(errors("refused")).toMatch(/answered 401/);
    expect(errors("broken")).toMatch(/answered 500/);

    const connection = await Connection.connect({ address: inject("temporalAddress") });
    const histories: string[] = [];
    const opened: string[] = [];
    const [codec] = createDataConverter({ SVC_ENCRYPTION_KEY: parseKeyRing(encryptionKey) as RingKey[] }).payloadCodecs;
    try {
      // As Temporal stores them: no codec on this client.
      const temporal = new Client({ connection });
      for (const { runId } of [passing, failing, inKeys]) {
        const exported = await exportedHistory(temporal, runId);
        expect((JSON.parse(exported) as { events: unknown[] }).events.length).toBeGreaterThan(5);
        histories.push(searchableText(exported));
        opened.push(searchableText(await openedHistory(exported, codec)));
      }
    } finally {
      await connection.close();
    }
    // Temporal's store holds the runs' data sealed: the search reads the payloads, but not their
    // plaintext; the run's summary (flow name) stays readable for operators.
    expect(histories.join("\n")).not.toContain(`${remote.url}/oauth`);
    expect(histories.join("\n")).not.toContain('"order":7');
    expect(histories.join("\n")).toContain("Calls with credentials v1 · api");
    // Failures' messages are sealed too (they quote what the remote answered): Temporal's
    // placeholder stands in their place.
    expect(histories[1]).not.toMatch(/answered 401/);
    expect(histories[1]).toContain("Encoded failure");
    // Opened with the key, the histories hold the runs' data.
    expect(opened.join("\n")).toContain(`${remote.url}/oauth`);
    expect(opened.join("\n")).toContain('"order":7');
    // The answers echoed the request headers: they reached the history (failure details) scrubbed.
    expect(opened[1]).toMatch(/answered 401[\s\S]*Bearer \[redacted\]/);
    // The error body's keys reached the failure's details scrubbed too.
    expect(opened[2]).toMatch(/keys-error answered 400[\s\S]*Bearer \[redacted\]/);

    const database = await databaseText(inject("databaseUrl"));
    expect(database.tables).toBeGreaterThan(15);
    expect(database.text).toContain(oauthId);
    // The runs' data is readable where a member looks (the APIs), and nowhere in the database.
    expect(apiViews.join("\n")).toContain(inputMarker);
    expect(apiViews[1]).toContain(answerMarker);
    expect(apiViews[3]).toContain(`${remote.url}/reject answered 401`);
    expect(database.text).toContain('"$sealed"');
    expect(
      [inputMarker, answerMarker, `${remote.url}/reject answered 401`, `${remote.url}/broken answered 500`].filter(
        (payload) => database.text.includes(payload),
      ),
    ).toEqual([]);
    const logs = `${api.output()}\n${worker.output()}`;
    expect(logs).toContain('"msg":"worker started"');

    const places: Record<string, string> = {
      database: database.text,
      "run and step APIs": apiViews.join("\n"),
      "API and worker logs": logs,
      "Temporal history": histories.join("\n"),
      "Temporal history, opened with the key": opened.join("\n"),
    };
    const hits = Object.entries(places).flatMap(([place, text]) =>
      Object.entries(secrets)
        .filter(([, value]) => text.includes(value))
        .map(([name]) => `${name} in ${place}`),
    );
    expect(hits).toEqual([]);
  }, 180_000);
});

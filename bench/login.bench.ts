// npm run bench:login: the cost of POST /api/auth/login against PBKDF2 alone (same parameters,
// same run), and /healthz latency while logins hash (the event loop must stay free).
import { pbkdf2, randomBytes } from "node:crypto";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import { createApp } from "../api/app.js";
import { closeDeps, createDeps } from "../api/deps.js";
import { newUserSchema } from "../core/users/users.schema.js";
import { createUserWithWorkspace } from "../core/users/users.service.js";
import { parseConfig } from "../lib/config.js";
import { createLogger } from "../lib/logger.js";
import { benchDatabase, median, percentile } from "./helpers/database.js";

const pbkdf2Async = promisify(pbkdf2);
const SAMPLES = 25;
const LOAD_MS = 5000;

const db = await benchDatabase();
const config = parseConfig({
  DATABASE_URL: db.url,
  LOG_LEVEL: "silent",
  LOGIN_MAX_ATTEMPTS_PER_IP: "1000000",
  TEMPORAL_ADDRESS: "127.0.0.1:1",
});
const deps = createDeps(config, createLogger(config, "bench"));
const server = createApp(deps).listen(0, "127.0.0.1");
await once(server, "listening");
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

try {
  const iterations = config.PASSWORD_HASH_ITERATIONS;
  const password = "bench-password-123";
  const input = newUserSchema.parse({ email: "bench@example.com", password, name: "Bench", workspace: "Bench" });
  await createUserWithWorkspace(deps.prisma, input, { iterations });
  const loginOnce = async () => {
    const res = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: input.email, password }),
    });
    if (res.status !== 200) throw new Error(`login answered ${res.status}: ${await res.text()}`);
  };
  const time = async (task: () => Promise<unknown>) => {
    const started = performance.now();
    await task();
    return performance.now() - started;
  };

  // Warm-up, then alternate the two measurements so that both see the same machine state.
  await loginOnce();
  const hashMs: number[] = [];
  const loginMs: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    hashMs.push(await time(() => pbkdf2Async(password, randomBytes(16), iterations, 32, "sha256")));
    loginMs.push(await time(loginOnce));
  }

  // Event-loop freedom: /healthz latency idle, then while 4 clients log in back to back.
  const probeHealth = async (durationMs: number) => {
    const latencies: number[] = [];
    const until = performance.now() + durationMs;
    while (performance.now() < until) {
      latencies.push(await time(() => fetch(`${base}/healthz`).then((r) => r.arrayBuffer())));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return latencies.sort((a, b) => a - b);
  };
  const idle = await probeHealth(2000);
  let logins = 0;
  let loading = true;
  const clients = Array.from({ length: 4 }, async () => {
    while (loading) {
      await loginOnce();
      logins++;
    }
  });
  const loaded = await probeHealth(LOAD_MS);
  loading = false;
  await Promise.all(clients);

  const hash = median(hashMs);
  const login = median(loginMs);
  console.log(`PBKDF2-SHA256, ${iterations} iterations, ${SAMPLES} samples each, alternated`);
  console.table({
    "PBKDF2 alone": { "median (ms)": hash.toFixed(1) },
    "POST /api/auth/login": { "median (ms)": login.toFixed(1) },
  });
  console.log(`login / hash = ${(login / hash).toFixed(2)} (target <= 1.3)`);
  console.log(`\n/healthz latency, idle vs during ${logins} logins by 4 concurrent clients over ${LOAD_MS / 1000} s`);
  console.table({
    idle: { p50: percentile(idle, 50).toFixed(2), p99: percentile(idle, 99).toFixed(2), n: idle.length },
    "during logins": {
      p50: percentile(loaded, 50).toFixed(2),
      p99: percentile(loaded, 99).toFixed(2),
      n: loaded.length,
    },
  });
} finally {
  server.close();
  await closeDeps(deps);
  await db.close();
}

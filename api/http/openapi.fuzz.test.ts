// Fuzzing every operation of the OpenAPI document (GET /api/openapi.json) on the real app, logged
// in as a real user: malformed, deeply nested, huge and oddly encoded bodies, query strings and
// path ids, from a seeded generator (the same cases on every run; FUZZ_SEED picks others). No
// answer may be a 5xx, and every error body must be `{ error, code }`.
import { createHash } from "node:crypto";
import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import { testPrisma } from "../../test/helpers/context.js";
import { login, TEST_PASSWORD } from "../../test/helpers/identity.js";
import { flow, useRunHarness } from "../../test/helpers/runs.js";

const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
/** Rounds over every operation; each round sends one case per operation. */
const ROUNDS = 24;
/** The loop stops early past this, and says so; the test then needs at least MIN_ROUNDS. */
const TIME_BUDGET_MS = 40_000;
const MIN_ROUNDS = 6;

const h = useRunHarness();

/** Seeded numbers in [0, 1): SHA-256 of "seed:block", four bytes at a time; the same seed gives the same cases. */
function generator(seed: number) {
  let block = 0;
  let bytes = Buffer.alloc(0);
  let offset = 0;
  const next = () => {
    if (offset + 4 > bytes.length) {
      bytes = createHash("sha256").update(`${seed}:${block++}`).digest();
      offset = 0;
    }
    const value = bytes.readUInt32BE(offset) / 2 ** 32;
    offset += 4;
    return value;
  };
  const int = (n: number) => Math.floor(next() * n);
  return {
    int,
    chance: (p: number) => next() < p,
    pick: <T>(items: readonly T[]): T => items[int(items.length)]!,
  };
}
type Generator = ReturnType<typeof generator>;

const ODD_STRINGS = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\udc00x",
  "😀",
  "é",
  "\u2028\u2029",
  "\r\n",
  "../../etc/passwd",
  "%00",
  "%",
  "null",
  "true",
  "0",
  "-1",
  "1e309",
  "NaN",
  "9".repeat(400),
  "x".repeat(10_000),
  "<script>alert(1)</script>",
  "' OR 1=1 --",
  "{{ input }}",
  "{{",
  "\\",
  "__proto__",
  "constructor",
  "2026-13-45T99:99:99Z",
  "2026-03-01T00:00:00Z",
  "wf_000000000000000000000000",
  "run_00000000000000000000000000",
  "a@b",
  "http://127.0.0.1:1/x",
  "javascript:alert(1)",
  "*/5 * * * *",
  "\u202eevil",
];
const ODD_NUMBERS = [0, -1, -0, 1.5, 2 ** 31, 2 ** 53 + 1, 1e308, -1e308, 1e-7, 86_400_000_000];

/** Percent-escapes and raw bytes that are not what an encoder would write. */
const RAW_SEGMENTS = ["%", "%E0%A4%A", "%ZZ", "%00", "%2e%2e", "%2F", "..", "%C0%AF", "%FF%FE", "%u0041", "a%20b"];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  additionalProperties?: Schema | boolean;
};

/** Values the API knows, so that plausible cases get past the lookups. */
interface Known {
  workspaceId: string;
  flowId: string;
  runId: string;
  userId: string;
  nodes: Array<{
    type: string;
    category: string;
    config_schema?: Record<string, { type: string; options?: unknown[] }>;
  }>;
}

/** The value generators of one fuzz run: random JSON, values shaped by a schema, flow definitions. */
function values(g: Generator, known: Known) {
  const hex = (n: number) => Array.from({ length: n }, () => g.int(16).toString(16)).join("");

  function randomJson(depth = 0): Json {
    const kind = g.int(depth > 3 ? 4 : 6);
    if (kind === 0) return null;
    if (kind === 1) return g.chance(0.5);
    if (kind === 2) return g.pick(ODD_NUMBERS);
    if (kind === 3) return g.pick(ODD_STRINGS);
    if (kind === 4) return Array.from({ length: g.int(4) }, () => randomJson(depth + 1));
    const object: Record<string, Json> = {};
    for (let i = g.int(4); i > 0; i--)
      object[g.pick([...ODD_STRINGS.slice(0, 12), "a", "id", "type"])] = randomJson(depth + 1);
    return object;
  }

  /** A string the schema accepts, as far as a few rules tell (ids by their prefix, formats, lengths). */
  function plausibleString(schema: Schema & { pattern?: string; format?: string; minLength?: number }, key: string) {
    const pattern = schema.pattern ?? "";
    const byPrefix: Record<string, string> = {
      "^ws_": known.workspaceId,
      "^wf_": known.flowId,
      "^run_": known.runId,
      "^usr_": known.userId,
    };
    for (const [prefix, id] of Object.entries(byPrefix)) if (pattern.startsWith(prefix)) return id;
    const prefixed = /^\^([a-z]+_)/.exec(pattern);
    if (prefixed) return `${prefixed[1]}${hex(24)}`;
    if (pattern.startsWith("^[a-z0-9]")) return g.pick(["assistant", "researcher", "fuzz-agent"]);
    if (schema.format === "date-time")
      return new Date(Date.UTC(2026, g.int(12), 1 + g.int(28), g.int(24))).toISOString();
    if (key === "email") return `fuzz-${g.int(1_000_000)}@example.com`;
    if (key === "url")
      return g.pick(["https://example.com/fuzz", "http://127.0.0.1:1/x", "https://u:p@example.com/", "ftp://x"]);
    if (/password|api_key/.test(key)) return `fuzz-secret-${hex(8)}`;
    const text = `fuzz ${key} ${g.int(1000)}`;
    return text.padEnd(schema.minLength ?? 0, "x");
  }

  /**
   * A value shaped by the schema: documented keys, enum values, types and ids, either plausible
   * (most of it valid, to get past validation) or bent (odd values in documented places).
   */
  function schemaValue(schema: Schema | undefined, plausible: boolean, key = "", depth = 0): Json {
    if (key === "definition" && g.chance(0.8)) return definition();
    if (!schema || depth > 6 || g.chance(plausible ? 0.03 : 0.15)) return randomJson(depth);
    const choices = schema.anyOf ?? schema.oneOf;
    if (choices?.length) return schemaValue(g.pick(choices), plausible, key, depth);
    if (schema.allOf?.length) return schemaValue(g.pick(schema.allOf), plausible, key, depth);
    if (schema.const !== undefined && g.chance(0.8)) return schema.const as Json;
    if (schema.enum?.length && g.chance(plausible ? 0.95 : 0.7)) return g.pick(schema.enum) as Json;
    const type = Array.isArray(schema.type) ? g.pick(schema.type) : schema.type;
    if (schema.properties || type === "object") {
      const object: Record<string, Json> = {};
      const required = new Set((schema as { required?: string[] }).required ?? []);
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        if (required.has(name) ? g.chance(plausible ? 0.97 : 0.75) : g.chance(0.6)) {
          object[name] = schemaValue(property, plausible, name, depth + 1);
        }
      }
      if (!schema.properties && g.chance(0.7)) Object.assign(object, { a: randomJson(depth + 1), note: "fuzz" });
      if (g.chance(plausible ? 0.03 : 0.1)) {
        object[g.pick(["extra", "__proto__", "constructor", "\u0000"])] = randomJson(depth + 1);
      }
      return object;
    }
    if (type === "array") {
      return Array.from({ length: g.int(plausible ? 3 : 5) }, () =>
        schemaValue(schema.items, plausible, key, depth + 1),
      );
    }
    if (type === "string") return plausible || g.chance(0.3) ? plausibleString(schema, key) : g.pick(ODD_STRINGS);
    if (type === "integer" || type === "number") {
      const { minimum = 0, maximum = 1000 } = schema as { minimum?: number; maximum?: number };
      if (plausible || g.chance(0.3))
        return g.chance(0.2) ? g.pick([minimum, maximum]) : minimum + g.int(Math.min(100, maximum - minimum + 1));
      return g.pick(ODD_NUMBERS);
    }
    if (type === "boolean") return g.chance(0.5);
    return randomJson(depth);
  }

  /** A config value for a catalog field: templates, odd values, or a plausible one. */
  function configValue(field: { type: string; options?: unknown[] }): Json {
    if (field.options?.length && g.chance(0.7)) return g.pick(field.options) as Json;
    if (g.chance(0.2)) return randomJson(1);
    switch (field.type) {
      case "number":
        return g.chance(0.5) ? g.int(10) : g.pick(ODD_NUMBERS);
      case "boolean":
        return g.chance(0.5);
      case "json":
        return randomJson(1);
      case "code":
        return g.pick(["return input;", "while (true) {}", "throw new Error('x')", "{{ input }}", ""]);
      default:
        return g.pick([
          "{{ input.a }}",
          "{{ trigger.body }}",
          "{{ nodes.n0.body.items[0] }}",
          "{{ run.id }}",
          "{{",
          "\\{{ literal }}",
          "https://example.com/x",
          "5s",
          "*/5 * * * *",
          "$.a",
          ...ODD_STRINGS.slice(0, 16),
        ]);
    }
  }

  /** A flow definition of catalog nodes with generated configs and edges, now and then broken. */
  function definition(): Json {
    const triggers = known.nodes.filter((node) => node.category === "trigger");
    const count = 1 + g.int(5);
    const nodes = Array.from({ length: count }, (_, index) => {
      const node = index === 0 ? g.pick(triggers) : g.pick(known.nodes);
      const config: Record<string, Json> = {};
      for (const [name, field] of Object.entries(node.config_schema ?? {})) {
        if (g.chance(0.7)) config[name] = configValue(field);
      }
      return { id: g.chance(0.95) ? `n${index}` : g.pick(ODD_STRINGS), type: node.type, config };
    });
    const edges = nodes.slice(1).map((_, index) => ({
      from: `n${g.int(index + 1)}`,
      to: `n${index + 1}`,
      ...(g.chance(0.2) ? { branch: g.pick(["true", "false", "default", "x"]) } : {}),
    }));
    if (g.chance(0.1) && edges.length) edges.push({ from: edges.at(-1)!.to, to: "n0" });
    return { nodes, edges } as Json;
  }

  return { randomJson, schemaValue, definition };
}
type Values = ReturnType<typeof values>;

/** Every byte of the text's UTF-8 as %XX (a lone surrogate becomes U+FFFD, as any encoder makes it). */
const percentEncode = (text: string) =>
  [...Buffer.from(text, "utf8")].map((byte) => `%${byte.toString(16).padStart(2, "0").toUpperCase()}`).join("");

const nested = (g: Generator, depth: number) =>
  g.chance(0.5) ? "[".repeat(depth) + "1" + "]".repeat(depth) : '{"a":'.repeat(depth) + "1" + "}".repeat(depth);

/** A request body: what is sent and with which headers, and a label for the report. */
interface BodyCase {
  label: string;
  headers: Record<string, string>;
  data?: string | Buffer;
}

function bodyCase(g: Generator, v: Values, schema: Schema | undefined): BodyCase {
  const json = { "Content-Type": "application/json" };
  switch (g.int(14)) {
    case 0:
      return { label: "random JSON", headers: json, data: JSON.stringify(v.randomJson()) };
    case 1: {
      const depth = g.pick([63, 64, 65, 1000, 50_000]);
      return { label: `nested ${depth}`, headers: json, data: nested(g, depth) };
    }
    case 2: {
      // Around the API's 1 MB limit (and hooks' default 1 MiB).
      const size = g.pick([900_000, 1_100_000]);
      return { label: `huge ${size}`, headers: json, data: JSON.stringify({ name: "x".repeat(size), input: {} }) };
    }
    case 3:
      return {
        label: "malformed JSON",
        headers: json,
        data: g.pick([
          "{",
          "[1,]",
          "NaN",
          "\ufeff{}",
          '{"a":1,"a":2}',
          '{"a":"\\ud800"}',
          '{"a":"\\u0000"}',
          '{"__proto__":{"polluted":1}}',
          "1e400",
          '"just a string"',
          "  ",
          '{"a":01}',
          "\u0000",
        ]),
      };
    case 4:
      return {
        label: "invalid UTF-8",
        headers: json,
        data: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xc3, 0x22, 0x7d]),
      };
    case 5: {
      const type = g.pick([
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/xml",
        "application/json; charset=utf-16",
        "application/json; charset=bogus",
        "application/json; charset=latin1",
        "application/merge-patch+json",
        "*/*",
        "application/json, text/plain",
      ]);
      return {
        label: `Content-Type ${type}`,
        headers: { "Content-Type": type },
        data: JSON.stringify(v.schemaValue(schema, false)),
      };
    }
    case 6:
      return { label: "no Content-Type", headers: {}, data: Buffer.from(JSON.stringify(v.schemaValue(schema, false))) };
    case 7: {
      const encoding = g.pick(["gzip", "deflate", "br", "zstd", "identity, gzip"]);
      return {
        label: `Content-Encoding ${encoding}`,
        headers: { ...json, "Content-Encoding": encoding },
        data: "not compressed",
      };
    }
    case 8:
      return { label: "no body", headers: {} };
    case 9:
      return { label: "bent schema-shaped JSON", headers: json, data: JSON.stringify(v.schemaValue(schema, false)) };
    default:
      return { label: "plausible JSON", headers: json, data: JSON.stringify(v.schemaValue(schema, true)) };
  }
}

/** A query string from the documented parameters and some others, oddly encoded at times. */
function queryString(
  g: Generator,
  v: Values,
  parameters: Array<{ name: string; in: string; schema?: Schema }>,
): string {
  const pairs: string[] = [];
  for (const parameter of parameters.filter((p) => p.in === "query")) {
    if (!g.chance(0.6)) continue;
    const value = v.schemaValue(parameter.schema, g.chance(0.5), parameter.name);
    const text = typeof value === "string" ? value : JSON.stringify(value);
    pairs.push(`${parameter.name}=${percentEncode(text.slice(0, 2000))}`);
    if (g.chance(0.1)) pairs.push(`${parameter.name}=again`);
  }
  if (g.chance(0.25))
    pairs.push(
      g.pick(["%00=1", "a=%E0%A4%A", "a[b]=1", "limit=1&limit=2", "cursor=%FF", "=", "&&", "x=" + "y".repeat(8000)]),
    );
  return pairs.length ? `?${pairs.join("&")}` : "";
}

describe("fuzzing every documented operation", { timeout: 90_000 }, () => {
  let cookie: string;
  let email: string;
  /** Real values for path parameters, so that cases also reach past the lookups. */
  const real: Record<string, string> = {};
  let known: Known;

  beforeAll(async () => {
    cookie = h.cookie;
    const user = await testPrisma().user.findFirstOrThrow({
      where: { memberships: { some: { workspaceId: h.workspaceId } } },
    });
    email = user.email;
    real.userId = user.id;
    const hookFlow = flow([{ id: "after", type: "debug" }], [["start", "after"]]);
    hookFlow.nodes[0] = {
      id: "start",
      type: "http_trigger",
      config: { methods: ["GET", "POST", "PUT", "PATCH", "DELETE"] },
    } as (typeof hookFlow.nodes)[0];
    const flowId = await h.createFlow(hookFlow, "Fuzzed");
    const detail = await request(h.app).get(`/api/flows/${flowId}`).set("Cookie", cookie);
    real.flowId = flowId;
    real.token = (detail.body.hook.path as string).split("/").at(-1)!;
    const run = await h.runToEnd((await h.createFlow(flow([], []), "Fuzzed runs")) as string);
    real.runId = run.id;
    const catalog = await request(h.app).get("/api/nodes").set("Cookie", cookie);
    known = { workspaceId: h.workspaceId, flowId, runId: run.id, userId: user.id, nodes: catalog.body.items };
  });

  /** A path parameter: a real id, an odd string properly encoded, or raw odd bytes. */
  function pathValue(g: Generator, name: string, path: string, method: string): string {
    // Real ids are kept from what would end the cases' own state: deletions, a new hook token,
    // the user's own role (another owner made by a case could let it demote itself).
    const destructive = method === "delete" || path.endsWith("/regenerate") || path.includes("/members/");
    const realValue =
      name === "token"
        ? real.token
        : name === "userId"
          ? real.userId
          : name === "n"
            ? "1"
            : name === "provider"
              ? "openai"
              : path.startsWith("/api/runs") || path.startsWith("/api/agent")
                ? real.runId
                : real.flowId;
    const roll = g.int(10);
    if (roll < 3 && realValue && !destructive) return realValue;
    if (roll < 5) return g.pick(RAW_SEGMENTS);
    return percentEncode((g.pick(ODD_STRINGS) || "x").slice(0, 2500));
  }

  it("answers no 5xx, and every error as { error, code }", async () => {
    const { body: document } = await request(h.app).get("/api/openapi.json");
    const operations = Object.entries(
      document.paths as Record<string, Record<string, { parameters?: []; requestBody?: unknown }>>,
    ).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })));
    expect(operations.length).toBeGreaterThan(40);

    const g = generator(SEED);
    const v = values(g, known);
    const failures: string[] = [];
    const started = Date.now();
    let sent = 0;
    let rounds = 0;
    const statuses = new Map<number, number>();
    for (; rounds < ROUNDS && Date.now() - started < TIME_BUDGET_MS; rounds++) {
      for (const { path, method, operation } of operations) {
        const parameters = (operation.parameters ?? []) as Array<{ name: string; in: string; schema?: Schema }>;
        // Under Node's 16 KB limit for the request line and headers (client-errors.ts answers that).
        const url = (
          path.replace(/\{(\w+)\}/g, (_match, name: string) => pathValue(g, name, path, method)) +
          queryString(g, v, parameters)
        ).slice(0, 12_000);
        const bodySchema = (operation.requestBody as { content?: Record<string, { schema?: Schema }> } | undefined)
          ?.content?.["application/json"]?.schema;
        // Bodies for every method that takes one; GETs get one now and then too.
        const body = bodyCase(g, v, bodySchema);
        const withBody = method !== "get" || g.chance(0.1);
        // Logging out would end the session the other cases use.
        const sessionCookie = path === "/api/auth/session" && method === "delete" ? "" : cookie;
        let req = request(h.app)[method as "get"](url);
        if (sessionCookie) req = req.set("Cookie", sessionCookie);
        if (withBody) {
          req = req.set(body.headers);
          if (body.data !== undefined) req = req.send(body.data);
        }
        const res = await req.catch((error: Error) => ({ status: 0, body: { transport: error.message }, text: "" }));
        sent++;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        // A switch to a workspace the cases made is undone: the real ids live in the first one.
        if (path === "/api/auth/session" && method === "put" && res.status === 200) {
          await request(h.app).put(path).set("Cookie", cookie).send({ workspaceId: h.workspaceId }).expect(200);
        }
        const what = `${method.toUpperCase()} ${url.slice(0, 160)} [${withBody ? body.label : "no body"}]`;
        if (res.status >= 500 || res.status === 0) {
          failures.push(`${what} → ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
        } else if (res.status >= 400 && !(path === "/api/auth/session" && res.status === 401)) {
          const error = res.body as { error?: unknown; code?: unknown };
          if (typeof error?.error !== "string" || typeof error?.code !== "string") {
            failures.push(`${what} → ${res.status} without {error, code}: ${String(res.text).slice(0, 200)}`);
          }
        }
      }
    }
    process.stdout.write(
      `[fuzz] seed ${SEED}: ${sent} requests over ${operations.length} operations in ${rounds} rounds, ` +
        `${Date.now() - started} ms; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}\n`,
    );
    expect(failures, failures.join("\n")).toEqual([]);
    expect(rounds).toBeGreaterThanOrEqual(MIN_ROUNDS);
    // The session the cases used is still there: they were sent logged in throughout.
    expect((await request(h.app).get("/api/auth/session").set("Cookie", cookie)).status).toBe(200);
    // The cases may have sent this account's e-mail with wrong passwords from this address: then it
    // is throttled for a few seconds, never locked; after the wait it asks, the password works.
    const first = await request(h.app).post("/api/auth/login").send({ email, password: TEST_PASSWORD });
    if (first.status === 429) {
      expect(first.body).toMatchObject({ code: "login_throttled" });
      const wait = Number(first.headers["retry-after"]);
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(60);
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
      await login(h.app, email, TEST_PASSWORD);
    } else {
      expect(first.status, JSON.stringify(first.body)).toBe(200);
    }
  }, 120_000);
});

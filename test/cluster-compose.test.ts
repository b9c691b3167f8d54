// docker-compose.yml runs the same Temporal as the cluster test's harness: the images cannot be
// pulled on the build machines, so this reads the compose files and holds them to the harness's
// version, ports, databases, shards, namespace, dynamic config and TLS settings.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "../scripts/infra/paths.js";
import { CLUSTER_DEFAULTS, CLUSTER_DYNAMIC_CONFIG } from "../scripts/infra/temporal-cluster-config.js";
import { clusterClientEnv } from "../scripts/infra/temporal-cluster.js";
import { TEMPORAL_SERVER_VERSION } from "../scripts/infra/temporal-server.js";

const read = (file: string) => readFileSync(path.join(projectRoot, file), "utf8");

/**
 * The lines of a top-level block: a service (`  name:` under `services:`) or an extension field
 * (`x-name: &anchor`). The compose files are ours and kept in this plain layout.
 */
function block(text: string, header: RegExp): string[] {
  const lines = text.split("\n");
  const start = lines.findIndex((line) => header.test(line));
  if (start < 0) throw new Error(`no block ${header}`);
  const indent = /^ */.exec(lines[start]!)![0].length;
  const end = lines.findIndex((line, i) => i > start && /\S/.test(line) && /^ */.exec(line)![0].length <= indent);
  return lines.slice(start + 1, end < 0 ? undefined : end).filter((line) => !/^\s*#/.test(line));
}
const service = (text: string, name: string) => block(text, new RegExp(`^  ${name}:$`));

/** `KEY: value` entries at `indent` spaces (an environment map), quotes removed. */
function entries(lines: string[], indent: number): Record<string, string> {
  const found: Record<string, string> = {};
  for (const line of lines) {
    const match = new RegExp(`^ {${indent}}([A-Z][A-Z0-9_]*): (.*)$`).exec(line);
    if (match) found[match[1]!] = match[2]!.replace(/^"(.*)"$/, "$1");
  }
  return found;
}
/** A service's `environment:` map (six spaces in). */
const environment = (lines: string[]) => entries(lines.slice(lines.indexOf("    environment:") + 1), 6);
const image = (lines: string[]) => lines.find((line) => line.startsWith("    image: "))?.slice("    image: ".length);

describe("docker-compose.yml and the cluster harness", () => {
  const compose = read("docker-compose.yml");
  const version = TEMPORAL_SERVER_VERSION.replace(/^v/, "");

  it("run the same Temporal server version, its admin tools of that version for the schema and namespace", () => {
    expect(image(service(compose, "temporal"))).toBe(`temporalio/server:${version}`);
    expect(image(service(compose, "temporal-schema"))).toBe(`temporalio/admin-tools:${version}`);
    expect(image(service(compose, "temporal-namespace"))).toBe(`temporalio/admin-tools:${version}`);
  });

  it("give the server the same store, databases, shards and frontend port", () => {
    const temporal = service(compose, "temporal");
    expect(environment(temporal)).toMatchObject({
      DB: CLUSTER_DEFAULTS.sqlPlugin,
      DBNAME: CLUSTER_DEFAULTS.database,
      VISIBILITY_DBNAME: CLUSTER_DEFAULTS.visibilityDatabase,
      NUM_HISTORY_SHARDS: String(CLUSTER_DEFAULTS.numHistoryShards),
      FRONTEND_GRPC_PORT: String(CLUSTER_DEFAULTS.frontendPort),
    });
    const port = CLUSTER_DEFAULTS.frontendPort;
    expect(temporal).toContain(`      - "${port}:${port}"`);
    // The service's processes reach it on that port.
    expect(entries(block(compose, /^x-app-environment:/), 2).TEMPORAL_ADDRESS).toBe(`temporal:${port}`);
  });

  it("make Temporal's schema with the same tool steps and plugin, and the same namespace", () => {
    const schema = service(compose, "temporal-schema");
    expect(environment(schema).SQL_PLUGIN).toBe(CLUSTER_DEFAULTS.sqlPlugin);
    const steps = schema.join("\n");
    for (const step of ["create-database", "setup-schema -v 0.0", "update-schema --schema-name", "postgresql/v12/"]) {
      expect(steps).toContain(step);
    }
    expect(steps).toContain(`${CLUSTER_DEFAULTS.database}:temporal`);
    expect(steps).toContain(`${CLUSTER_DEFAULTS.visibilityDatabase}:visibility`);
    const namespace = service(compose, "temporal-namespace").join("\n");
    expect(namespace).toContain(`-n ${CLUSTER_DEFAULTS.namespace} --retention ${CLUSTER_DEFAULTS.retentionDays}d`);
    expect(entries(block(compose, /^x-app-environment:/), 2).TEMPORAL_NAMESPACE).toBe(CLUSTER_DEFAULTS.namespace);
  });

  it("tune the server with the same dynamic config", () => {
    const mounted = service(compose, "temporal").find((line) => line.includes("dynamic-config"))!;
    const file = /\.\/(\S+?):/.exec(mounted)![1]!;
    const lines = read(file)
      .split("\n")
      .filter((line) => line.trim() && !line.startsWith("#"));
    const config: Record<string, unknown> = {};
    for (const [i, line] of lines.entries()) {
      if (/^\S+:$/.test(line)) config[line.slice(0, -1)] = JSON.parse(/value: (.*)$/.exec(lines[i + 1]!)![1]!);
    }
    expect(config).toEqual(CLUSTER_DYNAMIC_CONFIG);
  });

  it("ask for client certificates with TLS on, and hand the service the same TLS settings", () => {
    const tls = read("docker-compose.tls.yml");
    expect(environment(service(tls, "temporal")).TEMPORAL_TLS_REQUIRE_CLIENT_AUTH).toBe("true");
    const harnessSettings = Object.keys(
      clusterClientEnv("h:1", "n", { caFile: "a", clientCertFile: "b", clientKeyFile: "c", serverName: "d" }),
    ).filter((key) => key.startsWith("TEMPORAL_TLS_"));
    const serviceSettings = Object.keys(entries(block(tls, /^x-temporal-tls:/), 2));
    expect(serviceSettings.sort()).toEqual(harnessSettings.sort());
    for (const name of ["api", "worker"]) expect(service(tls, name)).toContain("    environment: *temporal-tls");
  });
});

// npm run mcp:conformance -- --url <base url> : runs the MCP conformance suite
// (@modelcontextprotocol/conformance, a client no one here wrote) against this service's MCP
// endpoint, {url}/api/mcp, with a workspace API token from SVC_TOKEN, and prints each scenario's
// checks. On demand, not in the test suite: the suite's CLI needs Node.js 22 (fs.globSync) while
// the service runs on 20, so npx fetches both from the npm registry (node@22 ships the binary).
//
// The suite's client sends no Authorization header, so a proxy on loopback adds the token to each
// request on its way to the endpoint (it listens on 127.0.0.1 only, on a free port).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readdirSync, readFileSync, existsSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const NODE_PACKAGE = "node@22.23.3";
const CONFORMANCE_PACKAGE = "@modelcontextprotocol/conformance@0.1.16";

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | string;
  errorMessage?: string;
}

const { values } = parseArgs({
  options: { url: { type: "string" }, suite: { type: "string", default: "all" }, scenario: { type: "string" } },
});
const token = process.env.SVC_TOKEN;
if (!values.url || !token) {
  console.error("usage: SVC_TOKEN=svc_pat_… npm run mcp:conformance -- --url http://127.0.0.1:3000 [--scenario S]");
  process.exit(2);
}
const target = new URL("/api/mcp", values.url);

/**
 * Forwards each request to the endpoint with the token added, as a reverse proxy presenting the
 * service at its own address would: its own origin becomes the service's, any other passes as sent.
 */
const proxy = createServer((req, res) => {
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;
  const origin = req.headers.origin === proxyOrigin() ? target.origin : req.headers.origin;
  const headers = { ...req.headers, host: target.host, authorization: `Bearer ${token}` };
  const upstream = send(
    target,
    { method: req.method, headers: origin === undefined ? headers : { ...headers, origin } },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on("error", (error) => res.writeHead(502).end(String(error.message)));
  req.pipe(upstream);
});
function proxyOrigin() {
  return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}
proxy.listen(0, "127.0.0.1");
await once(proxy, "listening");
const proxyUrl = `${proxyOrigin()}/api/mcp`;

const outputDir = mkdtempSync(join(tmpdir(), "mcp-conformance-"));
const args = ["--yes", "-p", NODE_PACKAGE, "-p", CONFORMANCE_PACKAGE, "--", "conformance", "server"];
args.push("--url", proxyUrl, "-o", outputDir);
args.push(...(values.scenario ? ["--scenario", values.scenario] : ["--suite", values.suite!]));
const child = spawn("npx", args, { stdio: ["ignore", "inherit", "inherit"], env: process.env });
const [code] = (await once(child, "exit")) as [number | null];
proxy.close();

// Each scenario's checks.json, summarised: its failures named.
const scenarios = readdirSync(outputDir).filter((dir) => existsSync(join(outputDir, dir, "checks.json")));
let passed = 0;
for (const dir of scenarios.sort()) {
  const checks = JSON.parse(readFileSync(join(outputDir, dir, "checks.json"), "utf8")) as Check[];
  const failed = checks.filter((check) => check.status === "FAILURE");
  if (failed.length === 0) passed++;
  const name = dir.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T.*$/, "");
  console.log(
    `${failed.length === 0 ? "pass" : "FAIL"}  ${name}` +
      (failed.length ? `: ${failed.map((check) => `${check.id} (${check.errorMessage ?? "failed"})`).join("; ")}` : ""),
  );
}
console.log(`${passed} of ${scenarios.length} scenarios passed; results in ${outputDir}; the suite exited ${code}`);

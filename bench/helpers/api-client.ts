// The benchmarks' client of the API: node:http with keep-alive rather than fetch, because the
// load generator shares the machine's cores with the service it measures and undici's fetch
// costs about 1 ms more CPU per call here.
import http from "node:http";
import type { Client } from "@temporalio/client";

export interface ApiClient {
  /** An API call as the logged-in user; throws on an error status. */
  call(method: string, path: string, body?: unknown): Promise<Record<string, unknown>>;
  /** Starts a run of the flow through the API and waits for its workflow to end in success. */
  runFlow(flowId: string, input?: object): Promise<void>;
  close(): void;
}

/** Logs in at `base` and returns a client for that user; runs are awaited through `temporal`. */
export async function loginApiClient(
  base: string,
  credentials: { email: string; password: string },
  temporal: Client,
): Promise<ApiClient> {
  // Idle sockets close before the server's 5 s keep-alive timeout would close them under a request.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256, timeout: 2000 });
  const request = (method: string, path: string, body: unknown, cookie?: string) =>
    new Promise<{ status: number; cookies: string[]; text: string }>((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const headers: http.OutgoingHttpHeaders = cookie ? { Cookie: cookie } : {};
      if (payload !== undefined) {
        headers["Content-Type"] = "application/json";
        headers["Content-Length"] = Buffer.byteLength(payload);
      }
      const req = http.request(`${base}${path}`, { method, agent, headers }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, cookies: res.headers["set-cookie"] ?? [], text }));
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(payload);
    });

  const login = await request("POST", "/api/auth/login", credentials);
  if (login.status !== 200) throw new Error(`login: ${login.status} ${login.text}`);
  const cookie = login.cookies[0]!.split(";")[0]!;

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await request(method, path, body, cookie);
    if (res.status < 200 || res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return JSON.parse(res.text) as Record<string, unknown>;
  };
  return {
    call,
    async runFlow(flowId, input = { n: 1 }) {
      const started = await call("POST", `/api/workflows/${flowId}/run`, { input });
      const result = (await temporal.workflow.getHandle(started.run_id as string).result()) as { status: string };
      if (result.status !== "success") throw new Error(`run ${String(started.run_id)} ended ${result.status}`);
    },
    close: () => agent.destroy(),
  };
}

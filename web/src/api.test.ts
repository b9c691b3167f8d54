import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError, apiBase, createApiClient, describeError, read } from "./api";

/** A document with at most one `<meta name="svc-api-base">`. */
const page = (content?: string) => ({
  querySelector: (selector: string) =>
    (selector === 'meta[name="svc-api-base"]' && content !== undefined ? { content } : null) as never,
});

describe("the API's origin for a dashboard hosted elsewhere", () => {
  it("is same-origin without a setting", () => {
    expect(apiBase(page())).toBe("");
    expect(apiBase(page("  "))).toBe("");
    expect(apiBase(undefined)).toBe("");
  });

  it("comes from index.html's meta, without trailing slashes", () => {
    expect(apiBase(page("https://api.example.com/"))).toBe("https://api.example.com");
    expect(apiBase(page(" http://127.0.0.1:3000 "))).toBe("http://127.0.0.1:3000");
  });
});

// The dashboard's build has no Node types: the few calls of node:http this test makes are typed here.
interface IncomingRequest {
  method?: string;
  url?: string;
  on(event: "data", listener: (chunk: Uint8Array) => void): void;
  on(event: "end", listener: () => void): void;
}
interface OutgoingAnswer {
  writeHead(status: number, headers?: Record<string, string>): { end(body?: string): void };
}
interface Server {
  listen(port: number, host: string): Server;
  once(event: "listening", listener: () => void): void;
  address(): { port: number };
  close(callback: () => void): void;
}
const nodeHttp = "node:http";
const { createServer } = (await import(/* @vite-ignore */ nodeHttp)) as {
  createServer(handler: (req: IncomingRequest, res: OutgoingAnswer) => void): Server;
};

describe("the typed client", () => {
  // A loopback stand-in for the API: what each request asked, and a canned answer per path.
  let server: Server;
  let base: string;
  const asked: Array<{ method: string; url: string; body: string }> = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += new TextDecoder().decode(chunk)));
      req.on("end", () => {
        asked.push({ method: req.method!, url: req.url!, body });
        const json = (status: number, value: unknown) =>
          res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(value));
        if (req.url!.startsWith("/api/runs/run_abc")) return json(200, { run: { id: "run_abc" } });
        if (req.url === "/api/flows") {
          return json(400, {
            error: "The flow definition is invalid",
            code: "invalid_definition",
            details: [{ path: "definition.nodes[0].config.url", message: "Required" }],
          });
        }
        if (req.url === "/api/metrics") return res.writeHead(502).end("<html>bad gateway</html>");
        return json(404, { error: "No such thing", code: "not_found" });
      });
    }).listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", resolve));
    base = `http://127.0.0.1:${server.address().port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(resolve)));

  it("fills a path's parameters and query, and reads the answer's body", async () => {
    const client = createApiClient(base);
    const body = await read(client.GET("/api/runs/{id}", { params: { path: { id: "run_abc" } } }));
    expect(body.run.id).toBe("run_abc");
    await read(client.GET("/api/runs/{id}/steps", { params: { path: { id: "run_abc/../x y" } } })).catch(() => null);
    expect(asked.at(-1)!.url).toBe("/api/runs/run_abc%2F..%2Fx%20y/steps");
  });

  it("throws an error answer as an ApiError with its code and details, and sends the body as JSON", async () => {
    const client = createApiClient(base);
    const error = await read(
      client.POST("/api/flows", { body: { name: "x", definition: { nodes: [], edges: [] } } }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: "invalid_definition" });
    expect(describeError(error)).toBe("The flow definition is invalid (definition.nodes[0].config.url: Required)");
    expect(JSON.parse(asked.at(-1)!.body)).toEqual({ name: "x", definition: { nodes: [], edges: [] } });
    // An answer that is not JSON still becomes an ApiError, by its status.
    const gateway = await read(client.GET("/api/metrics")).catch((e: unknown) => e);
    expect(gateway).toMatchObject({ status: 502, code: "502", message: "The service answered 502" });
  });
});

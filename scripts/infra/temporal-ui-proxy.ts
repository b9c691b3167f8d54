// The dev server's Temporal Web UI behind a proxy of npm start's own. The CLI's dev server sets
// the UI's codec endpoint (--ui-codec-endpoint) but not whether the UI sends credentials to it,
// and the API's codec endpoint answers only with the dashboard's session cookie. The proxy passes
// every request and answer through as they are, except the UI's settings, where it turns that on
// (Codec.IncludeCredentials), as TEMPORAL_CODEC_INCLUDE_CREDENTIALS does for the temporalio/ui
// image (docker-compose.yml).
import http from "node:http";
import { once } from "node:events";

/** Where the UI reads its settings, the codec's among them. */
export const TEMPORAL_UI_SETTINGS_PATH = "/api/v1/settings";

export interface TemporalUiProxy {
  url: string;
  close(): Promise<void>;
}

/** The settings the UI server answered, with credentials sent to the codec endpoint. */
function withCredentials(body: Buffer): Buffer {
  try {
    const settings = JSON.parse(body.toString("utf8")) as { Codec?: Record<string, unknown> };
    if (!settings.Codec?.Endpoint) return body;
    settings.Codec = { ...settings.Codec, IncludeCredentials: true };
    return Buffer.from(JSON.stringify(settings));
  } catch {
    return body;
  }
}

/** Listens on `host:port` (0: a free port) and forwards to the UI server at `target`. */
export async function startTemporalUiProxy(options: {
  host?: string;
  port: number;
  target: { host: string; port: number };
}): Promise<TemporalUiProxy> {
  const host = options.host ?? "127.0.0.1";
  const server = http.createServer((req, res) => {
    const settings = req.method === "GET" && req.url?.split("?")[0] === TEMPORAL_UI_SETTINGS_PATH;
    const headers = { ...req.headers };
    // The settings are rewritten: asked for uncompressed.
    if (settings) delete headers["accept-encoding"];
    const upstream = http.request(
      { host: options.target.host, port: options.target.port, method: req.method, path: req.url, headers },
      (answer) => {
        const status = answer.statusCode ?? 502;
        if (!settings || status !== 200) {
          res.writeHead(status, answer.headers);
          answer.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on("data", (chunk: Buffer) => chunks.push(chunk));
        answer.on("end", () => {
          const body = withCredentials(Buffer.concat(chunks));
          const { "content-length": _length, "transfer-encoding": _encoding, ...rest } = answer.headers;
          res.writeHead(status, { ...rest, "content-length": String(body.length) });
          res.end(body);
        });
        answer.on("error", () => res.destroy());
      },
    );
    upstream.on("error", () => {
      if (res.headersSent) res.destroy();
      else res.writeHead(502, { "content-type": "text/plain" }).end("The Temporal UI does not answer (yet)\n");
    });
    req.pipe(upstream);
  });
  server.listen(options.port, host);
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  return {
    url: `http://${host}:${port}`,
    async close() {
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      await closed;
    },
  };
}

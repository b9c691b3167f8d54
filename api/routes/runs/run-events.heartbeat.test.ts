import express from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import type { RunState, RunWatcher } from "../../../core/runs/run-watch.js";
import type { Logger } from "../../../lib/logger.js";
import type { AuthContext } from "../../../core/sessions/sessions.service.js";
import { createApiDocs } from "../../http/openapi.js";
import { createRunEventsRouter } from "./run-events.router.js";

const caller: AuthContext = {
  kind: "member",
  sessionId: "ses_1",
  user: { id: "usr_000000000000000000000001", email: "a@example.com", name: "A" },
  workspace: { workspaceId: "ws_000000000000000000000001", name: "W", role: "viewer" },
};

const state = (status: string) => ({ run: { status }, steps: { items: [] } }) as unknown as RunState;

describe("the run event stream's heartbeat", () => {
  it("writes a comment line while the run is quiet, and ends after the final state", async () => {
    const watcher: RunWatcher = {
      async *changes() {
        yield state("running");
        await new Promise((resolve) => setTimeout(resolve, 200));
        yield state("success");
      },
    };
    const app = express();
    app.use((req, _res, next) => {
      req.auth = caller;
      next();
    });
    const logger = { warn: () => undefined } as unknown as Logger;
    app.use("/api/runs", createRunEventsRouter({ watcher, logger, heartbeatMs: 50 }, createApiDocs()));
    const res = await request(app).get("/api/runs/run_000000000000000000000001/events");
    expect(res.status).toBe(200);
    const blocks = res.text.split("\n\n").filter(Boolean);
    expect(blocks[0]).toBe('event: state\ndata: {"run":{"status":"running"},"steps":{"items":[]}}');
    expect(blocks.filter((b) => b === ": heartbeat").length).toBeGreaterThanOrEqual(2);
    expect(blocks.slice(-2)).toEqual([
      'event: state\ndata: {"run":{"status":"success"},"steps":{"items":[]}}',
      'event: end\ndata: {"status":"success"}',
    ]);
  });
});

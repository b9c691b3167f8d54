// Every operation the API documents says who may call it: public, a token scope, or sessions only.
// route()'s type requires it; this proves it of the document the app builds, and the choices that
// matter most (reads are `read`, no token manages people or tokens).
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "../openapi-document.js";
import { TOKEN_SCOPES } from "../../core/tokens/token-scopes.js";

type Operation = { security?: unknown[]; "x-token-scope"?: string };

describe("token scopes of the documented operations", () => {
  it("names a scope for every operation that is not public, and offers the bearer scheme with it", async () => {
    const document = await buildOpenApiDocument();
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods as Record<string, Operation>).map(([method, op]) => ({
        route: `${method.toUpperCase()} ${path}`,
        ...op,
      })),
    );
    expect(operations.length).toBeGreaterThan(80);
    const scopes: Record<string, string> = {};
    for (const op of operations) {
      if (op.security?.length === 0) {
        expect(op["x-token-scope"], op.route).toBeUndefined();
        continue;
      }
      const scope = op["x-token-scope"];
      expect([...TOKEN_SCOPES, "session"], op.route).toContain(scope);
      scopes[op.route] = scope!;
      expect(op.security, op.route).toEqual(
        scope === "session" ? [{ session: [] }] : [{ session: [] }, { apiToken: [scope] }],
      );
    }
    // Reading is `read`, but for people's own business, admin-only settings and the audit log.
    for (const [route, scope] of Object.entries(scopes)) {
      if (route.startsWith("GET ") && scope !== "read") {
        expect([route, scope]).toSatisfy(
          ([r, s]: [string, string]) =>
            s === "session" ||
            (s === "admin" && (r.startsWith("GET /api/settings/webhooks") || r === "GET /api/audit")),
        );
      }
    }
    expect(scopes).toMatchObject({
      "POST /api/workflows/{id}/run": "run",
      "GET /api/runs/{id}": "read",
      "PUT /api/flows/{id}": "write",
      "POST /api/credentials": "admin",
      "GET /api/workspace/tokens": "session",
      "POST /api/workspace/tokens": "session",
      "DELETE /api/workspace/tokens/{id}": "session",
      "POST /api/workspace/members": "session",
      "POST /api/waits/{id}/decision": "session",
      "PUT /api/auth/password": "session",
    });
    expect(document.components.securitySchemes).toMatchObject({ apiToken: { type: "http", scheme: "bearer" } });
  });
});

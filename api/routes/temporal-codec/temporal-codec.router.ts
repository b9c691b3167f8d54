// /api/temporal-codec: the remote codec of the Temporal Web UI ("Codec Server"): the UI posts the
// payloads it shows ({payloads: [...]}, X-Namespace) to /decode, and those an operator types (to
// start or signal a workflow) to /encode. Only the Temporal UI's origin (TEMPORAL_CODEC_ORIGINS, by
// default TEMPORAL_UI_URL's) gets CORS, with credentials: the UI sends the dashboard's session
// cookie, and without a session nothing is decoded (401; the UI then shows the payloads sealed).
import type { RequestHandler } from "express";
import type { Config } from "../../../lib/config.js";
import { authorize, requireSession } from "../../http/authenticate.middleware.js";
import { createCors } from "../../http/cors.js";
import { createCsrfGuard } from "../../http/csrf.js";
import { HttpError } from "../../http/errors.js";
import { jsonBody } from "../../http/json-body.js";
import { documentedRouter, type ApiDocs } from "../../http/openapi.js";
import { createExactOriginPolicy } from "../../http/origins.js";
import { codecPayloadsSchema } from "./temporal-codec.schema.js";
import type { TemporalCodecService } from "../../../core/engine/temporal-codec.service.js";

/** The largest request: a batch of payloads of up to 2 MB each (Temporal's own limit per payload). */
const BODY_LIMIT = "8mb";

/**
 * What the UI sends: X-Namespace always, Authorization when it is set to pass its own access
 * token (Temporal Cloud's "Pass the user access token"), which the session cookie makes unneeded.
 */
const CODEC_REQUEST_HEADERS = "Content-Type, X-Namespace, Authorization";

type CodecConfig = Pick<Config, "TEMPORAL_UI_URL" | "TEMPORAL_NAMESPACE"> &
  Partial<Pick<Config, "TEMPORAL_CODEC_ORIGINS">>;

/** The pages that may call the codec: TEMPORAL_CODEC_ORIGINS, or the origin of TEMPORAL_UI_URL. */
export function codecOrigins(config: CodecConfig): string[] {
  if (config.TEMPORAL_CODEC_ORIGINS) return config.TEMPORAL_CODEC_ORIGINS;
  return config.TEMPORAL_UI_URL ? [new URL(config.TEMPORAL_UI_URL).origin] : [];
}

export function createTemporalCodecRouter(
  deps: {
    codec: TemporalCodecService;
    /** Resolves the session cookie (api/http/authenticate.middleware.ts). */
    authenticate: RequestHandler;
    config: CodecConfig;
  },
  docs: ApiDocs,
) {
  const { codec, config } = deps;
  const { router, route } = documentedRouter(docs, "/api/temporal-codec", "temporal-codec");
  const temporalUi = createExactOriginPolicy(codecOrigins(config));
  router.use(createCors(temporalUi, { methods: "POST, OPTIONS", headers: CODEC_REQUEST_HEADERS }));
  router.use(createCsrfGuard(temporalUi));
  // The session before the body: only members get to send a large one.
  router.use(deps.authenticate, requireSession);
  router.use((req, res, next) => {
    const namespace = req.get("X-Namespace");
    if (namespace !== undefined && namespace !== config.TEMPORAL_NAMESPACE) {
      throw new HttpError(
        400,
        "namespace_mismatch",
        `This codec serves the namespace ${config.TEMPORAL_NAMESPACE}, not ${namespace.slice(0, 100)}`,
      );
    }
    res.set("Cache-Control", "no-store");
    next();
  });
  router.use(jsonBody({ limit: BODY_LIMIT }));

  route(
    {
      method: "post",
      path: "/decode",
      scope: "session",
      summary:
        "Temporal UI codec: the payloads with those sealed for the service opened, for members of the workspace they belong to",
      body: codecPayloadsSchema,
      responses: {
        200: { description: "The payloads, in order; those not sealed as they came", schema: codecPayloadsSchema },
        400: "Not the codec protocol's body, or another namespace (X-Namespace)",
        403: "A sealed payload belongs to a workspace the caller is not a member of (or to none)",
        422: "A sealed payload does not open: altered, or under a key SVC_ENCRYPTION_KEY lacks (payload_undecodable)",
      },
    },
    async (req, res) => {
      res.json({ payloads: await codec.decode(req.input.auth.user.id, req.input.body.payloads) });
    },
  );

  route(
    {
      method: "post",
      path: "/encode",
      scope: "session",
      summary:
        "Temporal UI codec: payloads an operator wrote (workflow input, signal), sealed for the session's workspace",
      body: codecPayloadsSchema,
      responses: {
        200: { description: "The payloads sealed, in order", schema: codecPayloadsSchema },
        400: "Not the codec protocol's body, or another namespace (X-Namespace)",
        403: "Role below editor (runs:write)",
      },
    },
    authorize("runs:write"),
    async (req, res) => {
      res.json({ payloads: await codec.encode(req.input.workspaceId, req.input.body.payloads) });
    },
  );

  return router;
}

// The OpenAPI 3.1 document, generated from the same zod schemas that validate requests: routes
// are declared through documentedRouter, which registers the handler and its description at once,
// and route() itself parses the declared params, query and body before the handler runs.
// A response schema (or a schema inside one) named with `.meta({ id: "FlowDetail" })` becomes
// components.schemas.FlowDetail, which the dashboard's generated types (web/src/api-types.ts) name.
import { isDeepStrictEqual } from "node:util";
import { Router, type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { z } from "zod";
import { requireCaller } from "./authenticate.middleware.js";
import { requireTokenScope, type Caller } from "./bearer-token.js";
import type { AuthContext } from "../../core/sessions/sessions.service.js";
import type { RouteScope } from "../../core/tokens/token-scopes.js";
import { refuseOperatorSyntax } from "./query-syntax.js";

type Method = "get" | "post" | "put" | "patch" | "delete";

interface RouteSpecBase {
  method: Method;
  /** Express path relative to the router's prefix, e.g. "/:id". */
  path: string;
  summary: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Status → description, or description and body schema (output: what the handler answers). */
  responses: Record<number, string | { description: string; schema: z.ZodType }>;
  /** A request without a body is parsed as `{}` (not documented: the document always requires the body). */
  absentBodyIsEmpty?: boolean;
}

/**
 * Every route says who may call it: `public` (no session), or the `scope` an API token needs
 * (core/tokens/token-scopes.ts), `session` when only a member's session may. The type requires
 * one of them, so no route can leave it out; route() checks a token's scopes before the handler.
 */
export type RouteSpec = RouteSpecBase & ({ public: true; scope?: never } | { public?: false; scope: RouteScope });

export type DocumentedRoute = RouteSpec & {
  tag: string;
  /** OpenAPI path, e.g. /api/flows/{id}. */
  fullPath: string;
};

export const errorBodySchema = z
  .looseObject({ error: z.string(), code: z.string() })
  .meta({ description: "Every error: a message and a machine-readable code; some add fields." });

const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z_]\w*)/g, "{$1}").replace(/\/$/, "") || "/";

export function createApiDocs() {
  const routes: DocumentedRoute[] = [];
  return {
    routes: routes as readonly DocumentedRoute[],
    add(prefix: string, tag: string, spec: RouteSpec) {
      routes.push({ ...spec, tag, fullPath: toOpenApiPath(prefix + spec.path) });
    },
    /** The OpenAPI 3.1 document of every declared route. */
    document: (info: { title: string; version: string; description?: string }) => openApiDocument(routes, info),
  };
}

const jsonSchema = (schema: z.ZodType, io: "input" | "output") =>
  z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as Record<string, unknown>;

/** The JSON schemas of a document's requests and answers, and the named parts the answers hold. */
class DocumentSchemas {
  readonly named: Record<string, Record<string, unknown>> = {};

  /** A request's schema, inline: named schemas are for answers (their input form differs). */
  request(schema: z.ZodType): Record<string, unknown> {
    const json = strip(jsonSchema(schema, "input"));
    if (json.$defs) throw new Error(`A request schema holds named schemas (${Object.keys(json.$defs).join(", ")})`);
    return json;
  }

  /** An answer's schema, its named parts moved to components.schemas. */
  response(schema: z.ZodType): Record<string, unknown> {
    const { $defs, ...json } = strip(jsonSchema(schema, "output")) as { $defs?: Record<string, unknown> };
    for (const [id, def] of Object.entries($defs ?? {})) {
      const component = toComponentRefs(def) as Record<string, unknown>;
      if (this.named[id] && !isDeepStrictEqual(this.named[id], component))
        throw new Error(`Two different schemas are named ${id}`);
      this.named[id] = component;
    }
    return toComponentRefs(json) as Record<string, unknown>;
  }

  /** Sorted, so that the document (and the types generated from it) does not depend on route order. */
  components(): Record<string, Record<string, unknown>> {
    return Object.fromEntries(Object.entries(this.named).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
}

function openApiDocument(
  routes: readonly DocumentedRoute[],
  info: { title: string; version: string; description?: string },
) {
  const schemas = new DocumentSchemas();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) (paths[route.fullPath] ??= {})[route.method] = operationOf(route, schemas);
  return {
    openapi: "3.1.0",
    info,
    components: {
      schemas: schemas.components(),
      securitySchemes: {
        session: { type: "apiKey", in: "cookie", name: "svc_session" },
        apiToken: {
          type: "http",
          scheme: "bearer",
          description: "A workspace API token (svc_pat_…); an operation lists the scope it needs",
        },
      },
    },
    security: [{ session: [] }],
    paths,
  };
}

/** A route's operation: its parameters, body and answers (401 for every route that needs a session). */
function operationOf(route: DocumentedRoute, schemas: DocumentSchemas): Record<string, unknown> {
  const parameters = parametersOf(route, schemas);
  const responses = responsesOf(route, schemas);
  return {
    tags: [route.tag],
    summary: route.summary,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: { "application/json": { schema: schemas.request(route.body) } },
          },
        }
      : {}),
    responses,
    security: route.public ? [] : securityOf(route.scope),
    ...(route.public ? {} : { "x-token-scope": route.scope }),
  };
}

/** A member's session, or an API token holding the route's scope (not for `session` routes). */
function securityOf(scope: RouteScope | undefined) {
  return scope === undefined || scope === "session" ? [{ session: [] }] : [{ session: [] }, { apiToken: [scope] }];
}

function parametersOf(route: DocumentedRoute, schemas: DocumentSchemas) {
  return [
    ...Object.entries(route.params?.shape ?? {}).map(([name, schema]) => ({
      name,
      in: "path",
      required: true,
      schema: schemas.request(schema as z.ZodType),
    })),
    ...Object.entries(route.query?.shape ?? {}).map(([name, schema]) => ({
      name,
      in: "query",
      required: !(schema as z.ZodType).isOptional(),
      schema: schemas.request(schema as z.ZodType),
    })),
  ];
}

/** Each declared answer, errors with the error body unless they name a schema of their own. */
function responsesOf(route: DocumentedRoute, schemas: DocumentSchemas): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(route.responses)) {
    const { description, schema } =
      typeof response === "string" ? { description: response, schema: undefined } : response;
    const body = schema ?? (Number(status) >= 400 ? errorBodySchema : undefined);
    responses[status] = {
      description,
      ...(body ? { content: { "application/json": { schema: schemas.response(body) } } } : {}),
    };
  }
  if (!route.public && !responses["401"]) {
    responses["401"] = {
      description: route.scope === "session" ? "No valid session" : "No valid session or API token",
      content: { "application/json": { schema: strip(jsonSchema(errorBodySchema, "output")) } },
    };
  }
  return responses;
}

/** zod names a schema's parts `#/$defs/<id>`; in the document they are components. */
function toComponentRefs(json: unknown): unknown {
  if (Array.isArray(json)) return json.map(toComponentRefs);
  if (typeof json !== "object" || json === null) return json;
  return Object.fromEntries(
    Object.entries(json).map(([key, value]) => [
      key,
      key === "$ref" && typeof value === "string"
        ? value.replace(/^#\/\$defs\//, "#/components/schemas/")
        : toComponentRefs(value),
    ]),
  );
}

/** Inline schemas carry no $schema keyword. */
function strip(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}

export type ApiDocs = ReturnType<typeof createApiDocs>;

type Parsed<S, K extends "params" | "query" | "body"> = S extends { [P in K]: infer T extends z.ZodType }
  ? z.output<T>
  : undefined;

/** The caller of a route that is not public, resolved once before its handler: a session, or an API token. */
export interface SessionInput<A extends Caller = Caller> {
  auth: A;
  workspaceId: string;
}

/** The part of a route's spec that decides its input. */
export type InputSpec = Pick<RouteSpecBase, "params" | "query" | "body"> & { public?: boolean; scope?: RouteScope };

/** What route() hands the final handler as `req.input`: the parsed values of the declared schemas. */
export type RouteInput<S extends InputSpec> = {
  params: Parsed<S, "params">;
  query: Parsed<S, "query">;
  body: Parsed<S, "body">;
} & (S extends { public: true } ? object : S extends { scope: "session" } ? SessionInput<AuthContext> : SessionInput);

export type RouteHandler<S extends InputSpec> = (
  req: Request & { input: RouteInput<S> },
  res: Response,
  next: NextFunction,
) => unknown;

/**
 * The one place a handler's caller and workspace come from: 401 without a session or token, 403
 * for a token without the route's scope (or on a route for sessions only).
 */
function sessionOf(req: Request, scope: RouteScope | undefined): SessionInput {
  const auth = requireCaller(req);
  requireTokenScope(auth, scope);
  return { auth, workspaceId: auth.workspace.workspaceId };
}

/**
 * Resolves the session (401 first, for routes that are not public), refuses operator syntax in
 * the query (query-syntax.ts), then parses params, query and body in that order; a ZodError goes to the error handler (400 validation_failed). `req.query` is
 * a getter in Express 5, so the parsed values live on `req.input` instead.
 */
function validate(spec: RouteSpec): RequestHandler {
  const declared = new Set(Object.keys(spec.query?.shape ?? {}));
  return (req, _res, next) => {
    const session = spec.public ? undefined : sessionOf(req, spec.scope);
    // Before the values: `flow_id[$ne]=x` is refused, not dropped as an undeclared parameter.
    if (spec.query) refuseOperatorSyntax(req.query, declared);
    const params: unknown = spec.params?.parse(req.params);
    const query: unknown = spec.query?.parse(req.query);
    const body: unknown = spec.body?.parse(spec.absentBodyIsEmpty ? (req.body ?? {}) : req.body);
    (req as Request & { input: unknown }).input = { params, query, body, ...session };
    next();
  };
}

/**
 * A router whose routes are declared with their description: `route(spec, ...handlers)`. The
 * middlewares run first (authorize() answers 403 before a body is looked at); the last handler
 * gets the parsed input as `req.input`.
 * `prefix` is where the router is mounted, for the document's paths.
 */
export function documentedRouter(docs: ApiDocs, prefix: string, tag: string) {
  const router = Router();
  return {
    router,
    route<const S extends RouteSpec>(spec: S, ...handlers: [...RequestHandler[], RouteHandler<NoInfer<S>>]) {
      docs.add(prefix, tag, spec);
      const middlewares = handlers.slice(0, -1) as RequestHandler[];
      const handler = handlers.at(-1) as RequestHandler;
      router[spec.method](spec.path, ...middlewares, validate(spec), handler);
    },
  };
}

/** A documented router's `route`: route groups (named functions of a router) take it to declare theirs. */
export type DeclareRoute = ReturnType<typeof documentedRouter>["route"];

// What a hook does with a request before a run starts: verify the caller, read the body, find the
// dedupe key, and shape the run's input. Pure functions of the request and the trigger's config.
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Request, RequestHandler } from "express";
import { hookTriggerConfig, type HookTriggerConfig } from "../../../core/nodes/http-trigger/http-trigger.node.js";
import { badRequest, HttpError } from "../../http/errors.js";
import { assertUtf8, jsonDeeperThan, jsonTooDeep } from "../../http/json-body.js";
import { assertStorable } from "../../http/storable-text.js";
import { urlMatches } from "../../../core/contracts/host-patterns.js";
import { requestFingerprint } from "../../../lib/request-fingerprint.js";

/** The trigger's checks of a request (method, caller, body), and the run's input and dedupe key. */
export function acceptHookRequest(entryConfig: unknown, req: Request, now: Date) {
  const config = hookTriggerConfig.parse(entryConfig ?? {});
  if (!(config.methods as string[]).includes(req.method === "HEAD" ? "GET" : req.method)) {
    throw new HttpError(
      405,
      "method_not_allowed",
      `This hook accepts ${config.methods.join(", ")}`,
      {},
      {
        Allow: config.methods.join(", "),
      },
    );
  }
  const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  verifyCaller(config.verification, req, raw, now);
  const body = readBody(raw, config.body_type);
  const key = dedupeKeyOf(config.dedupe, req, body);
  // The key replays only this request: its method, path with query, and body as its type reads it.
  const fingerprint =
    key === undefined ? undefined : requestFingerprint({ method: req.method, path: req.originalUrl, body });
  return { config, key, fingerprint, input: runInputOf(req, body, config.verification) };
}

export type AcceptedHookRequest = ReturnType<typeof acceptHookRequest>;

const unauthorized = (message: string) => new HttpError(401, "hook_unauthorized", message);

const sameText = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** Throws 401 unless the request carries the configured shared secret or a valid HMAC signature. */
export function verifyCaller(
  verification: HookTriggerConfig["verification"],
  req: Pick<Request, "get">,
  rawBody: Buffer,
  now: Date,
): void {
  if (verification.type === "none") return;
  const given = req.get(verification.header);
  if (!given) throw unauthorized(`The ${verification.header} header is missing`);
  if (verification.type === "shared_secret") {
    if (!sameText(given, verification.secret)) throw unauthorized(`The ${verification.header} header is wrong`);
    return;
  }
  let signed: Buffer = rawBody;
  if (verification.timestamp_header) {
    const timestamp = req.get(verification.timestamp_header);
    if (!timestamp || !/^\d{1,12}$/.test(timestamp)) {
      throw unauthorized(`The ${verification.timestamp_header} header is missing or not Unix seconds`);
    }
    if (Math.abs(now.getTime() / 1000 - Number(timestamp)) > verification.tolerance_seconds) {
      throw unauthorized(`The signature's timestamp is outside the ${verification.tolerance_seconds} s tolerance`);
    }
    signed = Buffer.concat([Buffer.from(`${timestamp}.`), rawBody]);
  }
  const digest = createHmac("sha256", verification.secret).update(signed).digest(verification.encoding);
  if (!sameText(given, `${verification.prefix}${digest}`)) throw unauthorized("The signature does not match the body");
}

/**
 * The body as the trigger's body type reads it; 400 when it is not UTF-8 (each type reads it so),
 * does not parse or nests too deep.
 */
export function readBody(rawBody: Buffer, bodyType: HookTriggerConfig["body_type"]): unknown {
  assertUtf8(rawBody);
  const text = rawBody.toString("utf8");
  if (bodyType === "text") return text;
  if (bodyType === "form") return Object.fromEntries(new URLSearchParams(text));
  if (text.trim() === "") return null;
  if (jsonDeeperThan(rawBody)) throw jsonTooDeep();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, "invalid_json", "Request body is not valid JSON");
  }
}

/** The dedupe key: the configured header, else the value at the body path; undefined when neither. */
export function dedupeKeyOf(
  dedupe: HookTriggerConfig["dedupe"],
  req: Pick<Request, "get">,
  body: unknown,
): string | undefined {
  let key: unknown = req.get(dedupe.header);
  if (key === undefined && dedupe.body_path) {
    key = dedupe.body_path
      .split(".")
      .reduce<unknown>(
        (value, part) =>
          value !== null && typeof value === "object" && Object.hasOwn(value, part)
            ? (value as Record<string, unknown>)[part]
            : undefined,
        body,
      );
  }
  if (key === undefined || key === null || key === "") return undefined;
  const text = String(key);
  if (!/^[\x21-\x7e]{1,200}$/.test(text)) {
    throw badRequest("The dedupe key must be 1 to 200 printable ASCII characters without spaces");
  }
  return text;
}

const HIDDEN_HEADERS = new Set(["cookie", "authorization", "proxy-authorization"]);

/** The run's input: the request, minus credentials and the verification headers; 400 for text PostgreSQL cannot store. */
export function runInputOf(
  req: Pick<Request, "method" | "headers" | "query">,
  body: unknown,
  verification: HookTriggerConfig["verification"],
): Record<string, unknown> {
  // The input is stored in PostgreSQL's jsonb, which holds no NUL character.
  assertStorable(body, "body");
  assertStorable(req.query, "query");
  const hidden = new Set(HIDDEN_HEADERS);
  if (verification.type !== "none") hidden.add(verification.header.toLowerCase());
  const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !hidden.has(name)));
  return { method: req.method, headers, query: req.query, body };
}

/**
 * Headers on every answer of a hook, whatever the flow chose: the answer is a document of no
 * origin (`sandbox`: no scripts, no forms, no plugins, no same-origin access), loads nothing, submits
 * nowhere, cannot be framed, and is never sniffed into another type. A hook answer is the flow's
 * content served from the service's own origin: it must not be able to act as one of its pages.
 */
export const HOOK_ANSWER_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy": "sandbox; default-src 'none'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
};

/** Puts HOOK_ANSWER_HEADERS on the answer before anything else runs, errors included. */
export const sandboxHookAnswers: RequestHandler = (_req, res, next) => {
  res.set(HOOK_ANSWER_HEADERS);
  next();
};

/**
 * Response headers a flow may set on a sync answer, by name: what describes the body and how long
 * it may be kept, and Location within the redirect rules (refusedLocation). Everything else is
 * the server's or a proxy's to decide: a proxy in front of us acts on X-Accel-Redirect, X-Sendfile,
 * X-Original-URL and their kind, a browser on Set-Cookie, CORS and security headers. Left out on
 * purpose: Content-Disposition (a file name of the flow's choosing, downloaded from our origin)
 * and Link (preloads and preconnects to other hosts).
 */
const FLOW_ANSWER_HEADERS = new Set([
  "content-type",
  "content-language",
  "cache-control",
  "expires",
  "etag",
  "last-modified",
  "vary",
  "retry-after",
  "location",
]);
/** The one prefix of a flow's own headers: `X-Flow-Order`. No proxy or browser acts on it. */
export const FLOW_HEADER_PREFIX = "X-Flow-";
const FLOW_OWN_HEADER = /^x-flow-[a-z0-9][a-z0-9-]{0,63}$/i;
const flowMaySet = (name: string) => FLOW_ANSWER_HEADERS.has(name.toLowerCase()) || FLOW_OWN_HEADER.test(name);
/** A header value a flow may send: printable ASCII (no line break to start another header), bounded. */
const sendableValue = (value: unknown): value is string =>
  typeof value === "string" && /^[\x20-\x7e]{0,1000}$/.test(value);
/** How many dropped names an answer reports, each cut to at most this many characters. */
const DROPPED_NAMES_SHOWN = 20;
const DROPPED_NAME_CHARS = 100;

/** Where relative locations resolve: any location that resolves elsewhere names another origin. */
const OWN_ORIGIN = "https://hook.invalid";

/**
 * The Location of a flow's answer when it may not be sent: neither relative (a path, a query; not
 * `//host` nor `/\host`, which browsers read as another host) nor an http(s) URL of a host and
 * port the trigger's `redirect_hosts` names. Undefined when there is none or it may be sent.
 */
export function refusedLocation(
  headers: Record<string, string>,
  redirectHosts: readonly string[] = [],
): string | undefined {
  // Every spelling of the name: whichever Express sets last is the one sent.
  const locations = Object.entries(headers).filter(([name]) => name.toLowerCase() === "location");
  return locations.map(([, location]) => location).find((location) => !locationAllowed(location, redirectHosts));
}

function locationAllowed(location: string, redirectHosts: readonly string[]): boolean {
  if (!URL.canParse(location, OWN_ORIGIN)) return false;
  const target = new URL(location, OWN_ORIGIN);
  if (target.origin === OWN_ORIGIN && !/^\s*[a-z][a-z0-9+.-]*:/i.test(location)) return true;
  return (target.protocol === "https:" || target.protocol === "http:") && urlMatches(target, redirectHosts);
}

/** The sync answer chosen by the flow: its status, body and the headers it may send. */
export interface FlowAnswer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
  /** The names of the headers the flow set that are not sent (its author is told, not the caller). */
  dropped: string[];
}

/**
 * The sync answer chosen by the flow (trigger `response: "output"`): an output of the form
 * {status_code, body, headers?} gives the status, body and allowed headers; any other output is
 * the body of a 200.
 */
export function flowResponseOf(output: unknown): FlowAnswer {
  const shaped =
    typeof output === "object" &&
    output !== null &&
    Number.isInteger((output as { status_code?: unknown }).status_code) &&
    ((output as { status_code: number }).status_code as number) >= 200 &&
    ((output as { status_code: number }).status_code as number) <= 599;
  if (!shaped) return { status: 200, body: output ?? null, headers: {}, dropped: [] };
  const { status_code, body, headers } = output as { status_code: number; body?: unknown; headers?: unknown };
  const allowed: Record<string, string> = {};
  const dropped: string[] = [];
  if (typeof headers === "object" && headers !== null) {
    for (const [name, value] of Object.entries(headers)) {
      if (flowMaySet(name) && sendableValue(value)) allowed[name] = value;
      else dropped.push(name);
    }
  }
  return { status: status_code, body: body ?? null, headers: allowed, dropped };
}

/** The names of dropped headers as a log entry shows them: the first 20, each cut to 100 characters. */
export const droppedNamesShown = (dropped: readonly string[]): string[] =>
  dropped.slice(0, DROPPED_NAMES_SHOWN).map((name) => name.slice(0, DROPPED_NAME_CHARS));

import { z } from "zod";
import { pageQueryFields } from "../../http/cursor.js";
import { EVENT_TYPES } from "../../../lib/events.js";

export const endpointIdSchema = z
  .string()
  .regex(/^whe_[0-9a-f]{24}$/, { message: "must be a webhook endpoint id (whe_…)" });
export const deliveryIdSchema = z.string().regex(/^whd_[0-9a-f]{24}$/, { message: "must be a delivery id (whd_…)" });

const url = z
  .string()
  .trim()
  .max(2048)
  .refine((value) => URL.canParse(value), { message: "must be an absolute URL" })
  .refine((value) => !URL.canParse(value) || ["http:", "https:"].includes(new URL(value).protocol), {
    message: "must be an http or https URL",
  })
  .refine((value) => !URL.canParse(value) || (!new URL(value).username && !new URL(value).password), {
    message: "must not carry credentials",
  });

const events = z
  .array(z.enum(EVENT_TYPES))
  .min(1)
  .refine((list) => new Set(list).size === list.length, { message: "must not repeat an event" });

export const createEndpointSchema = z.strictObject({
  url,
  events: events.default([...EVENT_TYPES]),
  enabled: z.boolean().default(true),
  description: z.string().max(500).optional(),
});

export const updateEndpointSchema = z.strictObject({
  url: url.optional(),
  events: events.optional(),
  enabled: z.boolean().optional(),
  description: z.string().max(500).nullable().optional(),
});

/** GET /api/webhooks: in the order they were created. */
export const listEndpointsQuerySchema = z.object({ ...pageQueryFields() });

export const listDeliveriesQuerySchema = z.object({
  status: z.enum(["pending", "succeeded", "failed"]).optional(),
  ...pageQueryFields(),
});

/** An endpoint as the API shows it. */
export const endpointViewSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    enabled: z.boolean(),
    description: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "WebhookEndpoint" });

/** POST /api/settings/webhooks: the endpoint, and the workspace's secret when this call generated it. */
export const endpointCreatedSchema = endpointViewSchema.extend({
  secret: z
    .string()
    .optional()
    .meta({ description: "The signing secret, when the first endpoint generated it: shown this once" }),
});

/** GET /api/settings/webhooks: a page of endpoints and the secret's dates (null: no secret yet). */
export const endpointsPageSchema = z.object({
  items: z.array(endpointViewSchema),
  next_cursor: z.string().nullable(),
  secret: z.object({ created_at: z.string(), rotated_at: z.string().nullable() }).nullable(),
});

export const secretRotatedSchema = z.object({
  secret: z.string().meta({ description: "The new signing secret, shown this once" }),
  previous_secret_expires_at: z
    .string()
    .nullable()
    .meta({ description: "Until when the previous secret keeps signing; null when there was none" }),
});

/** A delivery of an event to an endpoint, with its attempts. */
export const deliveryViewSchema = z
  .object({
    id: z.string(),
    endpoint_id: z.string(),
    event: z.string(),
    status: z.string().meta({ description: "pending, succeeded or failed" }),
    attempts: z.number().int(),
    next_attempt_at: z.string().nullable(),
    redelivery_of: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    payload: z.unknown().meta({ description: "The event as sent" }),
    attempt_log: z.array(
      z.object({
        number: z.number().int(),
        started_at: z.string(),
        duration_ms: z.number(),
        status_code: z.number().int().nullable(),
        error: z.string().nullable(),
        response_excerpt: z.string().nullable(),
      }),
    ),
  })
  .meta({ id: "WebhookDelivery" });

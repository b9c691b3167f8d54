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

export type CreateEndpointInput = z.infer<typeof createEndpointSchema>;
export type UpdateEndpointInput = z.infer<typeof updateEndpointSchema>;

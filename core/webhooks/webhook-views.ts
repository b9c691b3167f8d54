// Webhook endpoints and deliveries as the API shows them.

type EndpointRow = {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  description: string | null;
  createdAt: Date;
  updatedAt: Date;
};

export const endpointView = (row: EndpointRow) => ({
  id: row.id,
  url: row.url,
  events: row.events,
  enabled: row.enabled,
  description: row.description,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

type DeliveryRow = {
  id: string;
  endpointId: string;
  event: string;
  status: string;
  attempts: number;
  nextAttemptAt: Date | null;
  redeliveryOf: string | null;
  createdAt: Date;
  updatedAt: Date;
  body: string;
  attemptLog: Array<{
    number: number;
    startedAt: Date;
    durationMs: number;
    statusCode: number | null;
    error: string | null;
    responseExcerpt: string | null;
  }>;
};

export const deliveryView = (row: DeliveryRow) => ({
  id: row.id,
  endpoint_id: row.endpointId,
  event: row.event,
  status: row.status,
  attempts: row.attempts,
  next_attempt_at: row.nextAttemptAt?.toISOString() ?? null,
  redelivery_of: row.redeliveryOf,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
  payload: JSON.parse(row.body) as unknown,
  attempt_log: row.attemptLog.map((a) => ({
    number: a.number,
    started_at: a.startedAt.toISOString(),
    duration_ms: a.durationMs,
    status_code: a.statusCode,
    error: a.error,
    response_excerpt: a.responseExcerpt,
  })),
});

import { z } from 'zod'

/** The webhook admin API's answers as its OpenAPI document states them (docs/bridge/webhooks.md, docs/openapi.md). */

const maybe = z.string().nullable()
/** ISO 8601. */
const time = z.string()

export const EventTypes = z.looseObject({
    event_types: z.array(z.looseObject({ name: z.string(), meaning: z.string(), spec: z.boolean() })),
    filters: z.string(),
}).meta({ id: 'WebhookEventTypes' })

export const Subscription = z.looseObject({
    id: z.string(),
    url: z.string(),
    event_types: z.array(z.string()).nullable(),
    description: z.string(),
    method: z.enum(['POST', 'PUT', 'PATCH']),
    active: z.boolean(),
    failure_count: z.number().int(),
    failed_events: z.number().int(),
    failing_since: maybe,
    last_success_at: maybe,
    last_failure_at: maybe,
    disabled_at: maybe,
    disabled_reason: maybe,
    previous_secret_expires_at: maybe,
    created_at: time,
    updated_at: time,
}).meta({ id: 'WebhookSubscription' })

/** The only answers that show a secret: creation and rotation. */
export const CreatedSubscription = Subscription.extend({ secret: z.string() }).meta({ id: 'WebhookSubscriptionWithSecret' })

export const SubscriptionList = z.looseObject({ items: z.array(Subscription) })

export const SubscriptionDetail = Subscription.extend({
    deliveries: z.looseObject({ pending: z.number().int(), delivered: z.number().int(), undelivered: z.number().int() }),
}).meta({ id: 'WebhookSubscriptionDetail' })

export const Deleted = z.looseObject({ id: z.string(), deleted: z.literal(true), queued_deliveries_removed: z.number().int() })

export const RotatedSecret = z.looseObject({ id: z.string(), secret: z.string(), previous_secret_expires_at: maybe })

export const TestResult = z.looseObject({
    delivered: z.boolean(),
    /** 0 when no HTTP answer came. */
    status: z.number().int(),
    error: maybe,
    event_id: z.string(),
    delivery_id: z.string(),
})

const Delivery = z.looseObject({
    id: z.string(),
    event_id: z.string(),
    event: z.string(),
    /** null for a test_ping. */
    swap_id: maybe,
    state: z.enum(['pending', 'delivered', 'undelivered']),
    attempts: z.number().int(),
    last_status: z.number().int().nullable(),
    last_error: maybe,
    last_attempt_at: maybe,
    next_attempt_at: maybe,
    in_flight: z.boolean(),
    delivered_at: maybe,
    created_at: time,
    history: z.array(z.looseObject({
        attempt: z.number().int(),
        started_at: time,
        duration_ms: z.number().int(),
        status: z.number().int().nullable(),
        error: maybe,
        next_attempt_at: maybe,
        retry_in_ms: z.number().int().nullable(),
    })),
})

export const DeliveryHistory = z.looseObject({
    items: z.array(Delivery),
    next_page_params: z.looseObject({ before: z.string() }).nullable(),
}).meta({ id: 'WebhookDeliveryHistory' })

export const Retried = z.looseObject({
    event_id: z.string(),
    redriven: z.array(z.string()),
    skipped: z.array(z.looseObject({ delivery_id: z.string(), subscription_id: z.string(), reason: z.string() })),
})

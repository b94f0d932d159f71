import { Request } from 'express'
import { z } from 'zod'
import { Answer, ApiDoc, DocumentedRouter, Operation } from '../../common/service/api-doc'
import { HttpError } from '../../common/service/http-error'
import { bridgeErrorSchema, invalidInput } from '../http/errors'
import { adminAuth } from './auth'
import { EVENT_TYPES, FilterError, parseEventTypes } from './catalogue'
import { deliveryHistory } from './history'
import { Webhooks } from './service'
import * as answers from './schemas'
import { Subscription } from './store'
import { parseTargetUrl, resolveTarget, TargetRefused } from '../../common/url-safety'

/**
 * Webhook management under /api/webhook. GET /event-types is public; every other route
 * needs the admin bearer token (auth.ts). Bodies are validated with zod: unknown fields, bad types,
 * unsafe URLs and unknown event types are 400s naming the field.
 */

// No regex flags: the pattern goes into the OpenAPI document as it is written.
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/
const SubscriptionParams = z.object({ id: z.string().regex(UUID, 'must be a subscription id (a UUID)') })
const EventParams = z.object({ eventId: z.string().regex(UUID, 'must be an event id (a UUID, the event_id of a delivery)') })
const MAX_GRACE_SECONDS = 7 * 86_400

const eventTypes = z.array(z.string().max(64, 'each entry must be at most 64 characters'), { error: 'must be an array of event names' })
    .min(1, 'must not be empty (omit it, or send null, for every event)')
    .max(100, 'must list at most 100 entries')
    .nullable()
const fields = {
    url: z.string({ error: 'must be a string' }).trim().min(1, 'must not be empty').max(2048, 'must be at most 2048 characters'),
    event_types: eventTypes,
    description: z.string({ error: 'must be a string' }).trim().max(500, 'must be at most 500 characters')
        .refine((d) => !d.includes('\u0000'), 'must not contain NUL characters'),
    method: z.enum(['POST', 'PUT', 'PATCH'], { error: 'must be POST, PUT or PATCH' }),
    active: z.boolean({ error: 'must be true or false' }),
}
const CreateBody = z.strictObject({
    url: fields.url,
    event_types: fields.event_types.optional(),
    description: fields.description.optional(),
    method: fields.method.optional(),
    active: fields.active.optional(),
})
const PatchBody = z.strictObject({
    url: fields.url.optional(),
    event_types: fields.event_types.optional(),
    description: fields.description.optional(),
    method: fields.method.optional(),
    active: fields.active.optional(),
})
const RotateBody = z.strictObject({
    grace_seconds: z.number({ error: 'must be a number of seconds' }).int('must be a whole number of seconds').min(0, 'must be 0 or more')
        .max(MAX_GRACE_SECONDS, `must be at most ${MAX_GRACE_SECONDS} (7 days)`).optional(),
})
const HistoryQuery = z.object({
    failed: z.enum(['true', 'false'], { error: 'must be true or false' }).optional(),
    limit: z.string().regex(/^\d{1,3}$/, 'must be a number from 1 to 200').transform(Number)
        .refine((n) => n >= 1 && n <= 200, 'must be a number from 1 to 200').optional(),
    before: z.string().regex(/^\d{1,18}$/, 'must be the value of next_page_params.before').optional(),
})

/** The request's JSON body as `schema` reads it; a 400 naming the first wrong field. */
function bodyOf<S extends z.ZodType>(schema: S, req: Request, optional = false): z.infer<S> {
    const parsed = schema.safeParse(jsonBody(req, optional))
    if (!parsed.success) throw invalidInput(parsed.error)
    return parsed.data
}

function jsonBody(req: Request, optional = false): Record<string, unknown> {
    const empty = req.body === undefined && (req.get('content-length') ?? '0') === '0' && !req.get('transfer-encoding')
    if (optional && empty) return {}
    if (!req.is('application/json')) throw new HttpError(415, 'send the body as JSON with Content-Type: application/json', { code: 'unsupported_media_type', details: { field: 'body' } })
    if (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) throw new HttpError(400, 'body: must be a JSON object', { code: 'invalid_request', details: { field: 'body' } })
    return req.body
}

function filters(list: string[] | null | undefined): string[] | null | undefined {
    if (list === undefined || list === null) return list
    try {
        return parseEventTypes(list)
    } catch (err) {
        if (err instanceof FilterError) throw new HttpError(400, `event_types: ${err.message}`, { code: 'invalid_request', details: { field: 'event_types' } })
        throw err
    }
}

const iso = (d: Date | null) => d?.toISOString() ?? null

export function subscriptionView(s: Subscription) {
    return {
        id: s.id,
        url: s.url,
        event_types: s.eventTypes,
        description: s.description,
        method: s.method,
        active: s.active,
        failure_count: s.failureCount,
        failed_events: s.failedEvents,
        failing_since: iso(s.failingSince),
        last_success_at: iso(s.lastSuccessAt),
        last_failure_at: iso(s.lastFailureAt),
        disabled_at: iso(s.disabledAt),
        disabled_reason: s.disabledReason,
        previous_secret_expires_at: iso(s.previousSecretExpiresAt),
        created_at: iso(s.createdAt),
        updated_at: iso(s.updatedAt),
    }
}

/** The security scheme of every route but the catalogue (auth.ts). */
const ADMIN_TOKEN = 'webhookAdminToken'

/** What the admin token check (auth.ts) may answer on any route behind it. */
const adminAnswers: Record<number, Answer | string> = {
    401: {
        description: 'No admin token, or a wrong one (unauthorized)',
        schema: bridgeErrorSchema,
        headers: z.object({ 'WWW-Authenticate': z.string() }),
    },
    429: {
        description: '20 wrong tokens from this IP within 15 minutes (rate_limited)',
        schema: bridgeErrorSchema,
        headers: z.object({ 'Retry-After': z.string() }),
    },
    503: 'Webhook management is off: BRIDGE_ADMIN_TOKEN is not set (not_configured)',
}
/** Any POST or PATCH: the JSON parser in front of every /api route (bridge/http/app.ts). */
const tooLarge = 'The body is larger than 16 kB (payload_too_large)'
/** What a route reading a JSON body (jsonBody) may answer besides its own 400s. */
const bodyAnswers: Record<number, Answer | string> = {
    413: tooLarge,
    415: 'The body is not sent as application/json (unsupported_media_type)',
}

/** A route behind the admin token. */
const admin = (op: Operation): Operation => ({ ...op, security: [ADMIN_TOKEN], responses: { ...op.responses, ...adminAnswers } })

/** A route behind the admin token on one subscription (:id), which subscriptionOf reads first. */
const onSubscription = (op: Omit<Operation, 'params'>): Operation => admin({
    ...op,
    params: SubscriptionParams,
    responses: { 400: 'id is not a UUID (invalid_request, field id)', 404: 'No webhook subscription with this id (not_found)', ...op.responses },
})

const badUrl = ', or the url is refused (url_not_allowed: a non-public address; url_unresolvable: no DNS answer)'

export function webhookRoutes(webhooks: Webhooks, doc: ApiDoc): DocumentedRouter {
    const router = doc.router('/api/webhook', 'Webhook admin')
    doc.securityScheme(ADMIN_TOKEN, { type: 'http', scheme: 'bearer', bearerFormat: 'BRIDGE_ADMIN_TOKEN' })
    const { store, dispatcher } = webhooks

    router.get('/event-types', {
        operationId: 'listWebhookEventTypes',
        summary: 'The event catalogue and the filter rules (public)',
        responses: { 200: { description: 'The event types', schema: answers.EventTypes } },
    }, (_req, res) => {
        res.json({
            event_types: EVENT_TYPES,
            filters: 'event_types omitted or null: every event except test_ping; an entry ending in * matches every event starting with the part before it',
        })
    })

    router.use(adminAuth(webhooks.pool, webhooks.adminToken))
    router.use((_req, res, next) => {
        res.set('Cache-Control', 'no-store')
        next()
    })

    /** The URL rule, checked again here because DNS may have changed since registration as well. */
    const checkUrl = async (raw: string): Promise<string> => {
        try {
            const url = parseTargetUrl(raw)
            await resolveTarget(url, { allowPrivate: webhooks.config.allowPrivateTargets })
            return url.toString()
        } catch (err) {
            if (!(err instanceof TargetRefused)) throw err
            const code = err.kind === 'blocked_address' ? 'url_not_allowed' : err.kind === 'dns' ? 'url_unresolvable' : 'invalid_request'
            throw new HttpError(400, `url: ${err.message}`, { code, details: { field: 'url' } })
        }
    }

    const subscriptionOf = async (params: unknown): Promise<Subscription> => {
        const parsed = SubscriptionParams.safeParse(params)
        if (!parsed.success) throw invalidInput(parsed.error)
        const subscription = await store.get(parsed.data.id.toLowerCase())
        if (!subscription) throw new HttpError(404, 'no webhook subscription with this id', { code: 'not_found' })
        return subscription
    }

    router.post('/subscriptions', admin({
        operationId: 'createWebhookSubscription',
        summary: 'Register an endpoint; the answer shows its signing secret, once',
        body: CreateBody,
        responses: {
            201: { description: 'The subscription and its secret', schema: answers.CreatedSubscription, headers: z.object({ Location: z.string() }) },
            400: `A field is missing or wrong (invalid_request, with field), the body is not JSON (invalid_json) or not an object${badUrl}`,
            ...bodyAnswers,
        },
    }), async (req, res) => {
        const b = bodyOf(CreateBody, req)
        const eventTypes = filters(b.event_types) ?? null
        const url = await checkUrl(b.url)
        const { subscription, secret } = await store.create({
            url, eventTypes, description: b.description ?? '', method: b.method ?? 'POST', active: b.active ?? true,
        })
        res.status(201).location(`/api/webhook/subscriptions/${subscription.id}`).json({ ...subscriptionView(subscription), secret })
    })

    router.get('/subscriptions', admin({
        operationId: 'listWebhookSubscriptions',
        summary: 'Every subscription, oldest first (never a secret)',
        responses: { 200: { description: 'The subscriptions', schema: answers.SubscriptionList } },
    }), async (_req, res) => {
        res.json({ items: (await store.list()).map(subscriptionView) })
    })

    router.get('/subscriptions/:id', onSubscription({
        operationId: 'getWebhookSubscription',
        summary: 'One subscription and the count of its deliveries by state',
        responses: { 200: { description: 'The subscription', schema: answers.SubscriptionDetail } },
    }), async (req, res) => {
        const subscription = await subscriptionOf(req.params)
        res.json({ ...subscriptionView(subscription), deliveries: await store.deliveryCounts(subscription.id) })
    })

    router.patch('/subscriptions/:id', onSubscription({
        operationId: 'updateWebhookSubscription',
        summary: 'Change the fields sent; active: true also clears the failure counters and the disable reason',
        body: PatchBody,
        responses: {
            200: { description: 'The subscription', schema: answers.Subscription },
            400: `The id is not a UUID, a field is wrong (invalid_request, with field), no field is sent, the body is not JSON (invalid_json) or not an object${badUrl}`,
            ...bodyAnswers,
        },
    }), async (req, res) => {
        const { id } = await subscriptionOf(req.params)
        const b = bodyOf(PatchBody, req)
        if (Object.keys(b).length === 0) throw new HttpError(400, 'body: send at least one of url, event_types, description, method, active', { code: 'invalid_request', details: { field: 'body' } })
        const updated = await store.update(id, {
            url: b.url === undefined ? undefined : await checkUrl(b.url),
            eventTypes: b.event_types === undefined ? undefined : filters(b.event_types) ?? null,
            description: b.description,
            method: b.method,
            active: b.active,
        })
        if (!updated) throw new HttpError(404, 'no webhook subscription with this id', { code: 'not_found' })
        // Its queued deliveries are due again on every replica.
        if (b.active === true) await dispatcher.notify()
        res.json(subscriptionView(updated))
    })

    router.delete('/subscriptions/:id', onSubscription({
        operationId: 'deleteWebhookSubscription',
        summary: 'Remove a subscription, its secrets, its queued deliveries and its history',
        responses: { 200: { description: 'Removed', schema: answers.Deleted } },
    }), async (req, res) => {
        const { id } = await subscriptionOf(req.params)
        const removed = await store.remove(id)
        if (!removed) throw new HttpError(404, 'no webhook subscription with this id', { code: 'not_found' })
        res.json({ id, deleted: true, queued_deliveries_removed: removed.queued })
    })

    router.post('/subscriptions/:id/rotate-secret', onSubscription({
        operationId: 'rotateWebhookSecret',
        summary: 'A new signing secret; the old one keeps signing for grace_seconds (default 86400)',
        description: 'Without a body (no body, no Content-Type) the default grace applies.',
        body: RotateBody,
        bodyOptional: true,
        responses: {
            200: { description: 'The new secret', schema: answers.RotatedSecret },
            400: 'The id is not a UUID, grace_seconds is wrong (invalid_request, with field), or the body is not JSON (invalid_json) or not an object',
            ...bodyAnswers,
        },
    }), async (req, res) => {
        const { id } = await subscriptionOf(req.params)
        const { grace_seconds: grace } = bodyOf(RotateBody, req, true)
        const graceMs = grace === undefined ? webhooks.defaultGraceMs : grace * 1000 * webhooks.config.timeScale
        const rotated = await store.rotate(id, graceMs)
        if (!rotated) throw new HttpError(404, 'no webhook subscription with this id', { code: 'not_found' })
        res.json({ id, secret: rotated.secret, previous_secret_expires_at: iso(rotated.subscription.previousSecretExpiresAt) })
    })

    router.post('/subscriptions/:id/test', onSubscription({
        operationId: 'testWebhookSubscription',
        summary: 'Send one signed test_ping now and tell how the endpoint answered',
        responses: { 200: { description: 'The attempt (delivered or not)', schema: answers.TestResult }, 413: tooLarge },
    }), async (req, res) => {
        const subscription = await subscriptionOf(req.params)
        res.json(await dispatcher.sendTest(subscription))
    })

    router.get('/subscriptions/:id/deliveries', onSubscription({
        operationId: 'listWebhookDeliveries',
        summary: 'The subscription\'s deliveries with every attempt, newest first',
        query: HistoryQuery,
        responses: {
            200: { description: 'A page of deliveries', schema: answers.DeliveryHistory },
            400: 'The id is not a UUID or a query parameter is wrong (invalid_request, with field)',
        },
    }), async (req, res) => {
        const { id } = await subscriptionOf(req.params)
        const parsed = HistoryQuery.safeParse(req.query)
        if (!parsed.success) throw invalidInput(parsed.error)
        res.json(await deliveryHistory(webhooks.pool, {
            subscriptionId: id, failedOnly: parsed.data.failed === 'true', limit: parsed.data.limit ?? 50, before: parsed.data.before,
        }))
    })

    router.post('/retry/:eventId', admin({
        operationId: 'retryWebhookEvent',
        summary: 'Make every undelivered delivery of an event due now, on every replica',
        params: EventParams,
        responses: {
            200: { description: 'Nothing was re-driven (see skipped)', schema: answers.Retried },
            202: { description: 'Deliveries were re-driven', schema: answers.Retried },
            400: 'eventId is not a UUID (invalid_request, field eventId)',
            404: 'No webhook event with this id (not_found)',
            413: tooLarge,
        },
    }), async (req, res) => {
        const parsed = EventParams.safeParse(req.params)
        if (!parsed.success) throw invalidInput(parsed.error)
        const eventId = parsed.data.eventId.toLowerCase()
        const result = await dispatcher.retry(eventId)
        if (!result) throw new HttpError(404, 'no webhook event with this id', { code: 'not_found' })
        res.status(result.redriven.length > 0 ? 202 : 200).json({ event_id: eventId, redriven: result.redriven, skipped: result.skipped })
    })

    return router
}

import { randomUUID } from 'crypto'
import { z } from 'zod'
import { ApiDoc, DocumentedRouter, Operation } from '../../common/service/api-doc'
import { clientKey } from '../../common/service/client-ip'
import { HttpError } from '../../common/service/http-error'
import { Idempotency, withIdempotencyKey } from '../../common/service/idempotency'
import { RateLimit } from '../../common/service/rate-limit'
import { numberToDecimal } from '../amounts'
import { EngineContext } from '../engine/context'
import { createSwap } from '../engine/create'
import { eventsOf } from '../store/events'
import { lateDepositsOf } from '../store/late-deposits'
import { loadSwap, Swap as LoadedSwap } from '../store/swaps'
import { bridgeErrorSchema, invalidInput } from './errors'
import { pairFields, text } from './pair'
import { swapFieldEnums } from './request-doc'
import { Swap, SwapEvents, SwapStatus, SwapWithLateDeposits, Usage } from './schemas'
import { detailView, eventView, lateDepositView, statusView } from './serialize'
import { usage } from './usage'

/** POST /api/swap, GET /api/swap (usage), /api/swap/:id, /:id/status, /:id/events. */

/** A positive amount of whole tokens: a JSON number or a decimal string, as a decimal string. */
const amount = () => z.union([
    z.number().finite().transform((n, c) => {
        if (n <= 0) {
            c.addIssue({ code: 'custom', message: 'must be greater than 0' })
            return z.NEVER
        }
        return numberToDecimal(n)
    }),
    z.string().trim().regex(/^\d+(\.\d+)?$/, 'must be a positive decimal number'),
], { error: 'must be a positive number' })

const CreateBody = z.strictObject({
    ...pairFields,
    // A JSON number, as clients send it; a decimal string is accepted too (exact for 18-decimal tokens).
    source_token_amount: amount(),
    target_wallet: text(128),
    refund_address: z.union([z.literal('').transform(() => null), text(128), z.null()]).optional(),
    // Whole target tokens; the token's decimals are checked once the route is known (create.ts).
    min_target_amount: amount().optional(),
})

// No regex flags: the pattern goes into the OpenAPI document as it is written.
export const SwapParams = z.object({
    id: z.string().regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'must be a swap id (a UUID)'),
})

const rateLimitHeaders = {
    'RateLimit-Limit': z.string(),
    'RateLimit-Remaining': z.string(),
    'RateLimit-Reset': z.string(),
    'RateLimit-Policy': z.string(),
}

/** A read of one swap: its id checked, never cached. */
const swapRead = (operationId: string, summary: string, answer: string, schema: z.ZodType): Operation => ({
    operationId,
    summary,
    params: SwapParams,
    responses: {
        200: { description: answer, schema, headers: z.object({ 'Cache-Control': z.literal('no-store') }) },
        400: 'id is not a UUID (invalid_request, field id)',
        404: 'No swap with this id (not_found)',
    },
})

export function swapRoutes(ctx: EngineContext, doc: ApiDoc): DocumentedRouter {
    const router = doc.router('/api', 'Swaps')
    // Each swap takes a deposit key and a watched address: creation is limited per IP.
    const { points, windowSeconds } = ctx.config.createLimit
    const limit = new RateLimit(ctx.pool, 'bridge_rate_limit', { name: 'create', points, windowSeconds },
        (seconds) => `too many swaps created; try again in ${seconds} seconds`)

    router.get('/swap', {
        operationId: 'describeSwapCreation',
        summary: 'How to create and follow a swap: the body\'s fields, an example, the rules for senders',
        responses: { 200: { description: 'Usage help', schema: Usage } },
    }, (_req, res) => {
        res.json(usage(ctx))
    })

    // Idempotency-Key: scoped per client (the rate limit's key); a retry gets the same swap (docs/bridge/lifecycle.md).
    // The swap id is chosen and noted on the key before the swap is written: a retry after a crash answers that swap, never a second one.
    const idempotency = new Idempotency(ctx.pool, ctx.locks, {
        surface: 'bridge',
        log: ctx.log,
        recover: async (ids) => {
            for (const id of ids) {
                const swap = await loadSwap(ctx.pool, id)
                if (swap) return { status: 201, body: detailView(swap), headers: { location: `/api/swap/${swap.id}` } }
            }
            return undefined
        },
    })
    // Keys past their 24 h are swept here too, so a deployment without the wallet platform keeps none for ever (the timer does not hold the process open).
    idempotency.start(60 * 60_000)
    router.post('/swap', withIdempotencyKey({
        operationId: 'createSwap',
        summary: 'Create a swap: its deposit address and deadline',
        description: 'Rate-limited per client IP (BRIDGE_CREATE_LIMIT per BRIDGE_CREATE_LIMIT_WINDOW_SECONDS). docs/bridge/lifecycle.md',
        body: CreateBody,
        enums: swapFieldEnums(ctx.config),
        responses: {
            201: {
                description: 'The swap',
                schema: Swap,
                headers: z.object({ Location: z.string().meta({ description: '/api/swap/{id}' }), ...rateLimitHeaders }),
            },
            400: 'A field is missing or wrong (invalid_request, with field), the body is not JSON (invalid_json) or not an object, the amount is out of the route\'s bounds (amount_out_of_range), ' +
                'or the pair cannot be swapped (no_route, no_liquidity, network_not_enabled, token_not_enabled)',
            413: 'The body is larger than 16 kB (payload_too_large)',
            415: 'The body is not sent as application/json (unsupported_media_type)',
            429: {
                description: 'Too many swaps created from this IP (rate_limited), or too many of its swaps wait for a deposit (too_many_pending_swaps)',
                schema: bridgeErrorSchema,
                headers: z.object({ 'Retry-After': z.string().optional().meta({ description: 'with rate_limited' }) }),
            },
            503: 'A network does not answer (network_unavailable), the route needs a feature not configured here (not_configured), or a price it needs is stale (price_unavailable)',
        },
    }), idempotency.middleware(clientKey), limit.perIp(), async (req, res) => {
        if (!req.is('application/json')) throw new HttpError(415, 'send the body as JSON with Content-Type: application/json', { code: 'unsupported_media_type', details: { field: 'body' } })
        if (req.body === undefined || req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
            throw new HttpError(400, 'body: must be a JSON object', { code: 'invalid_request', details: { field: 'body' } })
        }
        const parsed = CreateBody.safeParse(req.body)
        if (!parsed.success) throw invalidInput(parsed.error)
        const id = randomUUID()
        await idempotency.noteRequest(id)
        const { swap } = await createSwap(ctx, parsed.data, clientKey(req), id)
        res.status(201).location(`/api/swap/${swap.id}`).json(detailView(swap))
    })

    const swapOf = (params: unknown) => swapByParams(ctx, params)

    router.get('/swap/:id', swapRead('getSwap', 'The swap, with the deposits that arrived after it ended', 'The swap', SwapWithLateDeposits), async (req, res) => {
        const swap = await swapOf(req.params)
        const late = await lateDepositsOf(ctx.pool, swap.id)
        res.set('Cache-Control', 'no-store').json({ ...detailView(swap), late_deposits: late.map(lateDepositView) })
    })
    router.get('/swap/:id/status', swapRead('getSwapStatus', 'The swap\'s status and its deposit and payout transactions', 'Exactly five fields', SwapStatus), async (req, res) => {
        res.set('Cache-Control', 'no-store').json(statusView(await swapOf(req.params)))
    })
    router.get('/swap/:id/events', swapRead('listSwapEvents', 'The swap\'s lifecycle events, oldest first', 'The events', SwapEvents), async (req, res) => {
        const swap = await swapOf(req.params)
        const events = await eventsOf(ctx.pool, swap.id)
        res.set('Cache-Control', 'no-store').json({ swap_id: swap.id, status: swap.status, events: events.map(eventView) })
    })
    return router
}

/** The swap a request's `:id` names: 400 when it is not a UUID, 404 when there is none. */
export async function swapByParams(ctx: EngineContext, params: unknown): Promise<LoadedSwap> {
    const parsed = SwapParams.safeParse(params)
    if (!parsed.success) throw invalidInput(parsed.error)
    const swap = await loadSwap(ctx.pool, parsed.data.id.toLowerCase())
    if (!swap) throw new HttpError(404, 'no swap with this id', { code: 'not_found' })
    return swap
}

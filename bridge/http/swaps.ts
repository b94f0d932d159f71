import { Router } from 'express'
import { z } from 'zod'
import { clientKey } from '../../common/service/client-ip'
import { HttpError } from '../../common/service/http-error'
import { RateLimit } from '../../common/service/rate-limit'
import { numberToDecimal } from '../amounts'
import { EngineContext } from '../engine/context'
import { createSwap } from '../engine/create'
import { lateDepositsOf } from '../engine/late'
import { loadEvents, loadSwap } from '../engine/lifecycle'
import { invalidInput } from './errors'
import { detailView, eventView, lateDepositView, statusView } from './serialize'
import { usage } from './usage'

/** POST /api/swap, GET /api/swap (usage), /api/swap/:id, /:id/status, /:id/events. */

const text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`)

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
    source_chain: text(32),
    source_token: text(32),
    target_chain: text(32),
    target_token: text(32),
    // A JSON number, as clients send it; a decimal string is accepted too (exact for 18-decimal tokens).
    source_token_amount: amount(),
    target_wallet: text(128),
    refund_address: z.union([z.literal('').transform(() => null), text(128), z.null()]).optional(),
    // Whole target tokens; the token's decimals are checked once the route is known (create.ts).
    min_target_amount: amount().optional(),
})

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function swapRoutes(ctx: EngineContext): Router {
    const router = Router()
    // Each swap takes a deposit key and a watched address: creation is limited per IP.
    const { points, windowSeconds } = ctx.config.createLimit
    const limit = new RateLimit(ctx.pool, 'bridge_rate_limit', { name: 'create', points, windowSeconds },
        (seconds) => `too many swaps created; try again in ${seconds} seconds`)

    router.get('/swap', (_req, res) => {
        res.json(usage(ctx))
    })

    router.post('/swap', limit.perIp(), async (req, res) => {
        if (!req.is('application/json')) throw new HttpError(415, 'send the body as JSON with Content-Type: application/json', { code: 'unsupported_media_type', details: { field: 'body' } })
        if (req.body === undefined || req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
            throw new HttpError(400, 'body: must be a JSON object', { code: 'invalid_request', details: { field: 'body' } })
        }
        const parsed = CreateBody.safeParse(req.body)
        if (!parsed.success) throw invalidInput(parsed.error)
        const { swap } = await createSwap(ctx, parsed.data, clientKey(req))
        res.status(201).location(`/api/swap/${swap.id}`).json(detailView(swap))
    })

    const swapOf = async (id: string) => {
        if (!UUID.test(id)) throw new HttpError(400, 'id: must be a swap id (a UUID)', { code: 'invalid_request', details: { field: 'id' } })
        const swap = await loadSwap(ctx.pool, id.toLowerCase())
        if (!swap) throw new HttpError(404, 'no swap with this id', { code: 'not_found' })
        return swap
    }

    router.get('/swap/:id', async (req, res) => {
        const swap = await swapOf(req.params.id)
        const late = await lateDepositsOf(ctx.pool, swap.id)
        res.set('Cache-Control', 'no-store').json({ ...detailView(swap), late_deposits: late.map(lateDepositView) })
    })
    router.get('/swap/:id/status', async (req, res) => {
        res.set('Cache-Control', 'no-store').json(statusView(await swapOf(req.params.id)))
    })
    router.get('/swap/:id/events', async (req, res) => {
        const swap = await swapOf(req.params.id)
        const events = await loadEvents(ctx.pool, swap.id)
        res.set('Cache-Control', 'no-store').json({ swap_id: swap.id, status: swap.status, events: events.map(eventView) })
    })
    return router
}

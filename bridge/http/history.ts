import { z } from 'zod'
import { ApiDoc, DocumentedRouter } from '../../common/service/api-doc'
import { KeysetCursor } from '../../common/service/cursor'
import { HttpError } from '../../common/service/http-error'
import { RateLimit } from '../../common/service/rate-limit'
import { EngineContext } from '../engine/context'
import { CHAIN_NAMES, ChainName } from '../registry'
import { swapsOfAddress } from '../store/swaps'
import { bridgeErrorSchema, invalidInput } from './errors'
import { Swap } from './schemas'
import { detailView } from './serialize'

/**
 * GET /api/swaps: the swaps paying one target wallet, or refunding to one refund address, newest
 * first, keyset-paginated by (created_at, id) (docs/bridge/lifecycle.md, Listing swaps). Swaps are
 * public by id already; listing them by an address anyone can name shows that address's swaps, as a
 * block explorer would, so the route is limited per client IP (BRIDGE_LIST_LIMIT).
 */

const PAGE_MAX = 100
const PAGE_DEFAULT = 20

const address = z.string().trim().min(1, 'must not be empty').max(128, 'must be at most 128 characters')

const ListQuery = z.strictObject({
    target_wallet: address.optional().meta({ description: 'The swaps paying this address (on their target chain); exactly one of target_wallet and refund_address' }),
    refund_address: address.optional().meta({ description: 'The swaps refunding to this address (on their source chain)' }),
    chain: z.enum(CHAIN_NAMES).optional().meta({ description: "Only swaps whose target chain (with target_wallet) or source chain (with refund_address) is this one; the address is normalised by this chain's rules" }),
    limit: z.string().regex(/^\d{1,3}$/, `must be an integer from 1 to ${PAGE_MAX}`).optional()
        .meta({ description: `Swaps per page, 1-${PAGE_MAX} (default ${PAGE_DEFAULT})` }),
    cursor: z.string().max(200).optional().meta({ description: 'next_cursor of the previous page; absent for the first page' }),
})

const invalid = (field: string, message: string) => new HttpError(400, `${field}: ${message}`, { code: 'invalid_request', details: { field } })

/** (created_at in microseconds since the epoch, id) of the last swap of the previous page. */
const cursor = new KeysetCursor([/\d{1,16}/, /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/],
    () => invalid('cursor', 'not a next_cursor this route handed out'))

export function swapListRoutes(ctx: EngineContext, doc: ApiDoc): DocumentedRouter {
    const router = doc.router('/api', 'Swaps')
    const { points, windowSeconds } = ctx.config.listLimit
    const limit = new RateLimit(ctx.pool, 'bridge_rate_limit', { name: 'list', points, windowSeconds },
        (seconds) => `too many swap listings; try again in ${seconds} seconds`)

    router.get('/swaps', {
        operationId: 'listSwaps',
        summary: 'The swaps of a target wallet or of a refund address, newest first',
        description: 'Exactly one of target_wallet and refund_address. The address is matched in the form swap creation stores it (normalised by the chain\'s rules, EVM addresses checksummed): ' +
            'by `chain`\'s rules when given, else by the rules of every enabled network. Each item is the swap as GET /api/swap/{id} shows it (without late_deposits). ' +
            `Keyset-paginated: pass next_cursor as cursor for the next page; null after the last. Rate-limited per client IP (BRIDGE_LIST_LIMIT per BRIDGE_LIST_LIMIT_WINDOW_SECONDS). docs/bridge/lifecycle.md`,
        query: ListQuery,
        responses: {
            200: {
                description: 'A page of swaps',
                schema: z.looseObject({ swaps: z.array(Swap), next_cursor: z.string().nullable() }).meta({ id: 'BridgeSwapList' }),
                headers: z.object({
                    'Cache-Control': z.literal('no-store'),
                    'RateLimit-Limit': z.string(),
                    'RateLimit-Remaining': z.string(),
                    'RateLimit-Reset': z.string(),
                    'RateLimit-Policy': z.string(),
                }),
            },
            400: 'A query parameter is missing, unknown or wrong (invalid_request, with field): neither or both of target_wallet and refund_address, an address no enabled network (or `chain`) accepts, a bad limit or cursor',
            429: {
                description: 'Too many listings from this IP (rate_limited)',
                schema: bridgeErrorSchema,
                headers: z.object({ 'Retry-After': z.string() }),
            },
        },
    }, limit.perIp(), async (req, res) => {
        const parsed = ListQuery.safeParse(req.query)
        if (!parsed.success) throw invalidInput(parsed.error)
        const q = parsed.data
        if ((q.target_wallet === undefined) === (q.refund_address === undefined)) {
            throw invalid(q.target_wallet === undefined ? 'target_wallet' : 'refund_address', 'give exactly one of target_wallet and refund_address')
        }
        const pageSize = q.limit === undefined ? PAGE_DEFAULT : Number(q.limit)
        if (pageSize < 1 || pageSize > PAGE_MAX) throw invalid('limit', `must be an integer from 1 to ${PAGE_MAX}`)
        const after = q.cursor === undefined ? undefined : cursor.decode(q.cursor)
        const byTarget = q.target_wallet !== undefined
        const field = byTarget ? 'target_wallet' : 'refund_address'
        const forms = normalizedForms(ctx, q.target_wallet ?? q.refund_address!, q.chain)
        if (forms.length === 0) throw invalid(field, q.chain ? `not a valid ${q.chain} address` : 'not a valid address on any enabled network')
        const rows = await swapsOfAddress(ctx.pool, field, forms, q.chain ?? null, after, pageSize + 1)
        const page = rows.slice(0, pageSize)
        const last = page[page.length - 1]
        res.set('Cache-Control', 'no-store').json({
            swaps: page.map((row) => detailView(row.swap)),
            next_cursor: rows.length > pageSize ? cursor.encode(last.createdMicros, last.swap.id) : null,
        })
    })
    return router
}

/** The address as swap creation would have stored it, under each network's rules that accept it (create.ts). */
function normalizedForms(ctx: EngineContext, value: string, chain: ChainName | undefined): string[] {
    const forms = new Set<string>()
    for (const [name, adapter] of ctx.adapters) {
        if (chain !== undefined && name !== chain) continue
        const normalized = adapter.normalizeAddress(value)
        if (normalized) forms.add(normalized)
    }
    // A network no longer enabled: its swaps keep the form they were stored in.
    if (chain !== undefined && !ctx.adapters.has(chain)) forms.add(value)
    return [...forms]
}

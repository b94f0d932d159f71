import { RequestHandler } from 'express'
import { z } from 'zod'
import { Operation } from '../../../common/service/api-doc'
import { dailyVolume } from '../../chain/queries/defi'
import { Db } from '../../chain/db'
import { ExplorerServices } from '../services'
import { parseInput, wholeNumber } from '../validate'
import { cachedAnswerHeaders, notModified, ResponseCache } from './cache'
import { DEFI_UNAVAILABLE, quoteToken, toNumber } from './quote'

/**
 * GET /defi/volume?days=N: N UTC days ending today, oldest first, every day present (a day without
 * swaps is volume 0, swaps 0). Volume of all pairs in whole STABLE units, from the indexer's daily rows.
 */
export const DEFAULT_DAYS = 30
export const MAX_DAYS = 365

const Query = z.object({
    days: wholeNumber(1, MAX_DAYS).optional().default(DEFAULT_DAYS),
})

const DAY_MS = 86_400_000

export const volumeOperation: Operation = {
    operationId: 'getDailySwapVolume',
    summary: 'Daily swap volume of all pairs',
    description: 'N UTC days ending today, oldest first, every day present; volume in whole STABLE units. Cached for EXPLORER_DEFI_CACHE_SECONDS (15 s by default), with an ETag (If-None-Match gets a 304).',
    query: Query,
    responses: {
        200: {
            description: 'One entry per day',
            schema: z.array(z.looseObject({ date: z.iso.date(), volume: z.number(), swaps: z.int() })),
            headers: cachedAnswerHeaders,
        },
        304: notModified,
        400: `days is not a whole number from 1 to ${MAX_DAYS} (invalid_request)`,
        503: DEFI_UNAVAILABLE,
    },
}

export function volume(s: ExplorerServices, db: Db, cache: ResponseCache): RequestHandler {
    return async (req, res) => {
        const { days } = parseInput(Query, req.query, 'query')
        const today = Math.floor(Date.now() / DAY_MS) * DAY_MS
        const dates = Array.from({ length: days }, (_, i) => new Date(today - (days - 1 - i) * DAY_MS).toISOString().slice(0, 10))
        const rendered = await cache.get(`volume:${dates[0]}:${days}`, () => build(s, db, dates))
        cache.send(req, res, rendered)
    }
}

async function build(s: ExplorerServices, db: Db, dates: string[]) {
    const quote = await quoteToken(s, db)
    const rows = await dailyVolume(db, dates[0], dates[dates.length - 1])
    const byDay = new Map(rows.map((r) => [r.id, r]))
    return dates.map((date) => {
        const day = byDay.get(date)
        return { date, volume: day ? toNumber(BigInt(day.volume), quote.decimals) : 0, swaps: day?.swaps ?? 0 }
    })
}

import { RequestHandler } from 'express'
import { formatUnits } from 'viem'
import { z } from 'zod'
import { Operation } from '../../../common/service/api-doc'
import { dailyVolume } from '../../chain/queries/defi'
import { Db } from '../../chain/db'
import { ExplorerServices } from '../services'
import { badRequest } from '../errors'
import { parseInput, wholeNumber } from '../validate'
import { bucketStarts, DAY_MS, RangeQuery } from './history'
import { cachedAnswerHeaders, notModified, render, ResponseCache } from './cache'
import { DEFI_UNAVAILABLE, exactQuote, quoteToken, toNumber } from './quote'

/**
 * GET /defi/volume?days=N (or ?from=&to=): N UTC days ending today, oldest first, every day present
 * (a day without swaps is volume 0, swaps 0). Volume of all pairs in whole STABLE units, per hop and
 * per trade, from the indexer's daily rows.
 */
export const DEFAULT_DAYS = 30
export const MAX_DAYS = 365

const Query = RangeQuery.extend({
    days: wholeNumber(1, MAX_DAYS).optional().meta({ description: `Days ending today (default ${DEFAULT_DAYS}); not with from/to` }),
})

const VolumeDay = z.looseObject({
    date: z.iso.date(),
    volume: z.number().meta({ description: 'Summed over hops: a trade routed through two pools counts twice' }),
    volume_exact: exactQuote('volume'),
    swaps: z.int().meta({ description: 'Swaps (hops)' }),
    trade_volume: z.number().meta({ description: 'Summed over trades: each trade once, however many pools it crossed' }),
    trade_volume_exact: exactQuote('trade_volume'),
    trades: z.int(),
})

export const volumeOperation: Operation = {
    operationId: 'getDailySwapVolume',
    summary: 'Daily swap volume of all pairs',
    description: '`days` UTC days ending today, or the days from `from` to `to`; oldest first, every day present; volumes in whole STABLE units, '
        + 'each number beside its exact decimal string. `volume` counts a routed trade once per pool it crossed (per hop), `trade_volume` once. '
        + 'Cached for EXPLORER_DEFI_CACHE_SECONDS (15 s by default), with an ETag (If-None-Match gets a 304).',
    query: Query,
    responses: {
        200: {
            description: 'One entry per day',
            schema: z.array(VolumeDay),
            headers: cachedAnswerHeaders,
        },
        304: notModified,
        400: `days is not a whole number from 1 to ${MAX_DAYS}, days comes with from or to, from or to is not a date, from is after to, or the range is longer than ${MAX_DAYS} days (invalid_request)`,
        503: DEFI_UNAVAILABLE,
    },
}

export function volume(s: ExplorerServices, db: Db, cache: ResponseCache): RequestHandler {
    return async (req, res) => {
        const { days, from, to } = parseInput(Query, req.query, 'query')
        if (days !== undefined && (from !== undefined || to !== undefined)) throw badRequest('days: not with from or to', 'query.days')
        const explicit = from !== undefined || to !== undefined
        const starts = explicit ? bucketStarts('day', { from, to }, Date.now(), MAX_DAYS) : bucketStarts('day', { from: new Date(Date.now() - ((days ?? DEFAULT_DAYS) - 1) * DAY_MS) })
        const dates = starts.map((start) => start.toISOString().slice(0, 10))
        // Ranges of the client's choosing are made afresh: only the `days` windows (365 a day) are kept.
        const rendered = explicit ? render(await build(s, db, dates)) : await cache.get(`volume:${dates[0]}:${dates.length}`, () => build(s, db, dates))
        cache.send(req, res, rendered)
    }
}

async function build(s: ExplorerServices, db: Db, dates: string[]) {
    const quote = await quoteToken(s, db)
    const rows = await dailyVolume(db, dates[0], dates[dates.length - 1])
    const byDay = new Map(rows.map((r) => [r.id, r]))
    return dates.map((date) => {
        const day = byDay.get(date)
        const volume = BigInt(day?.volume ?? '0')
        const tradeVolume = BigInt(day?.trade_volume_quote ?? '0')
        return {
            date,
            volume: toNumber(volume, quote.decimals),
            volume_exact: formatUnits(volume, quote.decimals),
            swaps: day?.swaps ?? 0,
            trade_volume: toNumber(tradeVolume, quote.decimals),
            trade_volume_exact: formatUnits(tradeVolume, quote.decimals),
            trades: day?.trades ?? 0,
        }
    })
}

import { z } from 'zod'
import { badRequest } from '../errors'

/**
 * The time ranges of the DeFi history routes: hourly or daily UTC buckets between `from` and `to`,
 * every bucket present (a chart needs no gap-filling of its own).
 */

export const HOUR_MS = 3_600_000
export const DAY_MS = 86_400_000

export type Interval = 'hour' | 'day'

const BUCKET_MS: Record<Interval, number> = { hour: HOUR_MS, day: DAY_MS }

/** Most buckets in one answer: 31 days of hours, a year (and a leap day) of days. */
export const MAX_BUCKETS: Record<Interval, number> = { hour: 744, day: 366 }

/** Buckets when the range is not given: the last 24 hours, or the last 30 days (as GET /defi/volume). */
export const DEFAULT_BUCKETS: Record<Interval, number> = { hour: 24, day: 30 }

/** A moment in a query string: a UTC date (YYYY-MM-DD) or an ISO 8601 date-time with its offset. */
const moment = z.union([z.iso.date(), z.iso.datetime({ offset: true })], { error: 'must be a date (YYYY-MM-DD) or an ISO 8601 date-time' })
    .transform((text) => new Date(text.length === 10 ? `${text}T00:00:00Z` : text))

export const RangeQuery = z.object({
    from: moment.optional().meta({ description: 'The first bucket: the one holding this moment (default: as many buckets before `to` as the interval\'s default)' }),
    to: moment.optional().meta({ description: 'The last bucket: the one holding this moment (default: now)' }),
})

/**
 * The starts of the buckets from the one holding `from` to the one holding `to`. Without `to`, the
 * current bucket; without `from`, the default count ending at `to`. A range backwards or longer
 * than MAX_BUCKETS is the client's mistake (400).
 */
export function bucketStarts(interval: Interval, range: { from?: Date; to?: Date }, now = Date.now(), max = MAX_BUCKETS[interval]): Date[] {
    const size = BUCKET_MS[interval]
    const last = Math.floor((range.to?.getTime() ?? now) / size) * size
    const first = range.from === undefined ? last - (DEFAULT_BUCKETS[interval] - 1) * size : Math.floor(range.from.getTime() / size) * size
    if (first > last) throw badRequest('from: must not be after to', 'query.from')
    const count = (last - first) / size + 1
    if (count > max) throw badRequest(`from: at most ${max} ${interval}s up to to (${count} asked)`, 'query.from')
    return Array.from({ length: count }, (_, i) => new Date(first + i * size))
}

/** What a bucket without a row shows: no trading, and everything else as the pool or token last stood. */
export interface Carry<R> {
    /** The bucket's row, the last row before it (if any): the answer's item. */
    (row: R | undefined, previous: R | undefined, start: Date): unknown
}

/**
 * One item per start, oldest first: the bucket's row where the indexer wrote one (a bucket has a
 * row once an event of its pool or token happened in it), else made from the last row before it.
 */
export function filled<R extends { start: Date }>(starts: Date[], before: R | undefined, rows: R[], item: Carry<R>): unknown[] {
    const byStart = new Map(rows.map((row) => [row.start.getTime(), row]))
    let previous = before
    return starts.map((start) => {
        const row = byStart.get(start.getTime())
        const made = item(row, previous, start)
        if (row) previous = row
        return made
    })
}

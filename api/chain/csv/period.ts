import { z } from 'zod'
import { Db } from '../db'
import { invalidParam } from '../errors'
import { blockNumberAtTime } from '../queries/blocks'

/**
 * The period of an address export (`from_period`, `to_period`), as Blockscout reads it: an ISO 8601
 * date-time, or a date (the whole day: from its first second, to its last), turned into the blocks
 * mined in it. Its span is bounded (CHAIN_API_CSV_EXPORT_MAX_PERIOD_DAYS).
 */

const DATE = /^\d{4}-\d{2}-\d{2}$/
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/

/** A period bound as the query states it: a date, or a date-time with its offset. */
export const PeriodBound = z.string()
    .refine((s) => (DATE.test(s) || DATE_TIME.test(s)) && !Number.isNaN(Date.parse(s.replace(' ', 'T'))),
        'Invalid date: expected an ISO 8601 date (2024-01-31) or date-time with offset (2024-01-31T12:00:00.000Z)')

const DAY_MS = 86_400_000

/** The instant a bound names; a date is its first millisecond (from) or its last (to), in UTC as Blockscout reads it. */
function instant(bound: string, side: 'from' | 'to'): number {
    if (DATE.test(bound)) return Date.parse(`${bound}T00:00:00Z`) + (side === 'to' ? DAY_MS - 1 : 0)
    return Date.parse(bound.replace(' ', 'T'))
}

export interface Period {
    fromMs: number
    toMs: number
}

/** The period, checked: it must not end before it starts, nor span more than maxDays (422 naming the parameter). */
export function parsePeriod(from: string, to: string, maxDays: number): Period {
    const fromMs = instant(from, 'from')
    const toMs = instant(to, 'to')
    if (toMs < fromMs) throw invalidParam('to_period', 'to_period is before from_period')
    if (toMs - fromMs > maxDays * DAY_MS) {
        throw invalidParam('to_period', `The period is longer than ${maxDays} days (CHAIN_API_CSV_EXPORT_MAX_PERIOD_DAYS): export it in parts`)
    }
    return { fromMs, toMs }
}

/** The first and last block mined in the period; undefined when none was. */
export async function periodBlocks(db: Db, period: Period): Promise<{ from: number; to: number } | undefined> {
    // Block timestamps are whole seconds: the first block at or after the start, the last at or before the end.
    const [from, to] = await Promise.all([
        blockNumberAtTime(db, Math.ceil(period.fromMs / 1000), 'after'),
        blockNumberAtTime(db, Math.floor(period.toMs / 1000), 'before'),
    ])
    if (from === undefined || to === undefined || to < from) return undefined
    return { from, to }
}

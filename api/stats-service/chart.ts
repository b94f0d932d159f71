import { Db } from '../chain/db'
import { LineDef } from './lines'
import { addDays, nextPeriod, periodsBetween, Resolution, today as todayOf, TRUNC_UNIT } from './periods'
import { firstDay, lastBefore, periodFigures, sumBefore } from './queries'

/** A point as the stats service writes it (its proto's Point). */
export interface Point {
    date: string
    date_to: string
    value: string
    is_approximate: boolean
}

/**
 * A line's points at `resolution`, one per period from the one holding `from` to the one holding
 * `to` (each inclusive, as the service's days), both clamped to the chain's first indexed day and
 * today: no point before the chain or after today. A period's value covers all its days, also
 * those outside from..to. Every period is present: a period without rows is 0 for sums and
 * averages, and keeps the value before it for growth, supply and holder lines (the service's
 * FillZero and FillPrevious). The period holding today is not complete: `is_approximate`.
 */
export async function linePoints(db: Db, line: LineDef, resolution: Resolution, from: string | undefined, to: string | undefined, now = new Date()): Promise<Point[]> {
    const today = todayOf(now)
    const first = await firstDay(db)
    if (first === null) return []
    const start = from !== undefined && from > first ? from : first
    const end = to !== undefined && to < today ? to : today
    if (start > end) return []
    const periods = periodsBetween(start, end, resolution)
    const rangeStart = periods[0]
    const rangeEnd = nextPeriod(periods[periods.length - 1], resolution)
    const source = line.sourceAt?.[resolution] ?? line.source
    const [rows, base] = await Promise.all([
        periodFigures(db, source, TRUNC_UNIT[resolution], rangeStart, rangeEnd),
        line.aggregate === 'cumulative' ? sumBefore(db, source, rangeStart)
            : line.aggregate === 'last' ? lastBefore(db, source, rangeStart) : Promise.resolve(null),
    ])
    const byPeriod = new Map(rows.map((r) => [r.period, r]))
    let carried: bigint | null = base === null ? null : BigInt(base)
    const points: Point[] = []
    periods.forEach((period, i) => {
        const row = byPeriod.get(period)
        const num = BigInt(row?.num ?? 0)
        const den = BigInt(row?.den ?? 0)
        let value: string
        if (line.aggregate === 'cumulative') {
            carried = (carried ?? 0n) + num
            value = line.format(carried, 0n)
        } else if (line.aggregate === 'last') {
            if (row?.last != null) carried = BigInt(row.last)
            // Nothing known yet (days before the first recorded value): no point rather than a made-up 0.
            if (carried === null) return
            value = line.format(carried, 0n)
        } else {
            value = line.format(num, den)
        }
        const dateTo = addDays(i + 1 < periods.length ? periods[i + 1] : rangeEnd, -1)
        points.push({ date: period, date_to: dateTo, value, is_approximate: dateTo >= today })
    })
    return points
}

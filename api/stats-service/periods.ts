/**
 * The stats service's resolutions as UTC calendar periods, on day keys (YYYY-MM-DD): a week starts
 * on Monday (Postgres date_trunc('week'), ISO), a month and a year on their first day.
 */

export const RESOLUTIONS = ['DAY', 'WEEK', 'MONTH', 'YEAR'] as const
export type Resolution = typeof RESOLUTIONS[number]

/** date_trunc's unit for each resolution. */
export const TRUNC_UNIT: Record<Resolution, string> = { DAY: 'day', WEEK: 'week', MONTH: 'month', YEAR: 'year' }

const DAY_MS = 86_400_000
const DAY_KEY = /^(\d{4})-(\d{2})-(\d{2})$/

const toDate = (day: string) => new Date(`${day}T00:00:00Z`)
const toKey = (date: Date) => date.toISOString().slice(0, 10)

/** Whether `text` is a calendar day written YYYY-MM-DD (2026-02-30 is not). */
export function isDayKey(text: string): boolean {
    const m = DAY_KEY.exec(text)
    if (!m) return false
    const date = toDate(text)
    return !Number.isNaN(date.getTime()) && toKey(date) === text && Number(m[1]) >= 1970
}

export function today(now = new Date()): string {
    return toKey(now)
}

export function addDays(day: string, days: number): string {
    return toKey(new Date(toDate(day).getTime() + days * DAY_MS))
}

/** The first day of the period of `resolution` that holds `day`. */
export function periodStart(day: string, resolution: Resolution): string {
    const date = toDate(day)
    switch (resolution) {
        case 'DAY': return day
        // 1970-01-01 was a Thursday: days since it, plus 3, modulo 7 is the days since Monday.
        case 'WEEK': return addDays(day, -((Math.floor(date.getTime() / DAY_MS) + 3) % 7))
        case 'MONTH': return `${day.slice(0, 7)}-01`
        case 'YEAR': return `${day.slice(0, 4)}-01-01`
    }
}

/** The first day of the period after the one starting at `start`. */
export function nextPeriod(start: string, resolution: Resolution): string {
    const date = toDate(start)
    switch (resolution) {
        case 'DAY': return addDays(start, 1)
        case 'WEEK': return addDays(start, 7)
        case 'MONTH': return toKey(new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1)))
        case 'YEAR': return toKey(new Date(Date.UTC(date.getUTCFullYear() + 1, 0, 1)))
    }
}

/** The starts of every period from the one holding `first` to the one holding `last`, in order. */
export function periodsBetween(first: string, last: string, resolution: Resolution): string[] {
    const starts: string[] = []
    for (let start = periodStart(first, resolution); start <= last; start = nextPeriod(start, resolution)) starts.push(start)
    return starts
}

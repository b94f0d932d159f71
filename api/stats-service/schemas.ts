import { z } from 'zod'
import { Operation } from '../../common/service/api-doc'
import { ErrorSurface } from '../../common/service/error-handler'
import { HttpError } from '../../common/service/http-error'
import { isDayKey, RESOLUTIONS } from './periods'

/**
 * The stats service's answers (blockscout-rs stats/stats-proto/proto/stats.proto, in its JSON
 * mapping: integers and amounts as strings, optional members left out when unset).
 */

export const Counter = z.object({
    id: z.string(),
    value: z.string().meta({ description: 'A decimal string: a count, or an amount in its units' }),
    title: z.string(),
    units: z.string().optional(),
    description: z.string(),
}).meta({ id: 'StatsCounter' })

export const Counters = z.object({ counters: z.array(Counter) }).meta({ id: 'StatsCounters' })

export const LineChartInfo = z.object({
    id: z.string(),
    title: z.string(),
    description: z.string(),
    units: z.string().optional(),
    resolutions: z.array(z.enum(RESOLUTIONS)),
}).meta({ id: 'StatsLineChartInfo' })

export const LineCharts = z.object({
    sections: z.array(z.object({ id: z.string(), title: z.string(), charts: z.array(LineChartInfo) })),
}).meta({ id: 'StatsLineCharts' })

const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/)

export const Point = z.object({
    date: Day.meta({ description: 'The first day of the period' }),
    date_to: Day.meta({ description: 'The last day of the period (the same day at DAY)' }),
    value: z.string(),
    is_approximate: z.boolean().meta({ description: 'The period holds today: it is not complete' }),
})

export const LineChart = z.object({ chart: z.array(Point), info: LineChartInfo }).meta({ id: 'StatsLineChart' })

export const MainPageStats = z.object({
    average_block_time: Counter.optional(),
    total_addresses: Counter.optional(),
    total_blocks: Counter.optional(),
    total_transactions: Counter.optional(),
    yesterday_transactions: Counter.optional(),
    daily_new_transactions: LineChart.optional(),
}).meta({ id: 'StatsMainPage' })

export const TransactionsPageStats = z.object({
    transactions_24h: Counter.optional(),
    transactions_fee_24h: Counter.optional(),
    average_transactions_fee_24h: Counter.optional(),
}).meta({ id: 'StatsTransactionsPage' })

export const ContractsPageStats = z.object({
    total_contracts: Counter.optional(),
    new_contracts_24h: Counter.optional(),
    total_verified_contracts: Counter.optional(),
    new_verified_contracts_24h: Counter.optional(),
}).meta({ id: 'StatsContractsPage' })

const dayParam = (what: string) => z.string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date written YYYY-MM-DD')
    .refine(isDayKey, 'must be a calendar day from 1970 on')
    .meta({ description: `${what} (a UTC day, YYYY-MM-DD, inclusive)`, example: '2026-11-01' })

export const LineQuery = z.object({
    from: dayParam('First day').optional(),
    to: dayParam('Last day').optional(),
    // The proto's unset value reads as DAY, as the service does.
    resolution: z.enum([...RESOLUTIONS, 'RESOLUTION_UNSPECIFIED']).optional()
        .transform((r) => (r === undefined || r === 'RESOLUTION_UNSPECIFIED' ? 'DAY' : r))
        .meta({ description: 'DAY (default, also for RESOLUTION_UNSPECIFIED), WEEK (from Monday), MONTH or YEAR' }),
})

export const LinePath = z.object({ name: z.string().max(100).meta({ description: 'The line\'s id, as /api/v1/lines lists it', example: 'newTxns' }) })

/** The service's error body (gRPC status over HTTP): its code number and message. */
export const StatsError = z.object({
    code: z.number().int().meta({ description: 'gRPC status code: 3 invalid argument, 5 not found, 14 unavailable, 13 internal' }),
    message: z.string(),
}).meta({ id: 'StatsError' })

const GRPC_CODES: Record<number, number> = { 400: 3, 404: 5, 429: 8, 503: 14 }

export const statsErrors: ErrorSurface = {
    name: 'stats service API',
    body: (err) => ({ code: GRPC_CODES[err.status] ?? 13, message: err.message }),
    parserFault: ({ status, message }) => new HttpError(status === 404 ? 404 : 400, String(message ?? 'bad request')),
    internalMessage: 'internal error',
}

/** 400 with the service's words for a query parameter it cannot read. */
export function invalidArgument(message: string): HttpError {
    return new HttpError(400, message)
}

export function chartNotFound(name: string): HttpError {
    return new HttpError(404, `chart ${name} not found`)
}

export function statsOperation(op: Omit<Operation, 'responses' | 'tags'>, description: string, schema: z.ZodType, errors: Record<number, string> = {}): Operation {
    return {
        ...op,
        tags: ['stats service'],
        responses: {
            200: { description, schema },
            ...errors,
            503: 'A query ran past CHAIN_API_STATEMENT_TIMEOUT_MS and was cancelled: retry later',
        },
    }
}

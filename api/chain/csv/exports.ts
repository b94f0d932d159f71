import { Request, RequestHandler, Response } from 'express'
import { z } from 'zod'
import { Operation } from '../../../common/service/api-doc'
import { ChainContext } from '../context'
import { invalidParam, notFound } from '../errors'
import { tokenOr404 } from '../loaders'
import { AddressPath, addressParam, parseQuery, q } from '../params'
import { addressById } from '../queries/addresses'
import { ChainRoute, chainOperation } from '../schemas'
import { CsvAccess, captchaToken } from './access'
import { AddressExportKind, addressExport } from './address-exports'
import { holdersExport } from './holders-export'
import { parsePeriod, PeriodBound, periodBlocks } from './period'
import { RowSource, streamCsv } from './writer'

/**
 * The CSV export routes' handlers (docs/chain-api.md#csv-export): the query as Blockscout's
 * frontend sends it, checked first (422); then the client's budget and captcha (CsvAccess); then
 * the object (404); then the rows, streamed. Registered by routes/v1.ts (the address exports),
 * routes/tokens.ts (holders) and routes/config.ts (what is on). Another CSV route (the advanced
 * filter's) takes the same steps: `access.admit(req, res, captchaToken(req, query))`, then
 * `stream(req, res, {columns, pages}, fileName)`, so it shares the budget, the captcha and the row cap.
 */

/** The frontend writes an absent value as the text "null" (its buildUrl sends String(null)). */
const orNull = <T extends z.ZodType>(schema: T) => z.union([z.literal('null'), schema]).optional()

export const CaptchaResponse = z.string().min(1).max(8192)
    .meta({ description: 'the captcha token, when CHAIN_API_CSV_CAPTCHA is on (also accepted as the recaptcha-v2-response header)' })

export const AddressCsvQuery = z.object({
    address_id: q.address.meta({ description: 'the address whose rows are exported' }),
    from_period: PeriodBound.meta({ description: 'start of the period: an ISO 8601 date-time with offset, or a date (from its first second, UTC)' }),
    to_period: PeriodBound.meta({ description: 'end of the period: an ISO 8601 date-time with offset, or a date (to its last second, UTC)' }),
    filter_type: orNull(z.enum(['address', 'topic'])).meta({ description: '`address` (transactions, internal transactions, token transfers) or `topic` (logs)' }),
    filter_value: orNull(z.string().max(66)).meta({ description: 'with filter_type=address: `from` or `to`; with filter_type=topic: a 32-byte topic' }),
    recaptcha_response: CaptchaResponse.optional(),
})

/**
 * The same export at /api/v2/addresses/{hash}/<kind>/csv, where Blockscout's current frontend asks it
 * (lib/api/services/general/address.ts): the address is the path's; the frontend still sends
 * `address_id`, which must then name the same address.
 */
export const AddressPathCsvQuery = AddressCsvQuery.extend({
    address_id: orNull(q.address).meta({ description: 'optional; when given, the path\'s address' }),
})

/** The holders export takes no period: the frontend still sends the address and the period keys, as "null". */
export const HoldersCsvQuery = z.object({
    address_id: orNull(q.address),
    from_period: z.string().max(64).optional(),
    to_period: z.string().max(64).optional(),
    filter_type: z.string().max(64).optional(),
    filter_value: z.string().max(128).optional(),
    recaptcha_response: CaptchaResponse.optional(),
})

export const CaptchaHeaders = z.object({ 'recaptcha-v2-response': CaptchaResponse.optional() })

/** Blockscout's /api/v2/config/csv-export ({limit, async_enabled}), with what this API adds: the captcha switch and the period bound. */
export const CsvExportConfig = z.object({
    limit: z.number().int().meta({ description: 'most rows of one export (CHAIN_API_CSV_EXPORT_MAX_ROWS)' }),
    async_enabled: z.boolean().meta({ description: 'always false: exports are streamed as they are asked, never queued' }),
    captcha_enabled: z.boolean().meta({ description: 'whether a captcha token must come with each export (CHAIN_API_CSV_CAPTCHA)' }),
    max_period_days: z.number().int().meta({ description: 'longest from_period..to_period span (CHAIN_API_CSV_EXPORT_MAX_PERIOD_DAYS)' }),
    exports_per_ip: z.number().int().meta({ description: 'exports a client IP may start per window (CHAIN_API_CSV_EXPORTS_PER_IP)' }),
    window_seconds: z.number().int().meta({ description: 'that window (CHAIN_API_CSV_EXPORT_WINDOW_SECONDS)' }),
}).meta({ id: 'CsvExportConfig' })

/** A CSV route's OpenAPI operation: a text/csv answer, and the refusals of CsvAccess. */
export function csvOperation(tag: string, route: ChainRoute & Pick<Operation, 'headers'>, description: string): Operation {
    const op = chainOperation(tag, route, description, z.string())
    op.responses[200] = { description, schema: z.string().meta({ description: 'RFC 4180 CSV, a header line first, CRLF line ends' }), contentType: 'text/csv' }
    op.responses[403] = 'The captcha token was refused by the provider: `{"message":"Invalid reCAPTCHA response"}`'
    op.responses[429] = 'Too many exports from this client IP (CHAIN_API_CSV_EXPORTS_PER_IP), with Retry-After; or, with the captcha on, no captcha token'
    op.responses[503] = 'A query ran past CHAIN_API_STATEMENT_TIMEOUT_MS, or the captcha provider could not be asked'
    return op
}

const ADDRESS_EXPORT_NAMES: Record<AddressExportKind, { id: string; what: string }> = {
    'transactions': { id: 'Transactions', what: 'transactions' },
    'internal-transactions': { id: 'InternalTransactions', what: 'internal transactions' },
    'token-transfers': { id: 'TokenTransfers', what: 'token transfers' },
    'logs': { id: 'Logs', what: 'logs' },
}

/** The OpenAPI operation of an address export, at /api/v1/<kind>-csv (`query`) or /api/v2/addresses/{hash}/<kind>/csv (`path`). */
export function addressCsvOperation(kind: AddressExportKind, from: 'query' | 'path'): Operation {
    const { id, what } = ADDRESS_EXPORT_NAMES[kind]
    return csvOperation('addresses', {
        operationId: `exportAddress${id}Csv${from === 'path' ? 'ByPath' : ''}`,
        summary: `An address's ${what} in a period, as CSV (Blockscout's columns), newest first`,
        description: 'At most CHAIN_API_CSV_EXPORT_MAX_ROWS rows; a period longer than CHAIN_API_CSV_EXPORT_MAX_PERIOD_DAYS answers 422. ' +
            'Streamed as the rows are read (docs/chain-api.md#csv-export).',
        ...(from === 'path' ? { params: AddressPath, query: AddressPathCsvQuery } : { query: AddressCsvQuery }),
        headers: CaptchaHeaders,
        notFound: 'address',
    }, `The ${what} as CSV`)
}

export class CsvExports {
    readonly access: CsvAccess

    constructor(private readonly ctx: ChainContext) {
        this.access = new CsvAccess(ctx)
    }

    config(): z.input<typeof CsvExportConfig> {
        const env = this.ctx.env
        return {
            limit: env.CHAIN_API_CSV_EXPORT_MAX_ROWS,
            async_enabled: false,
            captcha_enabled: this.access.captchaRequired,
            max_period_days: env.CHAIN_API_CSV_EXPORT_MAX_PERIOD_DAYS,
            exports_per_ip: env.CHAIN_API_CSV_EXPORTS_PER_IP,
            window_seconds: env.CHAIN_API_CSV_EXPORT_WINDOW_SECONDS,
        }
    }

    /**
     * An address's rows of the period: GET /api/v1/<kind>-csv?address_id=…&from_period=…&to_period=…
     * (`from: 'query'`), or GET /api/v2/addresses/{hash}/<kind>/csv?from_period=…&to_period=… (`from: 'path'`).
     */
    address(kind: AddressExportKind, from: 'query' | 'path'): RequestHandler {
        return async (req, res) => {
            const { query, address } = from === 'query' ? addressFromQuery(req) : addressFromPath(req)
            const filter = addressFilter(kind, query.filter_type, query.filter_value)
            const period = parsePeriod(query.from_period, query.to_period, this.ctx.env.CHAIN_API_CSV_EXPORT_MAX_PERIOD_DAYS)
            await this.access.admit(req, res, captchaToken(req, query))
            // Blockscout answers 404 for an address it has never seen.
            if (!(await addressById(this.ctx.db, address))) throw notFound()
            const [blocks, head] = await Promise.all([periodBlocks(this.ctx.db, period), this.ctx.head.get()])
            const source = addressExport(kind, { db: this.ctx.db, address, blocks, head: head.number, ...filter })
            await this.stream(req, res, source, `${kind.replace(/-/g, '_')}_${address}_${query.from_period}_${query.to_period}.csv`)
        }
    }

    /** GET /api/v2/tokens/{hash}/holders/csv: every holder of a token by balance. */
    holders(): RequestHandler {
        return async (req, res) => {
            const hash = addressParam(req.params.hash)
            const query = parseQuery(HoldersCsvQuery, req.query)
            await this.access.admit(req, res, captchaToken(req, query))
            const token = await tokenOr404(this.ctx.db, hash)
            await this.stream(req, res, holdersExport(this.ctx.db, token), `holders_${token.id}.csv`)
        }
    }

    /** Streams an export's rows, at most CHAIN_API_CSV_EXPORT_MAX_ROWS, and logs a failure that cut the answer short. */
    async stream<R>(req: Request, res: Response, source: RowSource<R>, fileName: string): Promise<void> {
        const outcome = await streamCsv(res, { ...source, maxRows: this.ctx.env.CHAIN_API_CSV_EXPORT_MAX_ROWS, fileName })
        if (outcome.error) this.ctx.log.warn({ err: outcome.error, path: req.path, rows: outcome.rows }, 'a CSV export failed after it had started')
    }
}

function addressFromQuery(req: Request) {
    const query = parseQuery(AddressCsvQuery, req.query)
    return { query, address: query.address_id }
}

function addressFromPath(req: Request) {
    const address = addressParam(req.params.hash)
    const query = parseQuery(AddressPathCsvQuery, req.query)
    if (query.address_id !== undefined && query.address_id !== 'null' && query.address_id !== address) {
        throw invalidParam('address_id', 'names another address than the path')
    }
    return { query, address }
}

/** The export's filter from filter_type/filter_value, as Blockscout's Helper.valid_filter? takes them; anything else is a 422. */
function addressFilter(kind: AddressExportKind, type: string | undefined, value: string | undefined): { side?: 'from' | 'to'; topic?: string } {
    const given = (v: string | undefined) => (v === undefined || v === 'null' ? undefined : v)
    const filterType = given(type)
    const filterValue = given(value)
    if (filterType === undefined) {
        if (filterValue !== undefined) throw invalidParam('filter_type', 'filter_value needs a filter_type')
        return {}
    }
    if (kind === 'logs') {
        if (filterType !== 'topic') throw invalidParam('filter_type', 'the logs export filters by `topic` only')
        if (filterValue === undefined) return {}
        if (!/^0x[0-9a-fA-F]{64}$/.test(filterValue)) throw invalidParam('filter_value', 'Invalid format. Expected ~r/^0x([A-Fa-f0-9]{64})$/')
        return { topic: filterValue.toLowerCase() }
    }
    if (filterType !== 'address') throw invalidParam('filter_type', `the ${kind} export filters by \`address\` only`)
    if (filterValue === undefined) return {}
    if (filterValue !== 'from' && filterValue !== 'to') throw invalidParam('filter_value', 'with filter_type=address: `from` or `to`')
    return { side: filterValue }
}

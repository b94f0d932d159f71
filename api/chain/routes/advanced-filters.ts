import { z } from 'zod'
import { DocumentedRouter } from '../../../common/service/api-doc'
import { ChainContext, setLiveCaching } from '../context'
import { advancedFilterExport } from '../csv/advanced-filter-export'
import { captchaToken } from '../csv/access'
import { CaptchaHeaders, CaptchaResponse, csvOperation, CsvExports } from '../csv/exports'
import { invalidParam } from '../errors'
import { carried, PAGE_SIZE } from '../pagination'
import { isAddress, parseQuery, q } from '../params'
import {
    AdvancedFilter, advancedFilterCursor, AdvancedFilterCursor, advancedFilterPage, TRANSACTION_KINDS, TransactionKind,
} from '../queries/advanced-filters'
import { related } from '../queries/related'
import { TOKEN_TYPES } from '../queries/token-transfers'
import { advancedFilterRefs, COMMON_METHODS, methodName, renderAdvancedFilterItems, searchMethods } from '../render/advanced-filter'
import { renderToken } from '../render/token'
import { AdvancedFilterMethod, AdvancedFilterPage, chainOperation } from '../schemas'

/**
 * Blockscout's advanced filter (`/api/v2/advanced-filters`, the frontend's /advanced-filter page)
 * and its method search: docs/chain-api.md#advanced-filter. The filter's parameters are parsed
 * here for the list and for the CSV export of the same rows (parseAdvancedFilter).
 */

/** At most this many entries per list parameter (methods, each address set, each token set), as Blockscout caps methods and tokens. */
export const ADVANCED_FILTER_LIST_MAX = 20

const TYPES = [...TRANSACTION_KINDS.map((k) => k.toUpperCase()), ...TOKEN_TYPES] as const

/** A comma list whose every entry passes `entry` (lowercased first), at most ADVANCED_FILTER_LIST_MAX of them, duplicates dropped. */
function commaList(entry: (value: string) => boolean, what: string) {
    return z.string().max(4096).transform((s, ctx) => {
        const items = [...new Set(s.split(',').map((v) => v.trim().toLowerCase()).filter(Boolean))]
        const bad = items.find((v) => !entry(v))
        if (bad !== undefined) {
            ctx.addIssue({ code: 'custom', message: `Invalid value ${JSON.stringify(bad.slice(0, 80))}; expected ${what}` })
            return z.NEVER
        }
        if (items.length > ADVANCED_FILTER_LIST_MAX) {
            ctx.addIssue({ code: 'custom', message: `at most ${ADVANCED_FILTER_LIST_MAX} entries` })
            return z.NEVER
        }
        return items
    })
}

const addresses = commaList(isAddress, 'a comma list of addresses')
const tokenAddresses = commaList((v) => v === 'native' || isAddress(v), 'a comma list of token addresses or `native`')
/** A non-negative decimal in plain notation: whole units of the coin or of a token. */
const amount = z.string().regex(/^\d{1,60}(\.\d{1,36})?$/, 'a non-negative decimal, e.g. 1.5')
/** A time in ISO 8601 between 1970 and 9999 (Postgres refuses some years JavaScript dates accept). */
const ageTime = z.string().max(64).refine((s) => {
    const t = Date.parse(s)
    return !Number.isNaN(t) && t >= 0 && t <= Date.UTC(9999, 11, 31, 23, 59, 59, 999)
}, 'Invalid datetime: ISO 8601 between 1970 and 9999')
/** A cursor index of next_page_params: null (sent back as "null" or "") when the last item was not of that kind. */
const nullableIndex = z.union([z.enum(['', 'null']).transform(() => null), q.int])

const transactionTypes = z.string().max(1024).transform((s, ctx) => {
    const items = [...new Set(s.split(',').map((v) => v.trim().toUpperCase()).filter(Boolean))]
    const bad = items.find((v) => !(TYPES as readonly string[]).includes(v))
    if (bad !== undefined) {
        ctx.addIssue({ code: 'custom', message: `Invalid value ${JSON.stringify(bad.slice(0, 80))}; expected any of ${TYPES.join(', ')} (any case)` })
        return z.NEVER
    }
    return items
})

export const AdvancedFilterQuery = z.object({
    transaction_types: transactionTypes.optional().describe(`comma list of ${TYPES.join(', ')}, any case`),
    tx_types: transactionTypes.optional().describe('the name older frontends give transaction_types; used when transaction_types is absent'),
    methods: commaList((v) => /^0x[0-9a-f]{8}$/.test(v), 'a comma list of 4-byte selectors (0x and 8 hex digits)').optional(),
    methods_names: q.text.optional().describe("names of the common methods (GET /advanced-filters/methods); the frontend's labels of `methods`"),
    age_from: ageTime.optional().describe('ISO 8601; inclusive'),
    age_to: ageTime.optional().describe('ISO 8601; inclusive'),
    age: q.text.optional().describe("the frontend's own preset (1h, 24h, ...); ignored: it sends age_from and age_to with it"),
    from_address_hashes_to_include: addresses.optional(),
    from_address_hashes_to_exclude: addresses.optional(),
    to_address_hashes_to_include: addresses.optional(),
    to_address_hashes_to_exclude: addresses.optional(),
    address_relation: z.string().transform((s) => s.toLowerCase()).pipe(z.enum(['or', 'and'])).optional().describe('or (default) or and, any case'),
    amount_from: amount.optional().describe('whole units (the coin: 18 decimals; a token: its decimals); inclusive'),
    amount_to: amount.optional().describe('whole units; inclusive'),
    token_contract_address_hashes_to_include: tokenAddresses.optional(),
    token_contract_address_hashes_to_exclude: tokenAddresses.optional(),
    token_contract_symbols_to_include: q.text.optional().describe("the frontend's labels of the token lists; ignored"),
    token_contract_symbols_to_exclude: q.text.optional().describe("the frontend's labels of the token lists; ignored"),
    block_number: q.int.optional(),
    transaction_index: q.int.optional(),
    internal_transaction_index: nullableIndex.optional(),
    token_transfer_index: nullableIndex.optional(),
    token_transfer_batch_index: nullableIndex.optional(),
    items_count: q.itemsCount.optional(),
    limit: q.int.refine((n) => n >= 1 && n <= PAGE_SIZE, `must be between 1 and ${PAGE_SIZE}`).optional(),
})

/** The request's filter parameters, carried into next_page_params so that following it alone keeps the filter. */
const FILTER_KEYS = [
    'transaction_types', 'tx_types', 'methods', 'methods_names', 'age_from', 'age_to', 'from_address_hashes_to_include', 'from_address_hashes_to_exclude',
    'to_address_hashes_to_include', 'to_address_hashes_to_exclude', 'address_relation', 'amount_from', 'amount_to',
    'token_contract_address_hashes_to_include', 'token_contract_address_hashes_to_exclude', 'limit',
] as const

export interface ParsedAdvancedFilter {
    filter: AdvancedFilter
    cursor: AdvancedFilterCursor | null
    /** the page size asked for (`limit`), PAGE_SIZE without one */
    limit: number
}

/** The advanced filter of a query string (the list's and the CSV export's): 422 for a value that fails, or for a range that is upside down. */
export function parseAdvancedFilter(query: unknown): ParsedAdvancedFilter {
    const v = parseQuery(AdvancedFilterQuery, query)
    return { filter: filterOf(v), cursor: cursorOf(v), limit: v.limit ?? PAGE_SIZE }
}

/** The filter parameters, shared by the list and its export (which takes no cursor). */
type FilterParams = Omit<z.infer<typeof AdvancedFilterQuery>, CursorKey>

function filterOf(v: FilterParams): AdvancedFilter {
    const ageFrom = v.age_from === undefined ? null : new Date(v.age_from)
    const ageTo = v.age_to === undefined ? null : new Date(v.age_to)
    if (ageFrom && ageTo && ageFrom > ageTo) throw invalidParam('age_from', 'must not be after age_to')
    if (v.amount_from !== undefined && v.amount_to !== undefined && compareDecimals(v.amount_from, v.amount_to) > 0) {
        throw invalidParam('amount_from', 'must not be above amount_to')
    }
    const given = v.transaction_types ?? v.tx_types
    const types = given && given.length > 0 ? given : null
    const named = (v.methods_names ?? '').split(',').map((n) => n.trim().toLowerCase()).filter(Boolean)
        .flatMap((n) => COMMON_METHODS.filter((m) => m.name.toLowerCase() === n).map((m) => m.method_id))
    const methods = [...new Set([...(v.methods ?? []), ...named])].slice(0, ADVANCED_FILTER_LIST_MAX)
    const tokensIn = v.token_contract_address_hashes_to_include ?? []
    const tokensOut = v.token_contract_address_hashes_to_exclude ?? []
    const filter: AdvancedFilter = {
        kinds: types && types.map((t) => t.toLowerCase()).filter((t): t is TransactionKind => (TRANSACTION_KINDS as readonly string[]).includes(t)),
        tokenTypes: types && types.filter((t) => (TOKEN_TYPES as readonly string[]).includes(t)),
        methods: methods.length > 0 ? methods : null,
        age: { from: ageFrom, to: ageTo },
        from: { include: v.from_address_hashes_to_include ?? [], exclude: v.from_address_hashes_to_exclude ?? [] },
        to: { include: v.to_address_hashes_to_include ?? [], exclude: v.to_address_hashes_to_exclude ?? [] },
        relation: v.address_relation ?? 'or',
        tokens: {
            include: tokensIn.filter((t) => t !== 'native'),
            exclude: tokensOut.filter((t) => t !== 'native'),
            includeNative: tokensIn.includes('native'),
            excludeNative: tokensOut.includes('native'),
        },
        amount: { from: v.amount_from ?? null, to: v.amount_to ?? null },
    }
    return filter
}

/** The cursor of next_page_params: block_number and transaction_index, and at most one item index below them. */
function cursorOf(v: z.infer<typeof AdvancedFilterQuery>): AdvancedFilterCursor | null {
    if (v.block_number === undefined) {
        if (v.transaction_index !== undefined) throw invalidParam('block_number', 'required with transaction_index')
        return null
    }
    if (v.transaction_index === undefined) throw invalidParam('transaction_index', 'required with block_number')
    const cursor: AdvancedFilterCursor = {
        block_number: v.block_number,
        transaction_index: v.transaction_index,
        internal_transaction_index: v.internal_transaction_index ?? null,
        token_transfer_index: v.token_transfer_index ?? null,
        token_transfer_batch_index: v.token_transfer_batch_index ?? null,
    }
    if (cursor.internal_transaction_index !== null && cursor.token_transfer_index !== null) {
        throw invalidParam('internal_transaction_index', 'an item is an internal transaction or a token transfer, not both')
    }
    if (cursor.token_transfer_batch_index !== null && cursor.token_transfer_index === null) {
        throw invalidParam('token_transfer_batch_index', 'given only with token_transfer_index')
    }
    return cursor
}

/** Compares two plain non-negative decimals exactly. */
function compareDecimals(a: string, b: string): number {
    const [ai, af = ''] = a.split('.')
    const [bi, bf = ''] = b.split('.')
    const width = Math.max(af.length, bf.length)
    const x = BigInt(ai + af.padEnd(width, '0'))
    const y = BigInt(bi + bf.padEnd(width, '0'))
    return x === y ? 0 : x > y ? 1 : -1
}

const DAY_MS = 86_400_000

/**
 * The export's filter: the list's, with its age bounded as an address export's period is. Without
 * age_from, the period starts CHAIN_API_CSV_EXPORT_MAX_PERIOD_DAYS before age_to (or now); a longer
 * one is a 422.
 */
function exportFilter(v: FilterParams, maxDays: number): AdvancedFilter {
    const filter = filterOf(v)
    const to = filter.age.to ?? new Date()
    const from = filter.age.from ?? new Date(to.getTime() - maxDays * DAY_MS)
    if (to.getTime() - from.getTime() > maxDays * DAY_MS) {
        throw invalidParam('age_from', `The period is longer than ${maxDays} days (CHAIN_API_CSV_EXPORT_MAX_PERIOD_DAYS): export it in parts`)
    }
    return { ...filter, age: { from, to: filter.age.to } }
}

const CURSOR_KEYS = {
    block_number: true, transaction_index: true, internal_transaction_index: true, token_transfer_index: true,
    token_transfer_batch_index: true, items_count: true, limit: true,
} as const
type CursorKey = keyof typeof CURSOR_KEYS

const AdvancedFilterCsvQuery = AdvancedFilterQuery.omit(CURSOR_KEYS).extend({ recaptcha_response: CaptchaResponse.optional() })

const MethodsQuery = z.object({ q: q.text.optional() })

const TAG = 'advanced-filters'

export function advancedFiltersRoutes(router: DocumentedRouter, ctx: ChainContext, csv: CsvExports): void {
    router.get('/advanced-filters', chainOperation(TAG, {
        operationId: 'listAdvancedFilter',
        summary: 'Transactions, token transfers and internal transactions in one filtered list, newest first',
        description: 'Blockscout\'s advanced filter: docs/chain-api.md#advanced-filter. next_page_params is the last item\'s position.',
        query: AdvancedFilterQuery,
    }, 'A page of items, the names of the methods and the tokens filtered by', AdvancedFilterPage), async (req, res) => {
        const { filter, cursor, limit } = parseAdvancedFilter(req.query)
        const page = await advancedFilterPage(ctx.db, filter, cursor, limit)
        const tokenIds = [...new Set([...filter.tokens.include, ...filter.tokens.exclude])].slice(0, ADVANCED_FILTER_LIST_MAX)
        const refs = advancedFilterRefs(page.rows)
        const loaded = await related(ctx.db, { ...refs, tokens: [...refs.tokens ?? [], ...tokenIds] })
        const last = page.rows.at(-1)
        setLiveCaching(res)
        res.json({
            items: renderAdvancedFilterItems(page.rows, loaded),
            search_params: {
                methods: Object.fromEntries((filter.methods ?? []).flatMap((m) => {
                    const name = methodName(m)
                    return name === undefined ? [] : [[m, name]]
                })),
                tokens: Object.fromEntries(tokenIds.flatMap((t) => {
                    const token = loaded.tokens.get(t)
                    return token ? [[t, renderToken(token)]] : []
                })),
            },
            next_page_params: page.more && last
                ? { ...carried(req.query, FILTER_KEYS), ...advancedFilterCursor(last), items_count: page.rows.length }
                : null,
        })
    })

    router.get('/advanced-filters/csv', csvOperation(TAG, {
        operationId: 'exportAdvancedFilterCsv',
        summary: 'The advanced filter\'s items as CSV (Blockscout\'s columns), newest first',
        description: 'The list\'s parameters, without its cursor. At most CHAIN_API_CSV_EXPORT_MAX_ROWS rows; an age range longer than ' +
            'CHAIN_API_CSV_EXPORT_MAX_PERIOD_DAYS answers 422, and without age_from the range is that many days back (docs/chain-api.md#advanced-filter).',
        query: AdvancedFilterCsvQuery,
        headers: CaptchaHeaders,
    }, 'The items as CSV'), async (req, res) => {
        const query = parseQuery(AdvancedFilterCsvQuery, req.query)
        const filter = exportFilter(query, ctx.env.CHAIN_API_CSV_EXPORT_MAX_PERIOD_DAYS)
        await csv.access.admit(req, res, captchaToken(req, query))
        await csv.stream(req, res, advancedFilterExport(ctx.db, filter), 'advanced_filter.csv')
    })

    router.get('/advanced-filters/methods', chainOperation(TAG, {
        operationId: 'listAdvancedFilterMethods',
        summary: 'Methods to filter by: the common ones, or those of a selector or a name (q)',
        query: MethodsQuery,
        reads: false,
    }, 'The methods', z.array(AdvancedFilterMethod)), async (req, res) => {
        const { q: text } = parseQuery(MethodsQuery, req.query)
        res.set('Cache-Control', 'public, max-age=3600')
        res.json(searchMethods(text))
    })
}

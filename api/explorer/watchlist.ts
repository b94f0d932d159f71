import { formatUnits } from 'viem'
import { z } from 'zod'
import { sessionOf } from './auth/sessions'
import { ApiDoc, DocumentedRouter, Operation } from '../../common/service/api-doc'
import { HttpError } from '../../common/service/http-error'
import { BODY_FAULTS, noSession, SESSION, timestamp } from './answers'
import { inTransaction } from '../../db/transaction'
import { notFound } from './errors'
import { ExplorerServices } from './services'
import { address, parseInput, text } from './validate'

/**
 * GET/POST /watchlist and DELETE /watchlist/:address: the addresses an account follows, stored
 * lowercase (so another spelling of the same address is the same entry), each with an optional
 * name, the native balance the indexer last saw, and which of its transfers mail the owner
 * (watchlist-alerts.ts; the fields are Blockscout's: docs/explorer-api.md#watchlist-alerts).
 */
export const WATCHLIST_LIMIT = 100

/** The transfer kinds an entry can alert on, as Blockscout names them, and their columns. */
export const ALERT_KINDS = { native: 'native', 'ERC-20': 'erc20', 'ERC-721': 'erc721' } as const
export type AlertKind = keyof typeof ALERT_KINDS
/**
 * The kinds of transfer that alert, and the switch each is behind. Blockscout's settings have no
 * ERC-1155 switch, so ERC-1155 transfers, NFTs too, are behind the ERC-721 one.
 */
export const ALERT_SWITCHES = { ...ALERT_KINDS, 'ERC-1155': ALERT_KINDS['ERC-721'] } as const
export type AlertTransferKind = keyof typeof ALERT_SWITCHES
const KIND_NAMES = Object.keys(ALERT_KINDS) as AlertKind[]

const Directions = z.strictObject({ incoming: z.boolean().optional(), outgoing: z.boolean().optional() })

const AddBody = z.object({
    address,
    /** A label; null clears it, absent keeps what an existing entry has. */
    name: text(100).nullable().optional(),
    /** Per kind and direction; what is absent keeps its value (on by default). */
    notification_settings: z.strictObject(Object.fromEntries(KIND_NAMES.map((k) => [k, Directions.optional()])) as Record<AlertKind, z.ZodOptional<typeof Directions>>).optional(),
    /** Whether matching transfers are mailed to the account's address; off by default. */
    notification_methods: z.strictObject({ email: z.boolean() }).optional(),
})

/** The columns a body sets, in a fixed order. */
function settingColumns(body: z.output<typeof AddBody>): [string, boolean][] {
    const columns: [string, boolean][] = []
    for (const kind of KIND_NAMES) {
        const given = body.notification_settings?.[kind]
        if (given?.incoming !== undefined) columns.push([`notify_${ALERT_KINDS[kind]}_incoming`, given.incoming])
        if (given?.outgoing !== undefined) columns.push([`notify_${ALERT_KINDS[kind]}_outgoing`, given.outgoing])
    }
    if (body.notification_methods) columns.push(['notify_email', body.notification_methods.email])
    return columns
}

const Params = z.object({ address })

type EntryRow = {
    address: string
    name: string | null
    created_at: Date
    balance: string | null
    balance_block: number | null
    notify_email: boolean
} & Record<`notify_${(typeof ALERT_KINDS)[AlertKind]}_${'incoming' | 'outgoing'}`, boolean>

const ENTRY_SELECT = `
    SELECT w.address, w.name, w.created_at, a.balance::text AS balance, a.balance_block, w.notify_email,
           w.notify_native_incoming, w.notify_native_outgoing, w.notify_erc20_incoming, w.notify_erc20_outgoing,
           w.notify_erc721_incoming, w.notify_erc721_outgoing
    FROM explorer_watchlist w LEFT JOIN address a ON a.id = w.address`

function entry(row: EntryRow) {
    return {
        address: row.address,
        name: row.name,
        /** In anative, exact; null when the indexer has never seen the address. */
        balance: row.balance,
        /** The same in NATIVE, as a decimal string. */
        balance_native: row.balance === null ? null : formatUnits(BigInt(row.balance), 18),
        balance_block: row.balance_block,
        added_at: row.created_at.toISOString(),
        notification_settings: Object.fromEntries(KIND_NAMES.map((k) => [k, {
            incoming: row[`notify_${ALERT_KINDS[k]}_incoming`],
            outgoing: row[`notify_${ALERT_KINDS[k]}_outgoing`],
        }])),
        notification_methods: { email: row.notify_email },
    }
}

const entrySchema = z.looseObject({
    address: z.string().meta({ description: 'Lowercase' }),
    name: z.string().nullable(),
    balance: z.string().nullable().meta({ description: 'Native balance in anative (exact) as the indexer last saw it; null if it never saw the address' }),
    balance_native: z.string().nullable().meta({ description: 'The same in NATIVE, a decimal string' }),
    balance_block: z.int().nullable(),
    added_at: timestamp,
    notification_settings: z.looseObject(Object.fromEntries(KIND_NAMES.map((k) => [k, z.looseObject({ incoming: z.boolean(), outgoing: z.boolean() })])))
        .meta({ description: 'Which transfers of the address alert, by kind (`native`, `ERC-20`, `ERC-721`) and direction; all on unless turned off' }),
    notification_methods: z.looseObject({ email: z.boolean() })
        .meta({ description: 'Whether alerts are mailed to the account (off unless turned on); mail starts with the first block indexed after it is turned on' }),
}).meta({ id: 'WatchlistEntry' })

const listOperation: Operation = {
    operationId: 'listWatchlist',
    summary: 'The addresses the account follows',
    security: [SESSION],
    responses: {
        200: {
            description: 'The watchlist, oldest entry first',
            schema: z.looseObject({ items: z.array(entrySchema), count: z.int(), limit: z.int() }),
        },
        401: noSession,
    },
}

const addOperation: Operation = {
    operationId: 'watchAddress',
    summary: 'Follow an address, or change the label or alerts of one already followed',
    description: `A given \`name\` relabels an existing entry, \`null\` clears it; \`notification_settings\` and \`notification_methods\` change what they name and keep the rest. At most ${WATCHLIST_LIMIT} addresses.`,
    security: [SESSION],
    body: AddBody,
    responses: {
        201: { description: 'The new entry', schema: entrySchema },
        200: { description: 'The address was already there (relabelled if a name was given)', schema: entrySchema },
        400: 'A field is missing or invalid (invalid_request), or the body is not JSON (invalid_json)',
        401: noSession,
        409: `The watchlist holds ${WATCHLIST_LIMIT} addresses already (watchlist_full)`,
        ...BODY_FAULTS,
    },
}

const removeOperation: Operation = {
    operationId: 'unwatchAddress',
    summary: 'Stop following an address',
    security: [SESSION],
    params: Params,
    responses: {
        204: { description: 'Removed' },
        400: 'The address is not 0x and 40 hexadecimal digits (invalid_request)',
        401: noSession,
        404: 'The address is not on the watchlist (not_found)',
    },
}

export function watchlistRouter(s: ExplorerServices, doc: ApiDoc): DocumentedRouter {
    const router = doc.router('/api/watchlist', 'Watchlist')
    router.use(s.sessions.required())

    router.get('/', listOperation, async (_req, res) => {
        const { account } = sessionOf(res)
        const { rows } = await s.ctx.pool.query<EntryRow>(
            `${ENTRY_SELECT} WHERE w.account_id = $1 ORDER BY w.created_at, w.address`,
            [account.id]
        )
        res.json({ items: rows.map(entry), count: rows.length, limit: WATCHLIST_LIMIT })
    })

    router.post('/', addOperation, async (req, res) => {
        const { account } = sessionOf(res)
        const body = parseInput(AddBody, req.body, 'body')
        const created = await inTransaction(s.ctx.pool, async (db) => {
            // Serialises this account's additions, so two at once cannot pass the limit together.
            await db.query('SELECT 1 FROM explorer_account WHERE id = $1 FOR UPDATE', [account.id])
            const existing = await db.query('SELECT 1 FROM explorer_watchlist WHERE account_id = $1 AND address = $2', [account.id, body.address])
            if (!existing.rowCount) {
                const { rows } = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM explorer_watchlist WHERE account_id = $1', [account.id])
                if (rows[0].count >= WATCHLIST_LIMIT) {
                    throw new HttpError(409, `a watchlist holds at most ${WATCHLIST_LIMIT} addresses; remove one first`, { code: 'watchlist_full' })
                }
                await db.query('INSERT INTO explorer_watchlist (account_id, address) VALUES ($1, $2)', [account.id, body.address])
            }
            const set: [string, unknown][] = [...settingColumns(body)]
            if (body.name !== undefined) set.push(['name', body.name])
            if (set.length) {
                // Mail starts after what is indexed now, when it is turned on: history never mails.
                const alertsFrom = `CASE WHEN notify_email THEN alerts_from_block ELSE COALESCE((SELECT last_block + 1 FROM chain_counters WHERE id = 'chain'), 0) END`
                await db.query(
                    `UPDATE explorer_watchlist SET ${set.map(([column], i) => `"${column}" = $${i + 3}`).join(', ')}${body.notification_methods?.email ? `, alerts_from_block = ${alertsFrom}` : ''}
                     WHERE account_id = $1 AND address = $2`,
                    [account.id, body.address, ...set.map(([, value]) => value)]
                )
            }
            return !existing.rowCount
        })
        const { rows } = await s.ctx.pool.query<EntryRow>(`${ENTRY_SELECT} WHERE w.account_id = $1 AND w.address = $2`, [account.id, body.address])
        res.status(created ? 201 : 200).json(entry(rows[0]))
    })

    router.delete('/:address', removeOperation, async (req, res) => {
        const { account } = sessionOf(res)
        const params = parseInput(Params, req.params, 'params')
        const { rowCount } = await s.ctx.pool.query('DELETE FROM explorer_watchlist WHERE account_id = $1 AND address = $2', [account.id, params.address])
        if (!rowCount) throw notFound(`${params.address} is not on the watchlist`)
        res.status(204).end()
    })

    return router
}

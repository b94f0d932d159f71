import express, { Router } from 'express'
import { formatUnits } from 'viem'
import { z } from 'zod'
import { sessionOf } from './auth/sessions'
import { HttpError } from '../../common/service/http-error'
import { inTransaction } from '../../db/transaction'
import { notFound } from './errors'
import { ExplorerServices } from './services'
import { address, parseInput, text } from './validate'

/**
 * GET/POST /watchlist and DELETE /watchlist/:address: the addresses an account follows, stored
 * lowercase (so another spelling of the same address is the same entry), each with an optional
 * name and the native balance the indexer last saw.
 */
export const WATCHLIST_LIMIT = 100

const AddBody = z.object({
    address,
    /** A label; null clears it, absent keeps what an existing entry has. */
    name: text(100).nullable().optional(),
})

const Params = z.object({ address })

interface EntryRow {
    address: string
    name: string | null
    created_at: Date
    balance: string | null
    balance_block: number | null
}

const ENTRY_SELECT = `
    SELECT w.address, w.name, w.created_at, a.balance::text AS balance, a.balance_block
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
    }
}

export function watchlistRouter(s: ExplorerServices): Router {
    const router = express.Router()
    router.use(s.sessions.required())

    router.get('/', async (_req, res) => {
        const { account } = sessionOf(res)
        const { rows } = await s.ctx.pool.query<EntryRow>(
            `${ENTRY_SELECT} WHERE w.account_id = $1 ORDER BY w.created_at, w.address`,
            [account.id]
        )
        res.json({ items: rows.map(entry), count: rows.length, limit: WATCHLIST_LIMIT })
    })

    router.post('/', async (req, res) => {
        const { account } = sessionOf(res)
        const body = parseInput(AddBody, req.body, 'body')
        const created = await inTransaction(s.ctx.pool, async (db) => {
            // Serialises this account's additions, so two at once cannot pass the limit together.
            await db.query('SELECT 1 FROM explorer_account WHERE id = $1 FOR UPDATE', [account.id])
            const existing = await db.query('SELECT 1 FROM explorer_watchlist WHERE account_id = $1 AND address = $2', [account.id, body.address])
            if (existing.rowCount) {
                if (body.name !== undefined) {
                    await db.query('UPDATE explorer_watchlist SET name = $3 WHERE account_id = $1 AND address = $2', [account.id, body.address, body.name])
                }
                return false
            }
            const { rows } = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM explorer_watchlist WHERE account_id = $1', [account.id])
            if (rows[0].count >= WATCHLIST_LIMIT) {
                throw new HttpError(409, `a watchlist holds at most ${WATCHLIST_LIMIT} addresses; remove one first`, { code: 'watchlist_full' })
            }
            await db.query('INSERT INTO explorer_watchlist (account_id, address, name) VALUES ($1, $2, $3)', [account.id, body.address, body.name ?? null])
            return true
        })
        const { rows } = await s.ctx.pool.query<EntryRow>(`${ENTRY_SELECT} WHERE w.account_id = $1 AND w.address = $2`, [account.id, body.address])
        res.status(created ? 201 : 200).json(entry(rows[0]))
    })

    router.delete('/:address', async (req, res) => {
        const { account } = sessionOf(res)
        const params = parseInput(Params, req.params, 'params')
        const { rowCount } = await s.ctx.pool.query('DELETE FROM explorer_watchlist WHERE account_id = $1 AND address = $2', [account.id, params.address])
        if (!rowCount) throw notFound(`${params.address} is not on the watchlist`)
        res.status(204).end()
    })

    return router
}

import { RequestHandler } from 'express'
import { z } from 'zod'
import { Operation } from '../../common/service/api-doc'
import { noSession, SESSION } from './answers'
import { accountSchema, publicAccount } from './auth/accounts'
import { sessionOf } from './auth/sessions'
import { ExplorerServices } from './services'
import { WATCHLIST_LIMIT } from './watchlist'

export const profileOperation: Operation = {
    operationId: 'getProfile',
    summary: 'The signed-in account with its watchlist usage',
    tags: ['Profile'],
    security: [SESSION],
    responses: {
        200: {
            description: 'The account',
            schema: accountSchema.extend({ watchlist: z.looseObject({ count: z.int(), limit: z.int() }) }),
        },
        401: noSession,
    },
}

/** GET /profile: the account with its watchlist usage. */
export function profile(s: ExplorerServices): RequestHandler {
    return async (_req, res) => {
        const { account } = sessionOf(res)
        const { rows } = await s.ctx.pool.query<{ count: number }>(
            'SELECT count(*)::int AS count FROM explorer_watchlist WHERE account_id = $1',
            [account.id]
        )
        res.json({
            ...publicAccount(account),
            watchlist: { count: rows[0].count, limit: WATCHLIST_LIMIT },
        })
    }
}

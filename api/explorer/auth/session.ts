import { RequestHandler } from 'express'
import { ExplorerServices } from '../services'
import { sessionOf } from './sessions'
import { publicAccount } from './accounts'

/** GET /auth/me: the signed-in account and its session. */
export const me: RequestHandler = (_req, res) => {
    const session = sessionOf(res)
    res.json({
        account: publicAccount(session.account),
        session: {
            created_at: session.createdAt.toISOString(),
            expires_at: session.expiresAt.toISOString(),
            remember: session.remember,
        },
    })
}

/** GET /auth/status: whether the bearer's session is live (a 401 otherwise), for cheap polling. */
export const status: RequestHandler = (_req, res) => {
    const session = sessionOf(res)
    res.json({
        authenticated: true,
        email_verified: session.account.email_verified_at !== null,
        expires_at: session.expiresAt.toISOString(),
    })
}

/** POST /auth/logout: ends the bearer's session; its token is refused with 401 from then on. */
export function logout(s: ExplorerServices): RequestHandler {
    return async (_req, res) => {
        await s.sessions.revoke(sessionOf(res).id)
        res.status(204).end()
    }
}

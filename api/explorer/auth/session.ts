import { RequestHandler } from 'express'
import { z } from 'zod'
import { Operation } from '../../../common/service/api-doc'
import { noSession, SESSION, timestamp } from '../answers'
import { ExplorerServices } from '../services'
import { sessionOf } from './sessions'
import { accountSchema, publicAccount } from './accounts'

export const meOperation: Operation = {
    operationId: 'getSession',
    summary: 'The signed-in account and its session',
    security: [SESSION],
    responses: {
        200: {
            description: 'The account and its session',
            schema: z.looseObject({
                account: accountSchema,
                session: z.looseObject({ created_at: timestamp, expires_at: timestamp, remember: z.boolean() }),
            }),
        },
        401: noSession,
    },
}

export const statusOperation: Operation = {
    operationId: 'checkSession',
    summary: 'Whether the session is live',
    description: 'For cheap polling: 200 while the bearer token\'s session is live, 401 once it has ended.',
    security: [SESSION],
    responses: {
        200: {
            description: 'The session is live',
            schema: z.looseObject({ authenticated: z.literal(true), email_verified: z.boolean(), expires_at: timestamp }),
        },
        401: noSession,
    },
}

export const logoutOperation: Operation = {
    operationId: 'signOut',
    summary: 'Sign out',
    description: 'Ends the bearer token\'s session: the token gets 401 from then on.',
    security: [SESSION],
    responses: {
        204: { description: 'The session has ended' },
        401: noSession,
    },
}

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

import { createHmac, timingSafeEqual } from 'crypto'
import { z } from 'zod'
import { DocumentedRouter, Operation } from '../../../common/service/api-doc'
import { badRequest } from '../errors'
import { ExplorerServices } from '../services'
import { parseInput } from '../validate'

/**
 * GET or POST /api/alerts/unsubscribe?token=…: the link in every alert turns email off for that
 * one address, without a session (the link is the proof). The token is an HMAC of the account
 * and the address under the session secret, with its own purpose string, so it can never pass
 * for anything else and needs no storage. docs/explorer-api.md#watchlist-alerts
 */

const PURPOSE = 'watchlist-unsubscribe'

function mac(secret: string, accountId: string, address: string): Buffer {
    return createHmac('sha256', secret).update(`${PURPOSE}\n${accountId}\n${address}`).digest()
}

export function unsubscribeToken(secret: string, accountId: string, address: string): string {
    return `${accountId}.${address}.${mac(secret, accountId, address).toString('base64url')}`
}

export function unsubscribeLink(publicUrl: string, secret: string, accountId: string, address: string): string {
    return `${publicUrl}/alerts/unsubscribe?token=${unsubscribeToken(secret, accountId, address)}`
}

/** The account and address a genuine token names; undefined for anything else. */
export function readUnsubscribeToken(secret: string, token: string): { accountId: string; address: string } | undefined {
    const match = /^([0-9a-f-]{36})\.(0x[0-9a-f]{40})\.([A-Za-z0-9_-]{43})$/.exec(token)
    if (!match) return undefined
    const [, accountId, address, given] = match
    const expected = mac(secret, accountId, address)
    const provided = Buffer.from(given, 'base64url')
    return provided.length === expected.length && timingSafeEqual(provided, expected) ? { accountId, address } : undefined
}

const Query = z.object({ token: z.string().max(200) })

const operation: Operation = {
    operationId: 'unsubscribeAlert',
    summary: 'Turn off the alert mail of one watched address (the link in each alert)',
    description: 'No session: the token in the link is the proof. POST is the one-click form of RFC 8058 that mail clients use; GET is the link itself. Answers the same however often it is used.',
    query: Query,
    responses: {
        200: { description: 'Email alerts of the address are off', schema: z.looseObject({ address: z.string(), notification_methods: z.looseObject({ email: z.boolean() }) }) },
        400: 'The token is missing, malformed or not one this server made (invalid_request)',
    },
}

export function unsubscribeRoutes(s: ExplorerServices, router: DocumentedRouter): void {
    const handler = async (req: { query: unknown }, res: { json(body: unknown): unknown }) => {
        const { token } = parseInput(Query, req.query, 'query')
        const named = readUnsubscribeToken(s.ctx.secrets.jwtSecret, token)
        if (!named) throw badRequest('token: is not a valid unsubscribe token', 'token')
        await s.ctx.pool.query('UPDATE explorer_watchlist SET notify_email = false WHERE account_id = $1 AND address = $2', [named.accountId, named.address])
        res.json({ address: named.address, notification_methods: { email: false } })
    }
    router.get('/alerts/unsubscribe', operation, handler)
    router.post('/alerts/unsubscribe', { ...operation, operationId: 'unsubscribeAlertOneClick' }, handler)
}

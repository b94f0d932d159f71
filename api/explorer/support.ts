import { RequestHandler } from 'express'
import { z } from 'zod'
import { Operation } from '../../common/service/api-doc'
import { clientIp } from '../../common/service/client-ip'
import { BODY_FAULTS, rateLimitHeaders, timestamp, tooManyRequests } from './answers'
import { ExplorerServices } from './services'
import { email, parseInput, text } from './validate'

/**
 * POST /support/requests: a support request or an application, stored for the operators. Only an
 * id comes back; the submitted text is never echoed, and whoever reads the table must escape it.
 */
const Body = z.object({
    kind: z.enum(['support', 'application'], 'must be "support" or "application"'),
    name: text(100),
    email,
    subject: text(200),
    message: text(5000, 10),
})

export const supportRequestOperation: Operation = {
    operationId: 'sendSupportRequest',
    summary: 'Send a support request or an application',
    description: 'Stored for the operators; the submitted text is never echoed.',
    tags: ['Forms'],
    body: Body,
    responses: {
        201: {
            description: 'The request is stored',
            schema: z.looseObject({ id: z.uuid(), kind: Body.shape.kind, received_at: timestamp }),
            headers: rateLimitHeaders,
        },
        400: 'A field is missing or invalid (invalid_request), or the body is not JSON (invalid_json)',
        ...BODY_FAULTS,
        429: tooManyRequests('support requests and newsletter subscriptions from this IP'),
    },
}

export function supportRequest(s: ExplorerServices): RequestHandler {
    return async (req, res) => {
        const body = parseInput(Body, req.body, 'body')
        const { rows } = await s.ctx.pool.query<{ id: string; created_at: Date }>(
            `INSERT INTO explorer_support_request (kind, name, email, subject, message, client_ip)
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING id, created_at`,
            [body.kind, body.name, body.email, body.subject, body.message, clientIp(req)]
        )
        res.status(201).json({ id: rows[0].id, kind: body.kind, received_at: rows[0].created_at.toISOString() })
    }
}

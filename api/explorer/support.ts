import { RequestHandler } from 'express'
import { z } from 'zod'
import { clientIp } from '../../common/service/client-ip'
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

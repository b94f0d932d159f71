import { RequestHandler } from 'express'
import { z } from 'zod'
import { Operation } from '../../common/service/api-doc'
import { clientIp } from '../../common/service/client-ip'
import { BODY_FAULTS, rateLimitHeaders, tooManyRequests } from './answers'
import { ExplorerServices } from './services'
import { email, parseInput } from './validate'

const Body = z.object({ email })

export const subscribeOperation: Operation = {
    operationId: 'subscribeNewsletter',
    summary: 'Subscribe to the newsletter',
    description: 'Subscribing an address again is the same success.',
    tags: ['Forms'],
    body: Body,
    responses: {
        200: { description: 'The address is subscribed', schema: z.looseObject({ subscribed: z.literal(true), email: z.string() }), headers: rateLimitHeaders },
        400: 'The email is missing or invalid (invalid_request), or the body is not JSON (invalid_json)',
        ...BODY_FAULTS,
        429: tooManyRequests('support requests and newsletter subscriptions from this IP'),
    },
}

/**
 * POST /newsletter/subscribe: one row per address. Subscribing again is a success with the same
 * answer, so the route neither fails nor tells who is subscribed already.
 */
export function subscribe(s: ExplorerServices): RequestHandler {
    return async (req, res) => {
        const body = parseInput(Body, req.body, 'body')
        await s.ctx.pool.query(
            'INSERT INTO explorer_newsletter_subscriber (email, client_ip) VALUES ($1, $2) ON CONFLICT (email) DO NOTHING',
            [body.email, clientIp(req)]
        )
        res.json({ subscribed: true, email: body.email })
    }
}

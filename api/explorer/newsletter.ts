import { RequestHandler } from 'express'
import { z } from 'zod'
import { clientIp } from '../../common/service/client-ip'
import { ExplorerServices } from './services'
import { email, parseInput } from './validate'

const Body = z.object({ email })

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

import cors from 'cors'
import express, { Router } from 'express'
import { ApiDoc } from '../../common/service/api-doc'
import { HashPool } from '../../common/hash-pool'
import { errorHandler } from '../../common/service/error-handler'
import { ApiContext } from '../context'
import { authRouter } from './auth'
import { Challenges } from './auth/challenges'
import { Passwords } from './auth/passwords'
import { Sessions } from './auth/sessions'
import { defiRouter } from './defi'
import { explorerErrors, unknownPath } from './errors'
import { Mailer } from './mail'
import { subscribe } from './newsletter'
import { profile } from './profile'
import { createLimits } from './rate-limits'
import { ExplorerServices } from './services'
import { supportRequest } from './support'
import { watchlistRouter } from './watchlist'

/** Largest JSON body accepted: the biggest legitimate one (a support message of 5,000 characters) fits several times. */
const BODY_LIMIT = '64kb'

/** The explorer services API under /api (docs/explorer-api.md). */
export function explorerRouter(ctx: ApiContext, _doc: ApiDoc): Router {
    const s: ExplorerServices = {
        ctx,
        mailer: new Mailer(ctx.env, ctx.log),
        limits: createLimits(ctx.pool, ctx.env),
        sessions: new Sessions(ctx.pool, ctx.secrets.jwtSecret),
        challenges: new Challenges(ctx.secrets.jwtSecret),
        passwords: new Passwords(new HashPool({ concurrency: ctx.env.EXPLORER_HASH_CONCURRENCY, queue: ctx.env.EXPLORER_HASH_QUEUE })),
        publicUrl: (ctx.env.PUBLIC_URL ?? `http://localhost:${ctx.env.EXPLORER_PORT}/api`).replace(/\/+$/, ''),
    }
    const router = express.Router()
    // Bearer tokens, no cookies: any origin may call, and browsers may read the rate-limit and cache headers.
    router.use(cors({
        exposedHeaders: ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy', 'Retry-After', 'ETag'],
    }))
    router.use((_req, res, next) => {
        res.set('X-Content-Type-Options', 'nosniff')
        next()
    })
    // Per-IP limits before the body is read, so that malformed requests use up the budget too.
    router.post('/auth/signin', s.limits.signin.perIp())
    router.post('/auth/signup', s.limits.signup.perIp())
    router.post('/auth/verify-code', s.limits.verifyCode.perIp())
    router.post('/auth/reset-password', s.limits.resetPassword.perIp())
    router.post(['/auth/resend-code', '/auth/forgot-password'], s.limits.mailRequests.perIp())
    router.post(['/support/requests', '/newsletter/subscribe'], s.limits.forms.perIp())
    router.use(express.json({ limit: BODY_LIMIT }))

    router.use('/auth', authRouter(s))
    router.get('/profile', s.sessions.required(), profile(s))
    router.use('/watchlist', watchlistRouter(s))
    router.post('/support/requests', supportRequest(s))
    router.post('/newsletter/subscribe', subscribe(s))
    router.use('/defi', defiRouter(s))

    router.use(unknownPath)
    router.use(errorHandler(explorerErrors, ctx.log))
    return router
}

import cors from 'cors'
import express from 'express'
import { ApiDoc, DocumentedRouter } from '../../common/service/api-doc'
import { WorkPool } from '../../common/work-pool'
import { errorHandler } from '../../common/service/error-handler'
import { ApiContext } from '../context'
import { BODY_LIMIT, SESSION } from './answers'
import { authRouter } from './auth'
import { Challenges } from './auth/challenges'
import { Passwords } from './auth/passwords'
import { Sessions } from './auth/sessions'
import { defiRouters } from './defi'
import { explorerErrors, unknownPath } from './errors'
import { Mailer } from './mail'
import { subscribe, subscribeOperation } from './newsletter'
import { profile, profileOperation } from './profile'
import { createLimits } from './rate-limits'
import { ExplorerServices } from './services'
import { supportRequest, supportRequestOperation } from './support'
import { watchlistRouter } from './watchlist'
import { unsubscribeRoutes } from './alerts/unsubscribe'

/** What the explorer routes and the watchlist alerts share, made once per process. */
export function explorerServices(ctx: ApiContext): ExplorerServices {
    return {
        ctx,
        mailer: new Mailer(ctx.env, ctx.log),
        limits: createLimits(ctx.pool, ctx.env),
        sessions: new Sessions(ctx.pool, ctx.secrets.jwtSecret),
        challenges: new Challenges(ctx.secrets.jwtSecret),
        passwords: new Passwords(new WorkPool({ concurrency: ctx.env.EXPLORER_HASH_CONCURRENCY, queue: ctx.env.EXPLORER_HASH_QUEUE })),
        publicUrl: (ctx.env.PUBLIC_URL ?? `http://localhost:${ctx.env.EXPLORER_PORT}/api`).replace(/\/+$/, ''),
    }
}

/** The explorer services API under /api (docs/explorer-api.md); mount it with doc.mount. */
export function explorerRouter(s: ExplorerServices, doc: ApiDoc): DocumentedRouter {
    const { ctx } = s
    doc.securityScheme(SESSION, { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
    const router = doc.router('/api', 'Explorer services')
    // Bearer tokens, no cookies: any origin may call, and browsers may read the rate-limit and cache headers.
    router.use(cors({
        exposedHeaders: ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy', 'Retry-After', 'ETag'],
    }))
    router.use((_req, res, next) => {
        res.set('X-Content-Type-Options', 'nosniff')
        next()
    })
    // Per-IP limits before the body is read, so that malformed requests use up the budget too.
    router.before('post', '/auth/signin', s.limits.signin.perIp())
    router.before('post', '/auth/signup', s.limits.signup.perIp())
    router.before('post', '/auth/verify-code', s.limits.verifyCode.perIp())
    router.before('post', '/auth/reset-password', s.limits.resetPassword.perIp())
    const mailRequests = s.limits.mailRequests.perIp()
    router.before('post', '/auth/resend-code', mailRequests)
    router.before('post', '/auth/forgot-password', mailRequests)
    const forms = s.limits.forms.perIp()
    router.before('post', '/support/requests', forms)
    router.before('post', '/newsletter/subscribe', forms)
    router.use(express.json({ limit: BODY_LIMIT }))

    router.mount(authRouter(s, doc))
    router.get('/profile', profileOperation, s.sessions.required(), profile(s))
    unsubscribeRoutes(s, router)
    router.mount(watchlistRouter(s, doc))
    router.post('/support/requests', supportRequestOperation, supportRequest(s))
    router.post('/newsletter/subscribe', subscribeOperation, subscribe(s))
    for (const defi of defiRouters(s, doc)) router.mount(defi)

    router.use(unknownPath)
    router.use(errorHandler(explorerErrors, ctx.log))
    return router
}

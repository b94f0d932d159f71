import express, { Router } from 'express'
import { ExplorerServices } from '../services'
import { forgotPassword, resetPassword } from './password-reset'
import { logout, me, status } from './session'
import { signin } from './signin'
import { signup } from './signup'
import { resendCode, verifyCode, verifyLink } from './verification'

/** The /auth routes. Their per-IP rate limits are applied by explorerRouter, before the body is read. */
export function authRouter(s: ExplorerServices): Router {
    const router = express.Router()
    router.post('/signup', signup(s))
    router.post('/signin', signin(s))
    router.get('/me', s.sessions.required(), me)
    router.get('/status', s.sessions.required(), status)
    router.post('/logout', s.sessions.required(), logout(s))
    router.get('/verify', verifyLink(s))
    router.post('/verify-code', verifyCode(s))
    router.post('/resend-code', resendCode(s))
    router.post('/forgot-password', forgotPassword(s))
    router.post('/reset-password', resetPassword(s))
    return router
}

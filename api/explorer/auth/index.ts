import { ApiDoc, DocumentedRouter } from '../../../common/service/api-doc'
import { ExplorerServices } from '../services'
import { forgotPassword, forgotPasswordOperation, resetPassword, resetPasswordOperation } from './password-reset'
import { logout, logoutOperation, me, meOperation, status, statusOperation } from './session'
import { signin, signinOperation } from './signin'
import { signup, signupOperation } from './signup'
import { resendCode, resendCodeOperation, verifyCode, verifyCodeOperation, verifyLink, verifyLinkOperation } from './verification'

/** The /auth routes. Their per-IP rate limits are applied by explorerRouter, before the body is read. */
export function authRouter(s: ExplorerServices, doc: ApiDoc): DocumentedRouter {
    return doc.router('/api/auth', 'Accounts')
        .post('/signup', signupOperation, signup(s))
        .post('/signin', signinOperation, signin(s))
        .get('/me', meOperation, s.sessions.required(), me)
        .get('/status', statusOperation, s.sessions.required(), status)
        .post('/logout', logoutOperation, s.sessions.required(), logout(s))
        .get('/verify', verifyLinkOperation, verifyLink(s))
        .post('/verify-code', verifyCodeOperation, verifyCode(s))
        .post('/resend-code', resendCodeOperation, resendCode(s))
        .post('/forgot-password', forgotPasswordOperation, forgotPassword(s))
        .post('/reset-password', resetPasswordOperation, resetPassword(s))
}

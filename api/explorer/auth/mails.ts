import { z } from 'zod'
import { Operation } from '../../../common/service/api-doc'
import { BODY_FAULTS, messageSchema, rateLimitHeaders, tooManyRequests } from '../answers'
import { ExplorerEnv } from '../config'
import { Mail } from '../mail'
import { IssuedChallenge, LIFETIME_SECONDS, MAX_ATTEMPTS } from './challenges'

/** The two mails the explorer sends (plain text, so nothing in them is rendered as HTML), and how the routes that send them on request are documented. */

/**
 * The operation of a route that mails an address on request (resend-code, forgot-password): one
 * answer whether or not an account uses the address, budgets per IP and per address.
 */
export function mailRequestOperation(o: { operationId: string; summary: string; body: z.ZodType; sent: string; mails: string }): Operation {
    return {
        operationId: o.operationId,
        summary: o.summary,
        description: 'The same answer whether or not an account uses the address.',
        body: o.body,
        responses: {
            202: { description: o.sent, schema: messageSchema, headers: rateLimitHeaders },
            400: 'The email is missing or invalid (invalid_request), or the body is not JSON (invalid_json)',
            ...BODY_FAULTS,
            429: tooManyRequests(`mail requests from this IP, or ${o.mails} to this address`),
            503: 'Mail is not configured on this deployment (not_configured)',
        },
    }
}

export function verificationMail(to: string, challenge: IssuedChallenge, publicUrl: string): Mail {
    const link = `${publicUrl}/auth/verify?token=${encodeURIComponent(challenge.token)}`
    return {
        to,
        purpose: 'verify_email',
        subject: 'Your verification code',
        text: [
            `Your verification code is ${challenge.code}`,
            '',
            'Enter it where you signed up, or open this link to verify your email address:',
            link,
            '',
            `The code and the link work once, for ${LIFETIME_SECONDS.verify_email / 3600} hours, ` +
                `and stop working after ${MAX_ATTEMPTS} wrong codes (you can ask for a new one).`,
            'If you did not sign up, ignore this message.',
        ].join('\n'),
    }
}

export function resetMail(to: string, challenge: IssuedChallenge, env: ExplorerEnv): Mail {
    const page = env.PASSWORD_RESET_URL
    const link = page ? `${page}${page.includes('?') ? '&' : '?'}token=${encodeURIComponent(challenge.token)}` : undefined
    return {
        to,
        purpose: 'reset_password',
        subject: 'Reset your password',
        text: [
            'Someone (hopefully you) asked to reset the password of your account.',
            '',
            ...(link ? ['Open this link to choose a new password:', link, '', 'Or use this reset token:'] : ['Your reset token:']),
            `Reset token: ${challenge.token}`,
            '',
            `It works once, within ${LIFETIME_SECONDS.reset_password / 60} minutes. Setting a new password signs out every session.`,
            'If you did not ask for this, ignore this message: your password stays as it is.',
        ].join('\n'),
    }
}

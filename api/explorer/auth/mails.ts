import { ExplorerEnv } from '../config'
import { Mail } from '../mail'
import { IssuedChallenge, LIFETIME_SECONDS, MAX_ATTEMPTS } from './challenges'

/** The texts of the two mails the explorer sends. Plain text, so nothing in them is rendered as HTML. */

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

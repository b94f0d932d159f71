import { HttpError } from '../../../common/service/http-error'

/**
 * A captcha token checked with its provider, server-side: reCAPTCHA, hCaptcha and Turnstile all take
 * the same siteverify request (a form POST of `secret` and `response`) and answer
 * `{"success": true|false, ...}`. Stands in for Blockscout's reCAPTCHA check of CSV exports. The
 * optional `remoteip` is not sent: the provider need not learn the client's address.
 */
export interface CaptchaSettings {
    secret: string
    verifyUrl: string
    timeoutMs: number
}

export class CaptchaVerifier {
    constructor(private readonly settings: CaptchaSettings) {}

    /** Resolves when the provider accepts the token; 403 when it refuses it, 503 when it cannot be asked. */
    async verify(token: string): Promise<void> {
        const body = new URLSearchParams({ secret: this.settings.secret, response: token })
        let answer: unknown
        try {
            const res = await fetch(this.settings.verifyUrl, {
                method: 'POST',
                headers: { 'content-type': 'application/x-www-form-urlencoded' },
                body,
                signal: AbortSignal.timeout(this.settings.timeoutMs),
            })
            if (!res.ok) throw new Error(`HTTP ${res.status}`)
            answer = await res.json()
        } catch {
            throw new HttpError(503, 'The captcha could not be checked with its provider; try again later')
        }
        if ((answer as { success?: unknown } | null)?.success !== true) throw new HttpError(403, 'Invalid reCAPTCHA response')
    }
}

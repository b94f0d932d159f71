import { Request, Response } from 'express'
import { clientKey } from '../../../common/service/client-ip'
import { HttpError } from '../../../common/service/http-error'
import { RateLimit } from '../../../common/service/rate-limit'
import { ChainContext } from '../context'
import { CaptchaVerifier } from './captcha'

/**
 * Who may start a CSV export: a per-client-IP budget shared by every CSV route and every replica
 * (counted in Postgres, chain_api_rate_limit), and, when the operator switches it on, a captcha
 * solved for the request (Blockscout's reCAPTCHA). The budget is taken first, so a flood is refused
 * without asking the captcha provider anything.
 */
export class CsvAccess {
    private readonly limit: RateLimit
    private readonly captcha?: CaptchaVerifier

    constructor(ctx: ChainContext) {
        const env = ctx.env
        // On the primary's pool: the chain API's own pools may read from replicas, and counting writes.
        this.limit = new RateLimit(ctx.pool, 'chain_api_rate_limit', {
            name: 'csv-export', points: env.CHAIN_API_CSV_EXPORTS_PER_IP, windowSeconds: env.CHAIN_API_CSV_EXPORT_WINDOW_SECONDS,
        }, (seconds) => `Too many CSV exports from this address; try again in ${seconds} seconds`)
        if (env.CHAIN_API_CSV_CAPTCHA) {
            if (!env.CHAIN_API_CSV_CAPTCHA_SECRET) throw new Error('CHAIN_API_CSV_CAPTCHA is on but CHAIN_API_CSV_CAPTCHA_SECRET is not set')
            this.captcha = new CaptchaVerifier({
                secret: env.CHAIN_API_CSV_CAPTCHA_SECRET, verifyUrl: env.CHAIN_API_CSV_CAPTCHA_VERIFY_URL, timeoutMs: env.CHAIN_API_CSV_CAPTCHA_TIMEOUT_MS,
            })
        }
    }

    get captchaRequired(): boolean {
        return this.captcha !== undefined
    }

    /**
     * Takes one export from the client's budget (429 past it), then checks the captcha token when
     * required. A request without a token is answered 429, as Blockscout's frontend expects: it then
     * shows the captcha and sends the request again with the token.
     */
    async admit(req: Request, res: Response, token: string | undefined): Promise<void> {
        await this.limit.take(res, clientKey(req))
        if (!this.captcha) return
        if (!token) throw new HttpError(429, 'A captcha is required for CSV exports: solve it and send its token as recaptcha_response', { code: 'captcha_required' })
        await this.captcha.verify(token)
    }
}

/** The captcha token of a request, as Blockscout's frontend sends it: the `recaptcha_response` parameter or the `recaptcha-v2-response` header. */
export function captchaToken(req: Request, query: { recaptcha_response?: string }): string | undefined {
    const header = req.get('recaptcha-v2-response')
    return query.recaptcha_response || header || undefined
}

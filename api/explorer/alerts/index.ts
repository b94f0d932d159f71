import { ExplorerServices } from '../services'
import { makeAlerts } from './make'
import { sendDueAlerts } from './send'

/** How often the api looks for new final blocks and due alerts. */
const PASS_MS = 1000

/**
 * Watchlist alerts in the api process: every second, the transfers of newly final blocks that
 * touch an address someone watches become alert rows (make.ts), and due alerts are mailed
 * (send.ts). Every replica runs it; the database decides who does what.
 * docs/explorer-api.md#watchlist-alerts
 */
export class WatchlistAlerts {
    private timer?: NodeJS.Timeout
    private pass?: Promise<void>

    constructor(private readonly s: ExplorerServices) {}

    start(): void {
        if (!this.s.mailer.available) {
            this.s.ctx.log.warn('watchlist alerts are off: no mail can be sent (SMTP_URL)')
            return
        }
        this.timer = setInterval(() => {
            this.pass ??= this.runPass().finally(() => (this.pass = undefined))
        }, PASS_MS)
    }

    async stop(): Promise<void> {
        clearInterval(this.timer)
        await this.pass
    }

    private async runPass(): Promise<void> {
        const { ctx, mailer, publicUrl } = this.s
        try {
            await makeAlerts(ctx.pool, ctx.env.EXPLORER_ALERTS_PER_DAY)
            await sendDueAlerts(ctx.pool, mailer, publicUrl, ctx.secrets.jwtSecret, ctx.log)
        } catch (err) {
            ctx.log.error({ err }, 'watchlist alerts: a pass failed; the next one tries again')
        }
    }
}

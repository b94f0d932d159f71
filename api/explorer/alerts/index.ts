import { CoalescedRunner } from '../../../common/coalesced-runner'
import { HEAD_CHANNEL } from '../../../db/channels'
import { ChannelListener } from '../../../db/listener'
import { ExplorerServices } from '../services'
import { makeAlerts } from './make'
import { sendDueAlerts } from './send'

/**
 * How often a pass runs with no new block announced: retries fall due on their own (after 1, 2, 4
 * and 8 minutes), and a notification missed while the listener reconnected is caught up here.
 */
const FALLBACK_PASS_MS = 15_000

/** Postgres's undefined_table: the indexer has not run yet (Subsquid makes its progress table, squid_processor.status, when it first connects). */
const UNDEFINED_TABLE = '42P01'

/**
 * Watchlist alerts in the api process: whenever the indexer announces a commit (HEAD_CHANNEL),
 * the transfers of newly final blocks that touch an address someone watches become alert rows
 * (make.ts), and due alerts are mailed (send.ts). Every replica runs it; the database decides
 * who does what. docs/explorer-api.md#watchlist-alerts
 */
export class WatchlistAlerts {
    private timer?: NodeJS.Timeout
    private listener?: ChannelListener<unknown>
    private readonly passes = new CoalescedRunner(() => this.runPass())
    /** Whether the missing indexer tables were reported, so a wait for the indexer logs once, not every pass. */
    private waitReported = false

    constructor(private readonly s: ExplorerServices) {}

    start(): void {
        const { ctx, mailer } = this.s
        if (!mailer.available) {
            ctx.log.warn('watchlist alerts are off: no mail can be sent (SMTP_URL)')
            return
        }
        this.listener = new ChannelListener({ databaseUrl: ctx.env.DATABASE_URL!, channel: HEAD_CHANNEL, log: ctx.log, retryMs: 2_000, onMessage: () => this.wake() })
        void this.listener.start()
        this.timer = setInterval(() => this.wake(), FALLBACK_PASS_MS)
        this.wake()
    }

    async stop(): Promise<void> {
        clearInterval(this.timer)
        await this.listener?.close()
        await this.passes.stop()
    }

    private wake(): void {
        this.passes.run()
    }

    private async runPass(): Promise<void> {
        const { ctx, mailer, publicUrl } = this.s
        try {
            await makeAlerts(ctx.pool, ctx.env.EXPLORER_ALERTS_PER_DAY)
            await sendDueAlerts(ctx.pool, mailer, publicUrl, ctx.secrets.jwtSecret, ctx.log)
            this.waitReported = false
        } catch (err) {
            if ((err as { code?: string }).code !== UNDEFINED_TABLE) {
                ctx.log.error({ err }, 'watchlist alerts: a pass failed; the next one tries again')
            } else if (!this.waitReported) {
                // Not a fault: the api may start before the indexer ever ran.
                this.waitReported = true
                ctx.log.info({ table: (err as Error).message }, 'watchlist alerts wait for the indexer\'s tables; passes go on quietly until they exist')
            }
        }
    }
}

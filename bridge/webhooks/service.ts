import { Pool } from 'pg'
import { Logger } from '../../common/logger'
import { observePool } from '../../common/service/metrics'
import { WebhookConfig } from '../config'
import { Dispatcher } from './dispatcher'
import { SECRET_GRACE_MS } from './policy'
import { SubscriptionStore } from './store'
import { Transport } from './transport'

/**
 * The webhook feature of one bridge process: the subscription store, the dispatcher and the
 * settings the admin routes need. It has its own small connection pool so a backlog of
 * deliveries never takes connections from the swap engine.
 */
export class Webhooks {
    readonly pool: Pool
    readonly store: SubscriptionStore
    readonly dispatcher: Dispatcher
    readonly adminToken: string | undefined
    readonly config: WebhookConfig
    private readonly transport: Transport

    constructor(options: {
        databaseUrl: string
        masterKey: string
        /** BRIDGE_ADMIN_TOKEN; without it the management routes answer 503. */
        adminToken: string | undefined
        config: WebhookConfig
        log: Logger
    }) {
        this.adminToken = options.adminToken
        this.config = options.config
        this.pool = new Pool({ connectionString: options.databaseUrl, max: 8 })
        observePool('webhooks', this.pool)
        this.pool.on('error', (err) => options.log.error({ err }, 'idle webhook database connection failed'))
        this.store = new SubscriptionStore(this.pool, options.masterKey)
        this.transport = new Transport({ allowPrivate: options.config.allowPrivateTargets, maxSockets: options.config.concurrency })
        this.dispatcher = new Dispatcher(this.pool, options.databaseUrl, this.store, this.transport, options.config, options.log)
    }

    /** How long a rotated-out secret keeps signing by default (24 h, scaled). */
    get defaultGraceMs(): number {
        return SECRET_GRACE_MS * this.config.timeScale
    }

    async start(): Promise<void> {
        await this.dispatcher.start()
    }

    async stop(): Promise<void> {
        await this.dispatcher.stop()
        this.transport.close()
        await this.pool.end()
    }
}

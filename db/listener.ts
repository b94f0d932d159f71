import { Client } from 'pg'
import { Logger } from '../common/logger'

/**
 * LISTEN on one channel over a dedicated connection (a pooled one would lose the subscription
 * when returned), delivering each parsed payload; the connection is re-made when lost. What is
 * missed while it is down is for the consumer to catch up on from its tables.
 */
export class ChannelListener<T> {
    private client?: Client
    private reconnectTimer?: NodeJS.Timeout
    private closed = false

    constructor(
        private readonly options: {
            databaseUrl: string
            channel: string
            onMessage: (payload: T) => void
            log: Logger
            retryMs?: number
        }
    ) {}

    async start(): Promise<void> {
        const { databaseUrl, channel, onMessage, log } = this.options
        const client = new Client({ connectionString: databaseUrl })
        const retry = (err: unknown) => {
            if (this.closed) return
            log.warn({ err, channel }, 'notification listener lost; reconnecting')
            client.removeAllListeners()
            client.end().catch(() => undefined)
            this.reconnectTimer = setTimeout(() => this.start().catch(retry), this.options.retryMs ?? 1_000)
        }
        client.on('error', retry)
        client.on('notification', (msg) => {
            if (msg.channel !== channel || !msg.payload) return
            let payload: T
            try {
                payload = JSON.parse(msg.payload)
            } catch (err) {
                log.warn({ err, channel }, 'malformed notification')
                return
            }
            onMessage(payload)
        })
        try {
            await client.connect()
            await client.query(`LISTEN ${channel}`)
            this.client = client
        } catch (err) {
            retry(err)
        }
    }

    async close(): Promise<void> {
        this.closed = true
        clearTimeout(this.reconnectTimer)
        await this.client?.end().catch(() => undefined)
    }
}

import * as http from 'http'
import { WebSocket, WebSocketServer } from 'ws'
import { ChannelListener } from '../../db/listener'
import { KeyedCounter } from '../keyed-counter'
import { Logger } from '../logger'
import { upgradeClientKey } from './client-ip'

/**
 * A WebSocket endpoint fed by a Postgres LISTEN channel: clients subscribe to topics, a
 * notification fans out to the clients of its topics. Every replica listens, so every replica
 * pushes every event. The wire protocol (framing, topic names, replies) is the surface's; the
 * limits and their close codes are docs/decisions.md's (WebSocket hub).
 */

/** Close code of a client sending faster than `messages` allows (RFC 6455: policy violation). */
export const CLOSE_MESSAGE_RATE = 1008
/** Close code of a client that does not read what it is sent, once `maxBufferedBytes` are queued. */
export const CLOSE_SLOW_CONSUMER = 4008

/** What one client may take; each surface sets them from its configuration. */
export interface WsLimits {
    /** Topics one client may hold at once. */
    maxTopics: number
    /** Open connections from one client IP; the next upgrade from it is answered HTTP 429. */
    maxConnectionsPerIp: number
    /** Frames a client may send: `perSecond` on average, up to `burst` at once (a token bucket); beyond, close CLOSE_MESSAGE_RATE. */
    messages: { perSecond: number; burst: number }
    /** Bytes queued for a client beyond which it is closed with CLOSE_SLOW_CONSUMER. */
    maxBufferedBytes: number
}

export interface WsHubOptions<N, V> {
    log: Logger
    /** The channel whose notifications drive the pushes; its connection is re-made when lost. */
    listen: { databaseUrl: string; channel: string; retryMs?: number; onNotification: (notification: N) => void }
    /** Largest frame a client may send, in bytes. */
    maxPayload: number
    /** A client that sends nothing for this long is gone. */
    idleMs: number
    /** How an idle client is closed: with this close frame, or (absent) by dropping the connection. */
    idleClose?: { code: number; reason: string }
    limits: WsLimits
    /** Reverse proxies in front (TRUST_PROXY): the client IP is read this many hops back along X-Forwarded-For. */
    trustProxy: number
    /** One frame from a client; one client's frames are handled one after another, so replies keep their order. */
    onMessage: (client: WsClient<V>, data: string, binary: boolean) => void | Promise<void>
    /** onMessage threw (the error is logged): tells the client. */
    onMessageFailed?: (client: WsClient<V>) => void
}

/** One connected client and its topics, each with the value its protocol keeps for it. */
export class WsClient<V> {
    private readonly topicValues = new Map<string, V>()
    lastSeen = Date.now()
    queue: Promise<void> = Promise.resolve()
    private tokens: number
    private refilledAt = Date.now()

    constructor(
        readonly socket: WebSocket,
        readonly ip: string,
        private readonly limits: WsLimits,
        /** Keeps the hub's topic → clients index in step. */
        private readonly indexTopic: (client: WsClient<V>, topic: string, held: boolean) => void,
        /** Closes the client and forgets it. */
        private readonly shut: (client: WsClient<V>, code: number, reason: string) => void
    ) {
        this.tokens = limits.messages.burst
    }

    /** Queues a frame; a client whose queue passes maxBufferedBytes is not reading, and is closed. */
    send(text: string): void {
        if (this.socket.readyState !== WebSocket.OPEN) return
        this.socket.send(text)
        if (this.socket.bufferedAmount > this.limits.maxBufferedBytes) {
            this.shut(this, CLOSE_SLOW_CONSUMER, 'send buffer full: the client does not read')
        }
    }

    /** Takes one frame from the client's budget; false when it has none left. */
    takeMessage(): boolean {
        const now = Date.now()
        const { perSecond, burst } = this.limits.messages
        this.tokens = Math.min(burst, this.tokens + ((now - this.refilledAt) / 1000) * perSecond)
        this.refilledAt = now
        if (this.tokens < 1) return false
        this.tokens -= 1
        return true
    }

    /** Subscribes (or updates the value of a topic held); false when the client already holds maxTopics. */
    subscribe(topic: string, value: V): boolean {
        if (!this.topicValues.has(topic) && this.topicValues.size >= this.limits.maxTopics) return false
        this.topicValues.set(topic, value)
        this.indexTopic(this, topic, true)
        return true
    }

    unsubscribe(topic: string): void {
        if (this.topicValues.delete(topic)) this.indexTopic(this, topic, false)
    }

    value(topic: string): V | undefined {
        return this.topicValues.get(topic)
    }

    topics(): IterableIterator<string> {
        return this.topicValues.keys()
    }
}

export class WsHub<N, V = undefined> {
    private readonly wss: WebSocketServer
    private readonly clients = new Set<WsClient<V>>()
    private readonly subscribers = new Map<string, Set<WsClient<V>>>()
    /** Open connections by client key. */
    private readonly perIp: KeyedCounter
    private listener?: ChannelListener<N>
    private idleTimer?: NodeJS.Timeout

    constructor(private readonly options: WsHubOptions<N, V>) {
        this.wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayload })
        this.perIp = new KeyedCounter(options.limits.maxConnectionsPerIp)
    }

    get size(): number {
        return this.clients.size
    }

    /** Serves upgrades of `path` on the server (other paths get a 404) and starts listening. */
    async attach(server: http.Server, path: string): Promise<void> {
        server.on('upgrade', (req, socket, head) => {
            if (new URL(req.url ?? '/', 'http://localhost').pathname !== path) {
                socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n')
                return
            }
            const ip = upgradeClientKey(req, this.options.trustProxy)
            if (this.perIp.atCap(ip)) {
                socket.end('HTTP/1.1 429 Too Many Requests\r\nConnection: close\r\nContent-Type: text/plain\r\n\r\n'
                    + `at most ${this.options.limits.maxConnectionsPerIp} connections per client IP\n`)
                return
            }
            this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, ip))
        })
        const { idleMs } = this.options
        this.idleTimer = setInterval(() => this.closeIdle(), Math.min(5_000, idleMs / 4))
        this.idleTimer.unref()
        const { databaseUrl, channel, retryMs, onNotification } = this.options.listen
        this.listener = new ChannelListener<N>({ databaseUrl, channel, retryMs, log: this.options.log, onMessage: onNotification })
        await this.listener.start()
    }

    async close(): Promise<void> {
        clearInterval(this.idleTimer)
        for (const c of this.clients) c.socket.terminate()
        this.wss.close()
        await this.listener?.close()
    }

    /**
     * Sends to every client holding any of the topics, once per client. `message` is the frame, or
     * makes it from the value the client keeps for the first of the topics it holds; undefined
     * from it means "not for this subscription", and the client's next topic is asked.
     */
    publish(topics: string[], message: string | ((value: V | undefined, topic: string) => string | undefined)): void {
        const sent = new Set<WsClient<V>>()
        for (const topic of topics) {
            for (const c of this.subscribers.get(topic) ?? []) {
                if (sent.has(c)) continue
                const frame = typeof message === 'string' ? message : message(c.value(topic), topic)
                if (frame === undefined) continue
                sent.add(c)
                c.send(frame)
            }
        }
    }

    /** Every topic some client holds. */
    topics(): IterableIterator<string> {
        return this.subscribers.keys()
    }

    private indexTopic(client: WsClient<V>, topic: string, held: boolean): void {
        let set = this.subscribers.get(topic)
        if (held) {
            if (!set) this.subscribers.set(topic, (set = new Set()))
            set.add(client)
        } else if (set) {
            set.delete(client)
            if (set.size === 0) this.subscribers.delete(topic)
        }
    }

    private accept(socket: WebSocket, ip: string): void {
        const client = new WsClient<V>(socket, ip, this.options.limits, (c, topic, held) => this.indexTopic(c, topic, held), (c, code, reason) => this.shut(c, code, reason))
        this.clients.add(client)
        // Counted once the handshake is done: an upgrade that fails it holds nothing.
        this.perIp.take(ip)
        socket.on('message', (data, binary) => {
            if (!this.clients.has(client)) return
            if (!client.takeMessage()) return this.shut(client, CLOSE_MESSAGE_RATE, 'message rate exceeded')
            client.lastSeen = Date.now()
            const text = data.toString()
            client.queue = client.queue
                .then(() => this.options.onMessage(client, text, binary))
                .catch((err) => {
                    this.options.log.error({ err }, 'websocket message failed')
                    this.options.onMessageFailed?.(client)
                })
        })
        const drop = () => this.drop(client)
        socket.on('close', drop)
        socket.on('error', drop)
    }

    private drop(client: WsClient<V>): void {
        if (!this.clients.delete(client)) return
        for (const topic of [...client.topics()]) client.unsubscribe(topic)
        this.perIp.release(client.ip)
    }

    /**
     * Sends the close frame (after what is queued, so a client that catches up learns why) and
     * forgets the client at once: it gets nothing more, and ws drops the connection if the closing
     * handshake does not complete.
     */
    private shut(client: WsClient<V>, code: number, reason: string): void {
        this.drop(client)
        client.socket.close(code, reason)
    }

    private closeIdle(): void {
        const cutoff = Date.now() - this.options.idleMs
        const close = this.options.idleClose
        for (const c of this.clients) {
            if (c.lastSeen >= cutoff) continue
            if (close) {
                c.socket.close(close.code, close.reason)
            } else {
                c.socket.terminate()
                this.drop(c)
            }
        }
    }
}

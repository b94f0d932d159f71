import * as http from 'http'
import { WebSocket, WebSocketServer } from 'ws'
import { ChannelListener } from '../../db/listener'
import { Logger } from '../logger'

/**
 * A WebSocket endpoint fed by a Postgres LISTEN channel: clients subscribe to topics, a
 * notification fans out to the clients of its topics. Every replica listens, so every replica
 * pushes every event. The wire protocol (framing, topic names, replies) is the surface's.
 */

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
    /** Topics one client may hold at once. */
    maxTopics: number
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

    constructor(
        readonly socket: WebSocket,
        private readonly maxTopics: number,
        /** Keeps the hub's topic → clients index in step. */
        private readonly indexTopic: (client: WsClient<V>, topic: string, held: boolean) => void
    ) {}

    send(text: string): void {
        if (this.socket.readyState === WebSocket.OPEN) this.socket.send(text)
    }

    /** Subscribes (or updates the value of a topic held); false when the client already holds maxTopics. */
    subscribe(topic: string, value: V): boolean {
        if (!this.topicValues.has(topic) && this.topicValues.size >= this.maxTopics) return false
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
    private listener?: ChannelListener<N>
    private idleTimer?: NodeJS.Timeout

    constructor(private readonly options: WsHubOptions<N, V>) {
        this.wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayload })
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
            this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws))
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
     * makes it from the value the client keeps for the first of the topics it holds.
     */
    publish(topics: string[], message: string | ((value: V | undefined, topic: string) => string)): void {
        const sent = new Set<WsClient<V>>()
        for (const topic of topics) {
            for (const c of this.subscribers.get(topic) ?? []) {
                if (sent.has(c)) continue
                sent.add(c)
                c.send(typeof message === 'string' ? message : message(c.value(topic), topic))
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

    private accept(socket: WebSocket): void {
        const client = new WsClient<V>(socket, this.options.maxTopics, (c, topic, held) => this.indexTopic(c, topic, held))
        this.clients.add(client)
        socket.on('message', (data, binary) => {
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

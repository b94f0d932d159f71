import * as http from 'http'
import { WebSocket, WebSocketServer } from 'ws'
import { BRIDGE_EVENT_CHANNEL, BridgeEventNotification } from '../db/channels'
import { ChannelListener } from '../db/listener'
import { EngineContext } from './engine/context'
import { loadSwap } from './engine/lifecycle'

/**
 * The bridge WebSocket at /ws. Protocol, all JSON text frames:
 *
 *   → {"type":"subscribe","swap_id":"<uuid>"}        ← {"type":"subscribed","swap_id","status"}
 *   → {"type":"subscribe","address":"0x…"}           ← {"type":"subscribed","address":"0x…(lowercase)"}
 *   → {"type":"unsubscribe","swap_id"|"address":…}   ← {"type":"unsubscribed",…}
 *   → {"type":"ping"}                                ← {"type":"pong","timestamp"}
 *   ← {"type":"swap_update","swap_id","event","status","tx_hash"?,"event_id","timestamp"} for every
 *     lifecycle event of a subscribed swap, or of any swap whose deposit address, target wallet
 *     or refund address is a subscribed address
 *   ← {"type":"error","error":"…"} for anything malformed; the connection stays open
 *
 * A socket that sends nothing (a ping will do) for BRIDGE_WS_IDLE_SECONDS is closed (code 4000).
 * Events come from Postgres NOTIFY, so every replica pushes every event, whichever replica
 * produced it. Messages lost while disconnected are in GET /api/swap/:id/events.
 */

interface Connection {
    socket: WebSocket
    /** Messages are handled one after another, so replies come in the order of the requests. */
    queue: Promise<void>
    swaps: Set<string>
    addresses: Set<string>
    lastSeen: number
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const ADDRESS = /^[0-9A-Za-z]{20,128}$/
const MAX_TOPICS = 200

export class BridgeSocket {
    private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 4096 })
    private readonly connections = new Set<Connection>()
    private listener?: ChannelListener<BridgeEventNotification>
    private idleTimer?: NodeJS.Timeout

    constructor(private readonly ctx: EngineContext, private readonly databaseUrl: string) {}

    async attach(server: http.Server, path = '/ws'): Promise<void> {
        server.on('upgrade', (req, socket, head) => {
            if (new URL(req.url ?? '/', 'http://localhost').pathname !== path) {
                socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n')
                return
            }
            this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws))
        })
        const idleMs = this.ctx.config.wsIdleSeconds * 1000
        this.idleTimer = setInterval(() => {
            const now = Date.now()
            for (const c of this.connections) if (now - c.lastSeen > idleMs) c.socket.close(4000, 'idle timeout: send {"type":"ping"} to stay connected')
        }, Math.min(5_000, idleMs / 4))
        this.idleTimer.unref()
        this.listener = new ChannelListener<BridgeEventNotification>({
            databaseUrl: this.databaseUrl,
            channel: BRIDGE_EVENT_CHANNEL,
            log: this.ctx.log,
            onMessage: (n) => this.push(n),
        })
        await this.listener.start()
    }

    async close(): Promise<void> {
        clearInterval(this.idleTimer)
        for (const c of this.connections) c.socket.terminate()
        this.wss.close()
        await this.listener?.close()
    }

    private push(n: BridgeEventNotification): void {
        const message = JSON.stringify({
            type: 'swap_update',
            swap_id: n.swap_id,
            event: n.event,
            status: n.status,
            ...(n.tx_hash ? { tx_hash: n.tx_hash } : {}),
            event_id: n.id,
            timestamp: n.created_at,
        })
        for (const c of this.connections) {
            if (c.swaps.has(n.swap_id) || n.addresses.some((a) => c.addresses.has(a))) {
                if (c.socket.readyState === WebSocket.OPEN) c.socket.send(message)
            }
        }
    }

    private accept(socket: WebSocket): void {
        const connection: Connection = { socket, queue: Promise.resolve(), swaps: new Set(), addresses: new Set(), lastSeen: Date.now() }
        this.connections.add(connection)
        socket.on('message', (data, isBinary) => {
            connection.lastSeen = Date.now()
            const text = isBinary ? undefined : data.toString()
            connection.queue = connection.queue.then(() => this.handle(connection, text)).catch((err) => {
                this.ctx.log.error({ err }, 'websocket message failed')
                this.send(connection, { type: 'error', error: 'internal error' })
            })
        })
        socket.on('close', () => this.connections.delete(connection))
        socket.on('error', () => this.connections.delete(connection))
    }

    private send(c: Connection, message: object): void {
        if (c.socket.readyState === WebSocket.OPEN) c.socket.send(JSON.stringify(message))
    }

    private async handle(c: Connection, text: string | undefined): Promise<void> {
        let message: any
        try {
            message = text === undefined ? undefined : JSON.parse(text)
        } catch {
            return this.send(c, { type: 'error', error: 'not JSON: send a JSON object such as {"type":"subscribe","swap_id":"..."}' })
        }
        if (!message || typeof message !== 'object' || Array.isArray(message) || typeof message.type !== 'string') {
            return this.send(c, { type: 'error', error: 'expected a JSON object with a string "type"' })
        }
        switch (message.type) {
            case 'ping':
                return this.send(c, { type: 'pong', timestamp: new Date().toISOString() })
            case 'subscribe':
            case 'unsubscribe': {
                const subscribe = message.type === 'subscribe'
                if (typeof message.swap_id === 'string') {
                    if (!UUID.test(message.swap_id)) return this.send(c, { type: 'error', error: 'swap_id: must be a swap id (a UUID)' })
                    const id = message.swap_id.toLowerCase()
                    if (!subscribe) {
                        c.swaps.delete(id)
                        return this.send(c, { type: 'unsubscribed', swap_id: id })
                    }
                    const swap = await loadSwap(this.ctx.pool, id)
                    if (!swap) return this.send(c, { type: 'error', error: 'swap_id: no swap with this id', swap_id: id })
                    if (c.swaps.size + c.addresses.size >= MAX_TOPICS) return this.send(c, { type: 'error', error: `at most ${MAX_TOPICS} subscriptions per connection` })
                    c.swaps.add(id)
                    return this.send(c, { type: 'subscribed', swap_id: id, status: swap.status })
                }
                if (typeof message.address === 'string') {
                    if (!ADDRESS.test(message.address.replace(/^0x/i, '')) || message.address.length > 130) {
                        return this.send(c, { type: 'error', error: 'address: not an address' })
                    }
                    const address = message.address.toLowerCase()
                    if (!subscribe) {
                        c.addresses.delete(address)
                        return this.send(c, { type: 'unsubscribed', address })
                    }
                    if (c.swaps.size + c.addresses.size >= MAX_TOPICS) return this.send(c, { type: 'error', error: `at most ${MAX_TOPICS} subscriptions per connection` })
                    c.addresses.add(address)
                    return this.send(c, { type: 'subscribed', address })
                }
                return this.send(c, { type: 'error', error: `${message.type} needs a "swap_id" or an "address"` })
            }
            default:
                return this.send(c, { type: 'error', error: `unknown type "${String(message.type).slice(0, 40)}"; expected subscribe, unsubscribe or ping` })
        }
    }
}

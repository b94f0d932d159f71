import * as http from 'http'
import { WsClient, WsHub } from '../common/service/ws-hub'
import { BRIDGE_EVENT_CHANNEL, BridgeEventNotification } from '../db/channels'
import { EngineContext } from './engine/context'
import { statusAndLastEvent } from './store/events'

/** The bridge WebSocket at /ws, its JSON protocol: docs/bridge/lifecycle.md#websocket-ws */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const ADDRESS = /^[0-9A-Za-z]{20,128}$/

/** Topics: `swap:<id>` and `address:<lowercase address>`. */
const swapTopic = (id: string) => `swap:${id}`
const addressTopic = (address: string) => `address:${address}`

/**
 * Where one swap subscription stands, so that its client sees the swap's history once: the
 * `subscribed` answer carries the status as of event `after`, and only later events are pushed.
 * Events that arrive while that status is being read wait in `held` (sent after the answer, when
 * newer); events of the answer's past that arrive late (a notification is delivered after the
 * commit that the read already saw) are dropped.
 */
export class SwapCursor {
    private after?: bigint
    private held: BridgeEventNotification[] = []

    /** The frame to push for an event now, or undefined (held for later, or already told). */
    frame(n: BridgeEventNotification): string | undefined {
        if (this.after === undefined) {
            this.held.push(n)
            return undefined
        }
        return BigInt(n.id) > this.after ? swapUpdate(n) : undefined
    }

    /** The status was read as of event `last` (null: no event yet): the held frames newer than it, in order. */
    settle(last: string | null): string[] {
        this.after = last === null ? 0n : BigInt(last)
        const frames = this.held.filter((n) => BigInt(n.id) > this.after!).sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1)).map(swapUpdate)
        this.held = []
        return frames
    }
}

function swapUpdate(n: BridgeEventNotification): string {
    return JSON.stringify({
        type: 'swap_update',
        swap_id: n.swap_id,
        event: n.event,
        status: n.status,
        ...(n.tx_hash ? { tx_hash: n.tx_hash } : {}),
        event_id: n.id,
        timestamp: n.created_at,
    })
}

export class BridgeSocket {
    /** A swap topic keeps its SwapCursor; an address topic keeps nothing (its events are pushed as they come). */
    private readonly hub: WsHub<BridgeEventNotification, SwapCursor | undefined>

    constructor(private readonly ctx: EngineContext, databaseUrl: string, trustProxy: number) {
        this.hub = new WsHub<BridgeEventNotification, SwapCursor | undefined>({
            log: ctx.log,
            listen: { databaseUrl, channel: BRIDGE_EVENT_CHANNEL, onNotification: (n) => this.push(n) },
            maxPayload: 4096,
            idleMs: ctx.config.wsIdleSeconds * 1000,
            idleClose: { code: 4000, reason: 'idle timeout: send {"type":"ping"} to stay connected' },
            limits: ctx.config.wsLimits,
            trustProxy,
            onMessage: (client, data, binary) => this.handle(client, binary ? undefined : data),
            onMessageFailed: (client) => send(client, { type: 'error', error: 'internal error' }),
        })
    }

    async attach(server: http.Server, path = '/ws'): Promise<void> {
        await this.hub.attach(server, path)
    }

    async close(): Promise<void> {
        await this.hub.close()
    }

    private tooMany(): object {
        return { type: 'error', error: `at most ${this.ctx.config.wsLimits.maxTopics} subscriptions per connection` }
    }

    private push(n: BridgeEventNotification): void {
        this.hub.publish([swapTopic(n.swap_id), ...n.addresses.map(addressTopic)], (cursor) => (cursor ? cursor.frame(n) : swapUpdate(n)))
    }

    private async handle(c: WsClient<SwapCursor | undefined>, text: string | undefined): Promise<void> {
        let message: any
        try {
            message = text === undefined ? undefined : JSON.parse(text)
        } catch {
            return send(c, { type: 'error', error: 'not JSON: send a JSON object such as {"type":"subscribe","swap_id":"..."}' })
        }
        if (!message || typeof message !== 'object' || Array.isArray(message) || typeof message.type !== 'string') {
            return send(c, { type: 'error', error: 'expected a JSON object with a string "type"' })
        }
        switch (message.type) {
            case 'ping':
                return send(c, { type: 'pong', timestamp: new Date().toISOString() })
            case 'subscribe':
            case 'unsubscribe': {
                const subscribe = message.type === 'subscribe'
                if (typeof message.swap_id === 'string') {
                    if (!UUID.test(message.swap_id)) return send(c, { type: 'error', error: 'swap_id: must be a swap id (a UUID)' })
                    const id = message.swap_id.toLowerCase()
                    if (!subscribe) {
                        c.unsubscribe(swapTopic(id))
                        return send(c, { type: 'unsubscribed', swap_id: id })
                    }
                    // Subscribed before the read, so that no event falls between the status told and the first push.
                    const cursor = new SwapCursor()
                    if (!c.subscribe(swapTopic(id), cursor)) return send(c, this.tooMany())
                    const start = await statusAndLastEvent(this.ctx.pool, id).catch((err) => {
                        c.unsubscribe(swapTopic(id))
                        throw err
                    })
                    if (!start) {
                        c.unsubscribe(swapTopic(id))
                        return send(c, { type: 'error', error: 'swap_id: no swap with this id', swap_id: id })
                    }
                    send(c, { type: 'subscribed', swap_id: id, status: start.status })
                    for (const frame of cursor.settle(start.lastEventId)) c.send(frame)
                    return
                }
                if (typeof message.address === 'string') {
                    if (!ADDRESS.test(message.address.replace(/^0x/i, '')) || message.address.length > 130) {
                        return send(c, { type: 'error', error: 'address: not an address' })
                    }
                    const address = message.address.toLowerCase()
                    if (!subscribe) {
                        c.unsubscribe(addressTopic(address))
                        return send(c, { type: 'unsubscribed', address })
                    }
                    if (!c.subscribe(addressTopic(address), undefined)) return send(c, this.tooMany())
                    return send(c, { type: 'subscribed', address })
                }
                return send(c, { type: 'error', error: `${message.type} needs a "swap_id" or an "address"` })
            }
            default:
                return send(c, { type: 'error', error: `unknown type "${String(message.type).slice(0, 40)}"; expected subscribe, unsubscribe or ping` })
        }
    }
}

function send(client: WsClient<SwapCursor | undefined>, message: object): void {
    client.send(JSON.stringify(message))
}

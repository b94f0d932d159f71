import * as http from 'http'
import { WsClient, WsHub } from '../common/service/ws-hub'
import { BRIDGE_EVENT_CHANNEL, BridgeEventNotification } from '../db/channels'
import { EngineContext } from './engine/context'
import { loadSwap } from './engine/lifecycle'

/** The bridge WebSocket at /ws, its JSON protocol: docs/bridge/lifecycle.md#websocket-ws */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const ADDRESS = /^[0-9A-Za-z]{20,128}$/

/** Topics: `swap:<id>` and `address:<lowercase address>`. */
const swapTopic = (id: string) => `swap:${id}`
const addressTopic = (address: string) => `address:${address}`

export class BridgeSocket {
    private readonly hub: WsHub<BridgeEventNotification>

    constructor(private readonly ctx: EngineContext, databaseUrl: string, trustProxy: number) {
        this.hub = new WsHub<BridgeEventNotification>({
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
        const message = JSON.stringify({
            type: 'swap_update',
            swap_id: n.swap_id,
            event: n.event,
            status: n.status,
            ...(n.tx_hash ? { tx_hash: n.tx_hash } : {}),
            event_id: n.id,
            timestamp: n.created_at,
        })
        this.hub.publish([swapTopic(n.swap_id), ...n.addresses.map(addressTopic)], message)
    }

    private async handle(c: WsClient<undefined>, text: string | undefined): Promise<void> {
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
                    const swap = await loadSwap(this.ctx.pool, id)
                    if (!swap) return send(c, { type: 'error', error: 'swap_id: no swap with this id', swap_id: id })
                    if (!c.subscribe(swapTopic(id), undefined)) return send(c, this.tooMany())
                    return send(c, { type: 'subscribed', swap_id: id, status: swap.status })
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

function send(client: WsClient<undefined>, message: object): void {
    client.send(JSON.stringify(message))
}

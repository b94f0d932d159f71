import * as http from 'http'
import { WebSocket, WebSocketServer } from 'ws'
import { HEAD_CHANNEL, HeadNotification } from '../../db/channels'
import { ChannelListener } from '../../db/listener'
import { ChainContext } from './context'
import { balanceUpdates } from './queries/addresses'
import { blocksBetween } from './queries/blocks'
import { transferCounts, watchedTransfers } from './queries/token-transfers'
import { watchedTransactions } from './queries/transactions'
import { renderTokenTransfers } from './render/token-transfer'
import { renderTransaction, transactionAddresses } from './render/transaction'
import { blockMiners, renderBlock } from './render/block'

/**
 * Live updates the way a Blockscout frontend expects them: Phoenix Channels (serializer vsn
 * 2.0.0, messages are JSON arrays [join_ref, ref, topic, event, payload]) at /socket/v2/websocket.
 * The indexer's NOTIFY on each commit drives it, so every replica pushes the same events.
 *
 * Topics and events (payloads as the Blockscout backend sends them):
 *   blocks:new_block               new_block     {average_block_time, block}
 *   transactions:new_transaction   transaction   {transaction: <count of new transactions>}
 *   addresses:<hash>               transaction   {transactions: [...]}, token_transfer {token_transfers: [...]},
 *                                  balance       {balance, block_number, exchange_rate}
 *   tokens:<hash>                  token_transfer {token_transfer: <count>}
 * Other Blockscout topics (blocks:indexing, transactions:<hash>, ...) can be joined and stay quiet.
 */

type Message = [string | null, string | null, string, string, unknown]

const STATIC_TOPICS = new Set(['blocks:new_block', 'transactions:new_transaction', 'blocks:indexing', 'blocks:indexing_internal_transactions'])
const ADDRESS_TOPIC = /^(addresses|tokens|blocks):(0x[0-9a-fA-F]{40})$/
const HASH_TOPIC = /^transactions:0x[0-9a-fA-F]{64}$/
/** Phoenix clients heartbeat every 30 s; one silent for twice that is gone. */
const IDLE_MS = 60_000
/** Blocks pushed per commit at most: a backfill commits thousands at once and nobody watches those. */
const MAX_BLOCKS_PER_PUSH = 10

interface Connection {
    socket: WebSocket
    /** topic -> join_ref */
    topics: Map<string, string | null>
    lastSeen: number
}

export class ChainSocket {
    private wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 })
    private connections = new Set<Connection>()
    private listener?: ChannelListener<HeadNotification>
    private lastPushed = -1
    private pushing: Promise<void> = Promise.resolve()
    private idleTimer?: NodeJS.Timeout

    constructor(private ctx: ChainContext) {}

    async attach(server: http.Server, path: string): Promise<void> {
        server.on('upgrade', (req, socket, head) => {
            const url = new URL(req.url ?? '/', 'http://localhost')
            if (url.pathname !== path) return void socket.destroy()
            this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws))
        })
        this.idleTimer = setInterval(() => this.dropIdle(), IDLE_MS / 2)
        this.idleTimer.unref()
        this.lastPushed = (await this.ctx.head.get()).number
        this.listener = new ChannelListener<HeadNotification>({
            databaseUrl: this.ctx.env.DATABASE_URL!,
            channel: HEAD_CHANNEL,
            log: this.ctx.log,
            retryMs: 2_000,
            onMessage: (head) => {
                this.ctx.head.invalidate()
                this.pushing = this.pushing.then(() => this.push(head)).catch((err) => this.ctx.log.error({ err }, 'live update failed'))
            },
        })
        await this.listener.start()
    }

    async close(): Promise<void> {
        clearInterval(this.idleTimer)
        for (const c of this.connections) c.socket.terminate()
        this.wss.close()
        await this.listener?.close()
    }

    private accept(socket: WebSocket): void {
        const connection: Connection = { socket, topics: new Map(), lastSeen: Date.now() }
        this.connections.add(connection)
        socket.on('message', (data) => {
            connection.lastSeen = Date.now()
            let message: Message
            try {
                message = JSON.parse(data.toString())
            } catch {
                return
            }
            if (!Array.isArray(message) || message.length !== 5 || typeof message[2] !== 'string' || typeof message[3] !== 'string') return
            this.handle(connection, message)
        })
        socket.on('close', () => this.connections.delete(connection))
        socket.on('error', () => this.connections.delete(connection))
    }

    private handle(connection: Connection, [joinRef, ref, topic, event]: Message): void {
        const reply = (status: 'ok' | 'error', response: object) =>
            send(connection, [joinRef, ref, topic, 'phx_reply', { status, response }])
        if (topic === 'phoenix' && event === 'heartbeat') return reply('ok', {})
        if (event === 'phx_join') {
            if (!STATIC_TOPICS.has(topic) && !ADDRESS_TOPIC.test(topic) && !HASH_TOPIC.test(topic)) {
                return reply('error', { reason: 'unmatched topic' })
            }
            connection.topics.set(topic.replace(ADDRESS_TOPIC, (_, kind, hash) => `${kind}:${hash.toLowerCase()}`), joinRef)
            return reply('ok', {})
        }
        if (event === 'phx_leave') {
            connection.topics.delete(topic.replace(ADDRESS_TOPIC, (_, kind, hash) => `${kind}:${hash.toLowerCase()}`))
            return reply('ok', {})
        }
        reply('error', { reason: 'unknown event' })
    }

    private dropIdle(): void {
        const cutoff = Date.now() - IDLE_MS
        for (const c of this.connections) {
            if (c.lastSeen < cutoff) {
                c.socket.terminate()
                this.connections.delete(c)
            }
        }
    }

    private broadcast(topic: string, event: string, payload: unknown): void {
        for (const c of this.connections) {
            if (c.topics.has(topic)) send(c, [c.topics.get(topic) ?? null, null, topic, event, payload])
        }
    }

    private subscribed(kind: 'addresses' | 'tokens'): string[] {
        const found = new Set<string>()
        for (const c of this.connections) {
            for (const topic of c.topics.keys()) if (topic.startsWith(`${kind}:`)) found.add(topic.slice(kind.length + 1))
        }
        return [...found]
    }

    private async push(head: HeadNotification): Promise<void> {
        // After a reorg the new branch replaces blocks already pushed: push them again.
        const from = head.number <= this.lastPushed
            ? head.number - Math.min(head.blocks, MAX_BLOCKS_PER_PUSH) + 1
            : Math.max(this.lastPushed + 1, head.number - MAX_BLOCKS_PER_PUSH + 1)
        this.lastPushed = head.number
        if (this.connections.size === 0) return
        const blocks = await blocksBetween(this.ctx.db, from, head.number)
        const chainHead = await this.ctx.head.get()
        const miner = blockMiners(blocks)
        for (const block of blocks) {
            this.broadcast('blocks:new_block', 'new_block', {
                average_block_time: String(chainHead.averageBlockTimeMs),
                block: renderBlock(block, miner(block.miner), 'list'),
            })
        }
        const count = blocks.reduce((n, b) => n + b.transaction_count, 0)
        if (count > 0) this.broadcast('transactions:new_transaction', 'transaction', { transaction: count })
        await Promise.all([this.pushAddresses(from, head.number), this.pushTokens(from, head.number)])
    }

    private async pushAddresses(from: number, to: number): Promise<void> {
        const watched = this.subscribed('addresses')
        if (watched.length === 0) return
        const [txs, transfers, balances] = await Promise.all([
            watchedTransactions(this.ctx.db, watched, from, to),
            watchedTransfers(this.ctx.db, watched, from, to),
            balanceUpdates(this.ctx.db, watched, from, to),
        ])
        const head = await this.ctx.head.get()
        const txAddress = transactionAddresses(txs)
        for (const address of watched) {
            const mine = txs.filter((t) => t.watched === address)
            if (mine.length > 0) {
                const transactions = mine.map((t) => renderTransaction(t, txAddress, head.number))
                this.broadcast(`addresses:${address}`, 'transaction', { transactions })
            }
            const moved = transfers.filter((t) => t.watched === address)
            if (moved.length > 0) {
                this.broadcast(`addresses:${address}`, 'token_transfer', { token_transfers: await renderTokenTransfers(this.ctx.db, moved) })
            }
        }
        for (const b of balances) {
            this.broadcast(`addresses:${b.id}`, 'balance', { balance: b.balance, block_number: b.balance_block, exchange_rate: null })
        }
    }

    private async pushTokens(from: number, to: number): Promise<void> {
        const watched = this.subscribed('tokens')
        if (watched.length === 0) return
        for (const r of await transferCounts(this.ctx.db, watched, from, to)) this.broadcast(`tokens:${r.token}`, 'token_transfer', { token_transfer: r.n })
    }
}

function send(connection: Connection, message: Message): void {
    if (connection.socket.readyState === WebSocket.OPEN) connection.socket.send(JSON.stringify(message))
}

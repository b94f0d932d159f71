import * as http from 'http'
import { WsClient, WsHub } from '../../common/service/ws-hub'
import { HEAD_CHANNEL, HeadNotification, VERIFICATION_CHANNEL, VerificationNotification } from '../../db/channels'
import { ChannelListener } from '../../db/listener'
import { chainSocketLimits } from './config'
import { ChainContext } from './context'
import { balanceUpdates } from './queries/addresses'
import { blocksBetween } from './queries/blocks'
import { transferCounts, watchedTransfers } from './queries/token-transfers'
import { watchedTransactions } from './queries/transactions'
import { related } from './queries/related'
import { chainCounters } from './queries/stats'
import { renderTokenTransfers, tokenTransferRefs } from './render/token-transfer'
import { renderTransaction, transactionAddresses } from './render/transaction'
import { blockMiners, renderBlock } from './render/block'

/** Blockscout's live updates over Phoenix Channels (vsn 2.0.0), its topics and payloads: docs/chain-api.md (Live updates) */

type Message = [string | null, string | null, string, string, unknown]

const STATIC_TOPICS = new Set(['blocks:new_block', 'transactions:new_transaction', 'blocks:indexing', 'blocks:indexing_internal_transactions'])
const ADDRESS_TOPIC = /^(addresses|tokens|blocks):(0x[0-9a-fA-F]{40})$/
const HASH_TOPIC = /^transactions:0x[0-9a-fA-F]{64}$/
/** Phoenix clients heartbeat every 30 s; one silent for twice that is gone. */
const IDLE_MS = 60_000
/** Blocks pushed per commit at most: a backfill commits thousands at once and nobody watches those. */
const MAX_BLOCKS_PER_PUSH = 10

/** How soon a push is tried again when the replica read does not hold the announced head yet. */
const REPLICA_RETRY_MS = 200

/** Each joined topic keeps its join_ref, which phoenix.js expects on the channel's pushes. */
type JoinRef = string | null

export class ChainSocket {
    private readonly hub: WsHub<HeadNotification, JoinRef>
    private lastPushed = -1
    private pushing: Promise<void> = Promise.resolve()
    private readonly verifications: ChannelListener<VerificationNotification>
    /** The newest head announced, and the newest whose push waits for the replica read to hold it: retried only while no newer one came. */
    private latest?: HeadNotification
    private waiting?: HeadNotification
    private retry?: NodeJS.Timeout
    private closed = false

    constructor(private ctx: ChainContext) {
        // Blockscout's frontend waits on the address's channel for the outcome of a verification it submitted.
        this.verifications = new ChannelListener<VerificationNotification>({
            databaseUrl: ctx.env.DATABASE_URL!,
            channel: VERIFICATION_CHANNEL,
            retryMs: 2_000,
            log: ctx.log,
            onMessage: (n) => this.broadcast(`addresses:${n.address}`, 'verification_result',
                n.status === 'success' ? { status: 'success' } : { status: 'error', errors: { contract_source_code: [n.reason ?? 'Unable to verify'] } }),
        })
        this.hub = new WsHub<HeadNotification, JoinRef>({
            log: ctx.log,
            listen: {
                databaseUrl: ctx.env.DATABASE_URL!,
                channel: HEAD_CHANNEL,
                retryMs: 2_000,
                onNotification: (head) => {
                    this.ctx.head.invalidate()
                    this.latest = head
                    this.enqueue(head)
                },
            },
            maxPayload: 64 * 1024,
            idleMs: IDLE_MS,
            limits: chainSocketLimits(ctx.env),
            trustProxy: ctx.env.TRUST_PROXY,
            onMessage: (client, data) => {
                let message: Message
                try {
                    message = JSON.parse(data)
                } catch {
                    return
                }
                if (!Array.isArray(message) || message.length !== 5 || typeof message[2] !== 'string' || typeof message[3] !== 'string') return
                this.handle(client, message)
            },
        })
    }

    async attach(server: http.Server, path: string): Promise<void> {
        this.lastPushed = (await this.ctx.head.get()).number
        await this.hub.attach(server, path)
        await this.verifications.start()
    }

    async close(): Promise<void> {
        this.closed = true
        clearTimeout(this.retry)
        await this.verifications.close()
        await this.hub.close()
    }

    private handle(client: WsClient<JoinRef>, [joinRef, ref, topic, event]: Message): void {
        const reply = (status: 'ok' | 'error', response: object) =>
            client.send(JSON.stringify([joinRef, ref, topic, 'phx_reply', { status, response }]))
        if (topic === 'phoenix' && event === 'heartbeat') return reply('ok', {})
        if (event === 'phx_join') {
            if (!STATIC_TOPICS.has(topic) && !ADDRESS_TOPIC.test(topic) && !HASH_TOPIC.test(topic)) {
                return reply('error', { reason: 'unmatched topic' })
            }
            if (!client.subscribe(canonical(topic), joinRef)) return reply('error', { reason: `at most ${this.ctx.env.CHAIN_SOCKET_MAX_TOPICS} channels per socket` })
            return reply('ok', {})
        }
        if (event === 'phx_leave') {
            client.unsubscribe(canonical(topic))
            return reply('ok', {})
        }
        reply('error', { reason: 'unknown event' })
    }

    private broadcast(topic: string, event: string, payload: unknown): void {
        this.hub.publish([topic], (joinRef) => JSON.stringify([joinRef ?? null, null, topic, event, payload]))
    }

    private subscribed(kind: 'addresses' | 'tokens'): string[] {
        const found: string[] = []
        for (const topic of this.hub.topics()) if (topic.startsWith(`${kind}:`)) found.push(topic.slice(kind.length + 1))
        return found
    }

    /** Pushes after those before it, each reading one database throughout (ctx.reads). */
    private enqueue(head: HeadNotification): void {
        this.pushing = this.pushing
            .then(() => this.ctx.reads.run(() => this.push(head)))
            .catch((err) => this.ctx.log.error({ err }, 'live update failed'))
    }

    private async push(head: HeadNotification): Promise<void> {
        // The NOTIFY comes from the primary in its commit; a replica may not hold that commit yet.
        // Nothing is pushed from a database before it holds the announced head, so that no block is
        // missed and none is pushed that a page reading that database would not show; the push is
        // tried again shortly, unless a newer head came meanwhile (its push covers this one's blocks).
        if (this.ctx.reads.replicated && this.hub.size > 0 && ((await chainCounters(this.ctx.db))?.last_block ?? -1) < head.number) {
            this.waiting = head
            if (!this.retry && !this.closed) {
                this.retry = setTimeout(() => {
                    const waiting = this.waiting
                    this.retry = this.waiting = undefined
                    if (waiting && waiting === this.latest && !this.closed) this.enqueue(waiting)
                }, REPLICA_RETRY_MS)
                this.retry.unref()
            }
            return
        }
        // After a reorg the new branch replaces blocks already pushed: push them again.
        const from = head.number <= this.lastPushed
            ? head.number - Math.min(head.blocks, MAX_BLOCKS_PER_PUSH) + 1
            : Math.max(this.lastPushed + 1, head.number - MAX_BLOCKS_PER_PUSH + 1)
        this.lastPushed = head.number
        if (this.hub.size === 0) return
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
        // What every watched address's transfers show, loaded once for all of them.
        const transferRows = await related(this.ctx.db, tokenTransferRefs(transfers))
        for (const address of watched) {
            const mine = txs.filter((t) => t.watched === address)
            if (mine.length > 0) {
                const transactions = mine.map((t) => renderTransaction(t, txAddress, head.number))
                this.broadcast(`addresses:${address}`, 'transaction', { transactions })
            }
            const moved = transfers.filter((t) => t.watched === address)
            if (moved.length > 0) {
                this.broadcast(`addresses:${address}`, 'token_transfer', { token_transfers: renderTokenTransfers(moved, transferRows) })
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

/** Address topics are kept lowercase, as the pushes name them. */
function canonical(topic: string): string {
    return topic.replace(ADDRESS_TOPIC, (_, kind, hash) => `${kind}:${hash.toLowerCase()}`)
}

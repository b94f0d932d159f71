import { Pool } from 'pg'
import { Address, BaseError, Hex, keccak256, LocalAccount, PublicClient, TransactionReceipt } from 'viem'
import { ZERO_FEES } from '../../common/chain'
import { evmTxChain, nextNonce } from '../../common/evm/transactions'
import { Logger } from '../../common/logger'
import { Finality, TxChain } from '../../common/sending/chain'
import { DurableSender, MINED } from '../../common/sending/sender'
import { StoredTx, TxTable } from '../../common/sending/tx-table'
import { LockManager } from '../../db/advisory-locks'

/** Advisory-lock namespace of the platform's senders ("PLAT"), apart from the bridge's. */
const LOCK_PLATFORM_SENDER = 0x504c4154
/** platform_tx.chain: the platform signs on the native chain only (the bridge's name for it). */
const CHAIN = 'NATIVECHAIN'
/** Unfinished transactions one resume pass follows at most. */
const RESUME_BATCH = 500

/** A row of platform_tx: one transaction of a request's plan. */
export interface PlatformTx extends StoredTx {
    requestId: string
    step: number
    to: string | null
}

/** A transaction to sign: `to` undefined deploys a contract. */
export interface UnsignedTx {
    to?: Address
    data: Hex
    value: bigint
    gas: bigint
}

function mapTx(row: any): PlatformTx {
    return {
        id: String(row.id), requestId: row.request_id, step: row.step, chain: row.chain, from: row.from_address, to: row.to_address,
        nonce: row.nonce === null ? null : Number(row.nonce), hash: row.tx_hash, raw: row.raw, status: row.status, error: row.error,
    }
}

/**
 * The platform's wallets sending through the durable sender (docs/sending.md): every transaction
 * is stored in platform_tx before it is broadcast, and what a request stopped waiting for (a
 * timeout, a lost answer, a crash of this or another replica) is followed by the resume pass,
 * at start and then periodically, until it lands or is proven dead.
 */
export class WalletTransactions {
    private readonly core: DurableSender<PlatformTx>
    private readonly chain: TxChain
    /** Transactions a request of this process still waits on: the resume pass leaves them to it. */
    private readonly awaited = new Set<string>()
    private timer?: NodeJS.Timeout
    private stopped = false

    constructor(
        private readonly pool: Pool,
        locks: LockManager,
        private readonly client: PublicClient,
        private readonly chainId: number,
        networkFinality: Finality,
        private readonly log: Logger
    ) {
        const table = new TxTable(pool, 'platform_tx', mapTx, (tx) => ({ request: tx.requestId, step: tx.step }))
        // A nonce someone else used (the key is also held outside the platform): ours can never land, and is not signed again.
        this.core = new DurableSender(table, locks, LOCK_PLATFORM_SENDER, log, (tx) => {
            log.warn({ hash: tx.hash, from: tx.from, nonce: tx.nonce }, 'a transaction not the platform\'s used the nonce of a stored one; it can no longer land')
        })
        this.chain = evmTxChain(CHAIN, client, networkFinality)
    }

    /**
     * Signs `tx` with the wallet's next nonce, stores it, broadcasts it; the caller waits on it
     * until it calls release(). A refusal on the first broadcast is thrown as the node's error.
     */
    async send(account: LocalAccount, tx: UnsignedTx, request: string, step: number): Promise<PlatformTx> {
        const from = account.address.toLowerCase()
        let stored: PlatformTx | undefined
        try {
            const result = await this.core.send(this.chain, from, {
                sign: async (reserved) => {
                    const nonce = await nextNonce(this.client, account.address, reserved)
                    const raw = await account.signTransaction!({
                        type: 'eip1559', chainId: this.chainId, nonce, gas: tx.gas, ...ZERO_FEES, to: tx.to ?? null, data: tx.data, value: tx.value,
                    })
                    return { from, hash: keccak256(raw), raw, nonce }
                },
                store: async (signed) => {
                    const { rows } = await this.pool.query(
                        `INSERT INTO platform_tx (request_id, step, chain, from_address, to_address, nonce, tx_hash, raw, status)
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'signed') RETURNING *`,
                        [request, step, CHAIN, from, tx.to?.toLowerCase() ?? null, signed.nonce, signed.hash, signed.raw]
                    )
                    stored = mapTx(rows[0])
                    this.awaited.add(stored.id)
                    return stored
                },
            })
            if (result.kind === 'rejected') throw new BaseError(result.reason, { details: result.reason })
            return result.tx
        } catch (err) {
            if (stored) this.awaited.delete(stored.id)
            throw err
        }
    }

    /** The receipt a request saw: the transaction landed (left to the resume pass when it cannot be noted now). */
    async landed(tx: PlatformTx, receipt: TransactionReceipt): Promise<void> {
        await this.core.table.markMined(tx.id, receipt.status === 'success' ? 'confirmed' : 'reverted', receipt.blockNumber)
            .catch((err) => this.log.warn({ err, hash: tx.hash }, 'could not note a landed transaction; the resume pass will'))
    }

    /** The request no longer waits on `tx`: if it has not landed, the resume pass follows it from now on. */
    release(tx: PlatformTx): void {
        this.awaited.delete(tx.id)
    }

    /** Follows every unfinished transaction no request of this process waits on: rebroadcast when missing, marked when landed or dead. */
    async resume(): Promise<void> {
        for (const tx of await this.core.table.allUnfinished(CHAIN, RESUME_BATCH)) {
            if (this.awaited.has(tx.id)) continue
            await this.core.track(this.chain, tx, MINED).catch((err) => this.log.warn({ err, hash: tx.hash }, 'could not follow a stored transaction; trying again on the next pass'))
        }
    }

    /** Runs resume() now and every `intervalMs` after (one indexed query when nothing is unfinished). */
    start(intervalMs: number): void {
        const pass = async () => {
            await this.resume().catch((err) => this.log.warn({ err }, 'resuming stored transactions failed; trying again later'))
            // stop() may have come while this pass ran.
            if (!this.stopped) this.timer = setTimeout(pass, intervalMs).unref()
        }
        this.timer = setTimeout(pass, 0).unref()
    }

    stop(): void {
        this.stopped = true
        clearTimeout(this.timer)
    }
}

import { Connection, PublicKey, SendTransactionError, SignatureStatus } from '@solana/web3.js'
import { Logger } from '../../../common/logger'
import { Asset } from '../../config'
import { Finality } from '../finality'
import { scanWatches } from '../scan'
import { KeyManager, KeyRole } from '../../keys'
import {
    BroadcastResult, ChainAdapter, ChainHead, DepositCheck, DepositSeen, DepositWatch, InsufficientForFeeError, Settled, SignedTransfer,
    TransferRequest, TxState, UnpayableTransferError,
} from '../adapter'
import { isAccountAddress, normalizeAddress } from './address'
import { Commitment, commitmentOf, SolanaConfig } from './config'
import { SolanaKeys } from './keys'
import { decodeStored, encodeStored, signSystemTransfer, transferMessage } from './transaction'
import { BoundedMap } from '../../../common/bounded-map'

/** The SOLANA network (SOL, an ed25519 deposit key per swap, any JSON-RPC node) behind the engine's ChainAdapter interface: docs/bridge/networks.md#solana */

/** A transfer the rent rules would make fail: a new account funded below the rent-exempt minimum, or a sender left below it. */
export class RentError extends UnpayableTransferError {}

const SIGNATURE_PAGE = 1000
const SCAN_PARALLEL = 8
const REMEMBERED = 10_000

/** Preflight answers (agave's TransactionError texts) meaning the very same transaction already landed. */
const ALREADY_PROCESSED = /already been processed/i
/** The sender cannot pay: the fee, the amount, or the rent of what remains. */
const NO_FUNDS = /insufficient funds|insufficient lamports|no record of a prior credit|custom program error: 0x1\b/i
/** Refusals of the bytes themselves: they can never land whatever the chain does. */
const INVALID = /signature verification|did not pass signature|sanitize|invalid transaction|failed to deserialize|invalid account/i

export class SolanaAdapter implements ChainAdapter {
    readonly chain = 'SOLANA' as const
    readonly family = 'solana' as const
    readonly maxScanBlocks: bigint
    readonly connection: Connection
    private readonly keys: SolanaKeys
    /** Whether a landed transaction was signed by an address (`signature address`): a fact that never changes, so read once. */
    private readonly signers = new BoundedMap<string, boolean>(REMEMBERED)
    /** lastValidBlockHeight of transfers signed here, for inspect() when the engine asks by hash alone. */
    private readonly expiries = new BoundedMap<string, bigint>(REMEMBERED)
    private rentExempt: bigint | undefined

    constructor(readonly config: SolanaConfig, keys: KeyManager, private readonly log?: Logger) {
        this.connection = new Connection(config.rpcUrl, { commitment: config.commitment, disableRetryOnRateLimit: true })
        this.keys = new SolanaKeys(keys)
        this.maxScanBlocks = config.maxScanSlots
    }

    normalizeAddress(address: string): string | undefined {
        return normalizeAddress(address)
    }

    deriveAddress(role: KeyRole): Promise<string> {
        return this.keys.address(role)
    }

    /** The newest slot at the deposit commitment: a scan up to it sees everything that commitment will ever show there. */
    async head(): Promise<ChainHead> {
        const slot = await this.connection.getSlot(this.config.commitment)
        const time = await this.connection.getBlockTime(slot).catch(() => null)
        return { number: BigInt(slot), time: time === null ? new Date() : new Date(time * 1000) }
    }

    async scanDeposits(watches: DepositWatch[], from: bigint, to: bigint): Promise<DepositSeen[]> {
        const valid = watches.filter((w) => {
            if (w.asset.kind !== 'coin') return false
            if (isAccountAddress(w.address)) return true
            this.log?.warn({ chain: this.chain, swap: w.swapId, address: w.address }, 'watched address is not a Solana address; ignored')
            return false
        })
        return scanWatches(valid, SCAN_PARALLEL, (w) => this.depositsOf(w, from, to))
    }

    private async depositsOf(watch: DepositWatch, from: bigint, to: bigint): Promise<DepositSeen[]> {
        const lowest = from > watch.fromBlock ? from : watch.fromBlock
        const address = new PublicKey(watch.address)
        const deposits: DepositSeen[] = []
        let before: string | undefined
        // Newest first; page back until the slots fall below the range.
        for (;;) {
            const page = await this.connection.getSignaturesForAddress(address, { before, limit: SIGNATURE_PAGE }, this.config.commitment)
            for (const entry of page) {
                const slot = BigInt(entry.slot)
                if (slot > to || slot < lowest || entry.err !== null) continue
                const deposit = await this.depositIn(watch, entry.signature)
                if (deposit) deposits.push(deposit)
            }
            if (page.length < SIGNATURE_PAGE || BigInt(page[page.length - 1].slot) < lowest) break
            before = page[page.length - 1].signature
        }
        return deposits
    }

    private async depositIn(watch: DepositWatch, signature: string): Promise<DepositSeen | undefined> {
        const tx = await this.connection.getTransaction(signature, { commitment: this.config.commitment, maxSupportedTransactionVersion: 0 })
        if (!tx?.meta || tx.meta.err !== null) return undefined
        const keys = tx.transaction.message.getAccountKeys({ accountKeysFromLookups: tx.meta.loadedAddresses })
        for (let i = 0; i < keys.length; i++) {
            if (keys.get(i)!.toBase58() !== watch.address) continue
            const amount = BigInt(tx.meta.postBalances[i]) - BigInt(tx.meta.preBalances[i])
            // Our own gather shows here too, as a fall.
            if (amount <= 0n) return undefined
            const block = await this.block(BigInt(tx.slot), this.config.commitment)
            const time = tx.blockTime ?? block?.blockTime ?? null
            return {
                swapId: watch.swapId, txHash: signature, amount, blockNumber: BigInt(tx.slot),
                blockHash: block?.blockhash ?? '', blockTime: time === null ? new Date() : new Date(time * 1000),
            }
        }
        return undefined
    }

    /**
     * The signatures among the newest `limit` the node lists for `address` (at `confirmed`: the
     * lowest commitment getSignaturesForAddress serves) whose transaction `address` signed: fee
     * payer or another required signer. A failed transaction counts too: it was signed, and charged.
     */
    async sentTransactions(address: string, limit: number): Promise<string[]> {
        const listed = await this.connection.getSignaturesForAddress(new PublicKey(address), { limit }, 'confirmed')
        const sent: string[] = []
        for (const { signature } of listed) {
            if (await this.signedBy(signature, address)) sent.push(signature)
        }
        return sent
    }

    private async signedBy(signature: string, address: string): Promise<boolean> {
        const key = `${signature} ${address}`
        let signed = this.signers.get(key)
        if (signed === undefined) {
            const tx = await this.connection.getTransaction(signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 })
            // Listed but not served (a node pruning its history between two calls): read again next time.
            if (!tx) throw new Error(`SOLANA: ${signature} is listed for ${address} but the node does not serve it`)
            const message = tx.transaction.message
            signed = message.staticAccountKeys.slice(0, message.header.numRequiredSignatures).some((k) => k.toBase58() === address)
            this.signers.set(key, signed)
        }
        return signed
    }

    private async block(slot: bigint, commitment: Commitment) {
        return this.connection.getBlock(Number(slot), { commitment, transactionDetails: 'none', rewards: false, maxSupportedTransactionVersion: 0 })
            .catch(() => null)
    }

    async checkDeposit(deposit: { txHash: string | null; blockNumber: bigint; blockHash: string }, finality: Finality): Promise<DepositCheck> {
        const commitment = commitmentOf(finality)
        if (deposit.txHash === null) {
            // Every Solana deposit has a signature; a block alone is judged by its hash at that slot.
            const block = await this.block(deposit.blockNumber, 'confirmed')
            if (!block || block.blockhash !== deposit.blockHash) return { state: 'orphaned' }
            const final = (await this.connection.getSlot(commitment)) >= Number(deposit.blockNumber)
            return { state: final ? 'final' : 'pending', confirmations: 0 }
        }
        const status = await this.status(deposit.txHash)
        if (!status || status.err !== null) return { state: 'orphaned' }
        if (BigInt(status.slot) !== deposit.blockNumber) {
            const block = await this.block(BigInt(status.slot), 'confirmed')
            return { state: 'moved', blockNumber: BigInt(status.slot), blockHash: block?.blockhash ?? '' }
        }
        const settled = await this.settled(status, commitment)
        return { state: settled.final ? 'final' : 'pending', confirmations: settled.confirmations }
    }

    private async status(signature: string): Promise<SignatureStatus | null> {
        const { value } = await this.connection.getSignatureStatuses([signature], { searchTransactionHistory: true })
        return value[0] ?? null
    }

    private async settled(status: SignatureStatus, commitment: Commitment): Promise<Settled> {
        const final = status.confirmationStatus === 'finalized' || (commitment === 'confirmed' && status.confirmationStatus === 'confirmed')
        let confirmations = status.confirmations
        if (confirmations === null) {
            // Rooted: the node stops counting; the distance to its newest slot stands in.
            const slot = await this.connection.getSlot('processed')
            confirmations = Math.max(slot - status.slot + 1, 1)
        }
        return { blockNumber: BigInt(status.slot), final, confirmations }
    }

    async balance(address: string, asset: Asset): Promise<bigint> {
        if (asset.kind !== 'coin') throw new Error(`SOLANA: only SOL is served, not ${asset.symbol}`)
        return BigInt(await this.connection.getBalance(new PublicKey(address), this.config.commitment))
    }

    /** One signature's fee, as the node prices a transfer message now. */
    async transferFee(asset: Asset, from: string, to: string): Promise<bigint> {
        if (asset.kind !== 'coin') throw new Error(`SOLANA: only SOL is served, not ${asset.symbol}`)
        const { blockhash } = await this.connection.getLatestBlockhash(this.config.sendCommitment)
        return this.feeOf(new PublicKey(from), new PublicKey(to), blockhash)
    }

    private async feeOf(from: PublicKey, to: PublicKey, blockhash: string): Promise<bigint> {
        const { value } = await this.connection.getFeeForMessage(transferMessage(from, to, 1n, blockhash), this.config.sendCommitment)
        if (value === null) throw new Error('SOLANA: the node cannot price a transfer (blockhash unknown to it)')
        return BigInt(value)
    }

    /** The rent-exempt minimum of an account without data (890 880 lamports on mainnet). */
    async rentExemptMinimum(): Promise<bigint> {
        this.rentExempt ??= BigInt(await this.connection.getMinimumBalanceForRentExemption(0, this.config.sendCommitment))
        return this.rentExempt
    }

    async signTransfer(request: TransferRequest, _reservedSequences: number[]): Promise<SignedTransfer> {
        if (request.asset.kind !== 'coin') throw new Error(`SOLANA: only SOL is served, not ${request.asset.symbol}`)
        const to = normalizeAddress(request.to)
        if (!to) throw new Error(`SOLANA: not a payout address: ${request.to}`)
        const from = new PublicKey(await this.keys.address(request.from))
        const toKey = new PublicKey(to)
        if (from.equals(toKey)) throw new Error('SOLANA: a transfer to its own sender')
        const { blockhash, lastValidBlockHeight } = await this.connection.getLatestBlockhash(this.config.sendCommitment)
        const fee = await this.feeOf(from, toKey, blockhash)
        const balance = BigInt(await this.connection.getBalance(from, this.config.sendCommitment))
        let amount: bigint
        if (request.amount === 'all') {
            // A gather sweeps the credited deposit only, leaving an extra deposit for its own refund;
            // unless that would leave the account below the rent-exempt minimum (a transfer the
            // network refuses): then all of it goes (docs/bridge/lifecycle.md#extra-and-late-deposits).
            let keep = request.only && request.only.amount < balance ? balance - request.only.amount : 0n
            if (keep > 0n && keep < (await this.rentExemptMinimum())) keep = 0n
            amount = balance - keep - fee
            if (amount <= 0n) throw new InsufficientForFeeError(`SOLANA: ${balance} lamports at ${from.toBase58()} do not cover the ${fee} lamport fee`)
        } else {
            amount = request.amount
            if (amount <= 0n) throw new Error('SOLANA: a transfer needs a positive amount')
            const left = balance - amount - fee
            const rent = await this.rentExemptMinimum()
            if (left > 0n && left < rent) throw new RentError(`SOLANA: the sender would keep ${left} lamports, below the rent-exempt ${rent}`)
        }
        const rent = await this.rentExemptMinimum()
        const recipient = BigInt(await this.connection.getBalance(toKey, this.config.sendCommitment))
        if (recipient + amount < rent) throw new RentError(`SOLANA: ${to} would hold ${recipient + amount} lamports, below the rent-exempt ${rent}`)
        const { wire, signature } = await this.keys.withKeypair(request.from, (pair) => signSystemTransfer(pair, toKey, amount, blockhash))
        this.remember(signature, BigInt(lastValidBlockHeight))
        return { from: from.toBase58(), hash: signature, raw: encodeStored(BigInt(lastValidBlockHeight), wire), nonce: null, amount }
    }

    async broadcast(raw: string): Promise<BroadcastResult> {
        let wire: Buffer
        try {
            wire = decodeStored(raw).wire
        } catch (err) {
            return { kind: 'rejected', reason: (err as Error).message, insufficientFunds: false }
        }
        try {
            // maxRetries 0: the engine's loop is the one that rebroadcasts, always these bytes.
            await this.connection.sendRawTransaction(wire, { skipPreflight: false, preflightCommitment: this.config.sendCommitment, maxRetries: 0 })
            return { kind: 'accepted' }
        } catch (err) {
            const reason = err instanceof SendTransactionError ? err.transactionError.message : (err as Error).message
            if (ALREADY_PROCESSED.test(reason)) return { kind: 'accepted' }
            // A blockhash the node does not know may be too old or too new for it: inspect() decides.
            if (/blockhash not found/i.test(reason)) return { kind: 'uncertain', reason }
            if (err instanceof SendTransactionError || /-3200[23]/.test(reason)) {
                if (NO_FUNDS.test(reason)) return { kind: 'rejected', reason, insufficientFunds: true }
                if (INVALID.test(reason)) return { kind: 'rejected', reason, insufficientFunds: false }
            }
            return { kind: 'uncertain', reason }
        }
    }

    /**
     * `raw` (the stored transfer) carries the blockhash's lastValidBlockHeight; without it, and
     * when not signed by this process, an unknown transaction stays 'missing': rebroadcast,
     * never replaced.
     */
    async inspect(tx: { hash: string; from: string; nonce: number | null; raw?: string }, finality: Finality): Promise<TxState> {
        let expiry = this.expiries.get(tx.hash)
        if (expiry === undefined && tx.raw) expiry = decodeStored(tx.raw).lastValidBlockHeight
        // Height first, then the signature: a landing between the two reads is then still seen.
        const finalizedHeight = expiry === undefined ? undefined : BigInt(await this.connection.getBlockHeight('finalized'))
        const status = await this.status(tx.hash)
        if (status) {
            if (status.confirmationStatus === 'processed' || !status.confirmationStatus) return { kind: 'pending' }
            const settled = await this.settled(status, commitmentOf(finality))
            if (settled.final) this.expiries.delete(tx.hash)
            return { kind: status.err === null ? 'confirmed' : 'reverted', ...settled }
        }
        if (expiry !== undefined && finalizedHeight! > expiry) {
            this.expiries.delete(tx.hash)
            return { kind: 'dead' }
        }
        return { kind: 'missing' }
    }

    private remember(signature: string, lastValidBlockHeight: bigint): void {
        this.expiries.set(signature, lastValidBlockHeight)
    }
}

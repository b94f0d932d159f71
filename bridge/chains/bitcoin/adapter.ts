import { Logger } from '../../../common/logger'
import { Asset } from '../../config'
import { Finality } from '../finality'
import { KeyManager, KeyRole } from '../../keys'
import {
    BroadcastResult, ChainAdapter, ChainHead, DepositCheck, DepositSeen, DepositWatch, Settled, SignedTransfer, TransferRequest, TxState,
} from '../adapter'
import { normalizeAddress, OutputKind, parseAddress } from './address'
import { scanWatches } from '../scan'
import { BitcoinBackend, NodeRejection, TxStatus } from './backend'
import { BitcoindBackend } from './bitcoind'
import { BitcoinConfig } from './config'
import { requiredConfirmations, tierConfirmations } from './confirmations'
import { EsploraBackend } from './esplora'
import { feeFor, MIN_RELAY_FEE_RATE, p2wpkhSpendVsize } from './fees'
import { BitcoinKeys } from './keys'
import { BitcoinNetworkParams, bitcoinNetwork, networkOfGenesis } from './network'
import { Coin, coinKey, MAX_INPUTS, planPayment, planSweep, SpendPlan } from './selection'
import { decodeSpend, DecodedSpend, signSpend } from './transaction'
import { BoundedMap } from '../../../common/bounded-map'

/** The BITCOIN network (BTC, P2WPKH deposit addresses, an Esplora or Bitcoin Core backend) behind the engine's ChainAdapter interface: docs/bridge/networks.md#bitcoin */

/** A transfer that must exclude earlier attempts at the same transfer: it spends their still-unspent inputs. */
export interface BitcoinTransferRequest extends TransferRequest {
    replaces?: string[]
}

/** What became of one input of a transaction that is neither mined nor in the mempool. */
export type InputState =
    | { kind: 'unspent' }
    /** Spent by the transaction asked about (which is then known to the backend after all). */
    | { kind: 'spent-by-it' }
    /** Spent by another transaction; confirmations 0 while that one is in the mempool. */
    | { kind: 'conflict'; txid: string; confirmations: number }
    /** The transaction that created the output is unknown: reorged out, or never existed. */
    | { kind: 'unknown-parent' }

export interface Landing {
    txid: string
    /**
     * confirmed / pending: the backend has it mined / in its mempool. can-land: it has not, and
     * nothing stops the same bytes from landing (rebroadcast them). cannot-land: an input is spent
     * by another transaction at least `deadDepth` deep. `inputs` is filled unless confirmed.
     */
    state: 'confirmed' | 'pending' | 'can-land' | 'cannot-land'
    inputs: { txid: string; vout: number; state: InputState }[]
}

/** A `replaces` list that does not allow a safe new signature. */
export class ReplacementError extends Error {}

/** Node answers meaning it already has the transaction. */
const ALREADY_KNOWN = /already in block chain|already in utxo set|txn-already-known|txn-already-in-mempool|already have transaction/i
/** Answers about the inputs: spent elsewhere or not found. Whether that is final depends on the chain (broadcast looks). */
const INPUT_TROUBLE = /missingorspent|missing-inputs|missing inputs|txn-mempool-conflict|inputs-spent|bad-txns-spends-conflicting-tx/i
/** Policy refusals that can pass later (fees fall, the mempool drains, a parent confirms): the bytes may still land. */
const TRANSIENT = /min relay fee not met|mempool min fee not met|mempool full|too-long-mempool-chain|too-long-mempool|insufficient fee|non-bip68-final|non-final|premature-spend-of-coinbase|replacement-adds-unconfirmed|too many potential replacements/i
/** The transaction is malformed or invalid by consensus or standardness of its own content: it can never land. */
const INVALID = /script-verify|scriptsig|scriptpubkey|dust|bad-txns|tx-size|version|decode|bad-witness|witness|multi-op-return|max-fee-exceeded|absurdly-high-fee|fee exceeds/i

const SCAN_PARALLEL = 8
/** 21 million BTC: an amount nobody told us is judged as the largest there can be. */
const MAX_MONEY = 2_100_000_000_000_000n
const REMEMBERED_RAWS = 10_000

export class BitcoinAdapter implements ChainAdapter {
    readonly chain = 'BITCOIN' as const
    readonly family = 'bitcoin' as const
    /** Scans read address UTXO lists, not blocks, so a range costs the same however wide; about two weeks of blocks. */
    readonly maxScanBlocks = 2016n
    readonly network: BitcoinNetworkParams
    readonly backend: BitcoinBackend
    private readonly keys: BitcoinKeys
    /**
     * Outputs spent by transactions signed here that the backend has not accepted yet: its
     * UTXO list hides outputs its mempool spends, but not those of a transaction still between
     * signing and broadcast.
     */
    private readonly reserved = new Map<string, string>()
    /** Raw transactions signed here, for inspect() when the engine asks by hash alone. */
    private readonly raws = new BoundedMap<string, string>(REMEMBERED_RAWS)
    private readonly watched = new Set<string>()

    constructor(readonly config: BitcoinConfig, keys: KeyManager, private readonly log?: Logger, backend?: BitcoinBackend) {
        this.network = bitcoinNetwork(config.network)
        this.keys = new BitcoinKeys(keys, this.network)
        this.backend = backend ?? (config.backend.kind === 'esplora'
            ? new EsploraBackend(config.backend.url)
            : new BitcoindBackend(config.backend))
    }

    /** Throws unless the backend serves this adapter's network (its genesis block); the counterpart of an EVM chain id check. */
    async checkNetwork(): Promise<void> {
        const genesis = await this.backend.blockHash(0)
        if (!genesis) throw new Error('BITCOIN: the backend has no block 0')
        if (!Object.values(this.network.genesis).includes(genesis)) {
            const actual = networkOfGenesis(genesis)
            throw new Error(`BITCOIN: the backend serves ${actual ? `${actual.chain}` : `an unknown chain (genesis ${genesis})`}, expected ${this.network.name}`)
        }
    }

    normalizeAddress(address: string): string | undefined {
        return normalizeAddress(address, this.network)
    }

    async deriveAddress(role: KeyRole): Promise<string> {
        const address = await this.keys.address(role)
        if (this.backend.watch && !this.watched.has(address)) {
            // A deposit address is new: nothing before now can pay it. The vault may hold older coins.
            await this.backend.watch(address, role.kind === 'vault' ? 0 : 'now')
            this.watched.add(address)
        }
        return address
    }

    async head(): Promise<ChainHead> {
        const tip = await this.backend.tip()
        return { number: BigInt(tip.height), time: new Date(tip.time * 1000) }
    }

    /** Confirmations a deposit of `amount` satoshi needs before it counts (the tier table raised to the floor). */
    requiredConfirmations(amount: bigint, finality: Finality = this.config.finality): number {
        return requiredConfirmations(amount, this.config.confirmationTiers, this.floor(finality))
    }

    /** A late deposit of several outputs is dated by the head block whose balance showed it, and checked by that block's hash. */
    async blockHash(blockNumber: bigint): Promise<string> {
        const hash = await this.backend.blockHash(Number(blockNumber))
        if (!hash) throw new Error(`BITCOIN: no block at height ${blockNumber}`)
        return hash
    }

    async scanDeposits(watches: DepositWatch[], from: bigint, to: bigint): Promise<DepositSeen[]> {
        const valid = watches.filter((w) => {
            if (w.asset.kind !== 'coin') return false
            if (this.normalizeAddress(w.address) === w.address) return true
            // Not an address of this network (a testnet address on mainnet…): nothing sent there can be seen here.
            this.log?.warn({ chain: this.chain, swap: w.swapId, address: w.address }, 'watched address is not valid on this Bitcoin network; ignored')
            return false
        })
        return scanWatches(valid, SCAN_PARALLEL, (w) => this.depositsOf(w, from, to))
    }

    private async depositsOf(watch: DepositWatch, from: bigint, to: bigint): Promise<DepositSeen[]> {
        const lowest = from > watch.fromBlock ? from : watch.fromBlock
        const byTx = new Map<string, DepositSeen>()
        for (const utxo of await this.backend.addressUtxos(watch.address)) {
            const { confirmed, blockHeight, blockHash, blockTime } = utxo.status
            if (!confirmed || blockHeight === undefined || !blockHash || blockTime === undefined) continue
            const height = BigInt(blockHeight)
            if (height < lowest || height > to) continue
            const known = byTx.get(utxo.txid)
            if (known) known.amount += utxo.value
            else byTx.set(utxo.txid, { swapId: watch.swapId, txHash: utxo.txid, amount: utxo.value, blockNumber: height, blockHash, blockTime: new Date(blockTime * 1000) })
        }
        return [...byTx.values()]
    }

    async transferTo(txHash: string, address: string, asset: Asset): Promise<DepositSeen | undefined> {
        if (asset.kind !== 'coin') return undefined
        const tx = await this.backend.tx(txHash)
        const { confirmed, blockHeight, blockHash, blockTime } = tx?.status ?? {}
        if (!tx || !confirmed || blockHeight === undefined || !blockHash || blockTime === undefined) return undefined
        const amount = tx.vout.filter((o) => o.address === address).reduce((sum, o) => sum + o.value, 0n)
        if (amount === 0n) return undefined
        return { swapId: '', txHash: tx.txid, amount, blockNumber: BigInt(blockHeight), blockHash, blockTime: new Date(blockTime * 1000) }
    }

    /**
     * `amount` (the credited deposit, satoshi) picks the confirmation tier; without it the
     * transaction's whole output value stands in, which can only ask for more confirmations.
     */
    async checkDeposit(
        deposit: { txHash: string | null; blockNumber: bigint; blockHash: string; amount?: bigint },
        finality: Finality
    ): Promise<DepositCheck> {
        if (deposit.txHash === null) {
            const hash = await this.backend.blockHash(Number(deposit.blockNumber))
            if (hash !== deposit.blockHash) return { state: 'orphaned' }
            const settled = await this.settled(Number(deposit.blockNumber), deposit.blockHash, this.requiredConfirmations(deposit.amount ?? MAX_MONEY, finality))
            return { state: settled.final ? 'final' : 'pending', confirmations: settled.confirmations }
        }
        const status = await this.backend.txStatus(deposit.txHash)
        // Back in the mempool or gone: not in the chain, whatever may happen to it later.
        if (!status?.confirmed || status.blockHeight === undefined || !status.blockHash) return { state: 'orphaned' }
        if (status.blockHash !== deposit.blockHash) return { state: 'moved', blockNumber: BigInt(status.blockHeight), blockHash: status.blockHash }
        let amount = deposit.amount
        if (amount === undefined) {
            const tx = await this.backend.tx(deposit.txHash)
            amount = tx ? tx.vout.reduce((sum, o) => sum + o.value, 0n) : 0n
        }
        const settled = await this.settled(status.blockHeight, status.blockHash, this.requiredConfirmations(amount, finality))
        return { state: settled.final ? 'final' : 'pending', confirmations: settled.confirmations }
    }

    /** Depth of a mined block against `required` confirmations, and whether the best chain still holds it. */
    private async settled(height: number, blockHash: string, required: number): Promise<Settled> {
        const tip = await this.backend.tip()
        const confirmations = Math.max(tip.height - height + 1, 0)
        let final = confirmations >= required
        if (final) final = (await this.backend.blockHash(height)) === blockHash
        return { blockNumber: BigInt(height), final, confirmations }
    }

    private floor(finality: Finality): Finality {
        // A tag (finalized/safe) means nothing on Bitcoin: the configured count stands in.
        return 'confirmations' in finality ? finality : this.config.finality
    }

    private depthOf(finality: Finality): number {
        const floor = this.floor(finality)
        return Math.max('confirmations' in floor ? floor.confirmations : 1, 1)
    }

    /**
     * Coins of an address we may spend now: confirmed outputs, and unconfirmed ones only when
     * they are change of the address's own transaction (nobody else can double-spend those).
     */
    async spendableCoins(address: string, opts: { includeReserved?: boolean } = {}): Promise<Coin[]> {
        const [utxos, tip] = await Promise.all([this.backend.addressUtxos(address), this.backend.tip()])
        const coins: Coin[] = []
        for (const utxo of utxos) {
            if (!opts.includeReserved && this.reserved.has(coinKey(utxo))) continue
            if (utxo.status.confirmed && utxo.status.blockHeight !== undefined) {
                coins.push({ txid: utxo.txid, vout: utxo.vout, value: utxo.value, confirmations: Math.max(tip.height - utxo.status.blockHeight + 1, 1) })
                continue
            }
            const tx = await this.backend.tx(utxo.txid)
            if (tx && !tx.status.confirmed && tx.vin.some((i) => i.prevoutAddress === address)) {
                coins.push({ txid: utxo.txid, vout: utxo.vout, value: utxo.value, confirmations: 0 })
            }
        }
        return coins
    }

    async balance(address: string, asset: Asset): Promise<bigint> {
        if (asset.kind !== 'coin') throw new Error(`BITCOIN has no tokens (asked for ${asset.symbol})`)
        return (await this.spendableCoins(address, { includeReserved: true })).reduce((sum, c) => sum + c.value, 0n)
    }

    /** The fee rate sends use now, sat/kvB: the backend's estimate for the configured target, within [1 sat/vB, the configured cap]. */
    async feeRate(): Promise<bigint> {
        const estimates = await this.backend.feeEstimates()
        const targets = [...estimates.keys()].sort((a, b) => a - b)
        const within = targets.filter((t) => t <= this.config.feeTargetBlocks)
        const target = within.length > 0 ? within[within.length - 1] : targets[0]
        let rate = target === undefined ? this.config.fallbackFeeRate : estimates.get(target)!
        if (rate < MIN_RELAY_FEE_RATE) rate = MIN_RELAY_FEE_RATE
        if (rate > this.config.maxFeeRate) {
            this.log?.warn({ chain: this.chain, estimate: rate.toString(), cap: this.config.maxFeeRate.toString() }, 'fee estimate above the cap; using the cap')
            rate = this.config.maxFeeRate
        }
        return rate
    }

    /**
     * An upper bound of one transfer's fee from `from`: all of its spendable outputs as inputs (at
     * least one, at most MAX_INPUTS), the recipient's output and a change output.
     */
    async transferFee(asset: Asset, from: string, to: string): Promise<bigint> {
        if (asset.kind !== 'coin') throw new Error(`BITCOIN has no tokens (asked for ${asset.symbol})`)
        const [rate, coins] = await Promise.all([this.feeRate(), this.spendableCoins(from, { includeReserved: true })])
        const inputs = Math.min(Math.max(coins.length, 1), MAX_INPUTS)
        const toKind: OutputKind = parseAddress(to, this.network)?.kind ?? 'p2wsh'
        return feeFor(p2wpkhSpendVsize(inputs, [toKind, 'p2wpkh']), rate)
    }

    /**
     * 'all' sweeps every coin of the sender that is as deep as its own amount would need as a
     * deposit (so a later, still shallow payment to a deposit address is not swept along) into one
     * output; an amount pays exactly that with change back to the sender. Throws
     * InsufficientForFeeError (a sweep that does not cover its fee), InsufficientFundsError (a
     * subclass: a payment the coins do not cover), DustOutputError, ReplacementError.
     */
    async signTransfer(request: BitcoinTransferRequest, _reservedSequences: number[] = []): Promise<SignedTransfer> {
        if (request.asset.kind !== 'coin') throw new Error(`BITCOIN has no tokens (asked for ${request.asset.symbol})`)
        const to = parseAddress(request.to, this.network)
        if (!to) throw new Error(`not a ${this.network.name} Bitcoin address: ${request.to}`)
        const from = await this.deriveAddress(request.from)
        const change = parseAddress(from, this.network)!
        const [rate, coins, replacing] = await Promise.all([
            this.feeRate(),
            this.spendableCoins(from),
            this.replacementInputs(request.replaces ?? [], from),
        ])
        let plan: SpendPlan
        if (request.amount === 'all') {
            // A gather spends the credited deposit's outputs only: each other output is an extra deposit, refunded on its own.
            const txid = request.only?.txHash
            const deep = coins.filter((c) => c.confirmations >= tierConfirmations(c.value, this.config.confirmationTiers) && (!txid || c.txid === txid))
            plan = planSweep({ coins: deep, forced: replacing.forced, to, rate, outbid: replacing.outbid })
        } else {
            plan = planPayment({ coins, forced: replacing.forced, to, amount: request.amount, change, rate, outbid: replacing.outbid })
        }
        const signed = await this.keys.withSigner(request.from, (signer) => signSpend(plan, signer))
        for (const coin of plan.inputs) this.reserved.set(coinKey(coin), signed.txid)
        this.remember(signed.txid, signed.raw)
        this.log?.info({
            chain: this.chain, txid: signed.txid, from, to: to.address, amount: plan.amount.toString(), fee: plan.fee.toString(),
            inputs: plan.inputs.length, vsize: signed.vsize, replaces: replacing.txids,
        }, 'bitcoin transfer signed')
        return { from, hash: signed.txid, raw: signed.raw, nonce: null, amount: plan.amount }
    }

    /**
     * The inputs a replacement must spend: of each replaced transaction, those not yet spent by
     * anything else. A replaced transaction already mined cannot be replaced; one whose inputs are
     * all spent elsewhere is fine only when one of those spends is final (it is then dead).
     */
    private async replacementInputs(raws: string[], from: string): Promise<{ forced: Coin[]; outbid: bigint; txids: string[] }> {
        const forced = new Map<string, Coin>()
        let outbid = 0n
        const txids: string[] = []
        if (raws.length === 0) return { forced: [], outbid, txids }
        const tip = await this.backend.tip()
        const deadDepth = this.depthOf(this.config.finality)
        for (const raw of raws) {
            const old = decodeSpend(raw)
            txids.push(old.txid)
            const landing = await this.landing(raw, deadDepth)
            if (landing.state === 'confirmed') throw new ReplacementError(`${old.txid} is already mined: there is nothing to replace`)
            let contributes = false
            let inputsValue = 0n
            for (const input of landing.inputs) {
                const parent = await this.backend.tx(input.txid)
                const output = parent?.vout[input.vout]
                if (output) inputsValue += output.value
                if (input.state.kind !== 'unspent' && input.state.kind !== 'spent-by-it') continue
                if (!parent || !output) continue
                if (output.address !== from) throw new ReplacementError(`${old.txid} spends ${input.txid}:${input.vout}, which ${from} does not own`)
                const confirmations = parent.status.confirmed && parent.status.blockHeight !== undefined ? tip.height - parent.status.blockHeight + 1 : 0
                forced.set(coinKey(input), { txid: input.txid, vout: input.vout, value: output.value, confirmations })
                contributes = true
            }
            if (!contributes && landing.state !== 'cannot-land') {
                throw new ReplacementError(`cannot prove ${old.txid} will not land: its inputs are spent by unconfirmed transactions or their parents are unknown`)
            }
            if (landing.state === 'pending') outbid += inputsValue - old.outputs.reduce((sum, o) => sum + o.value, 0n)
            for (const input of old.inputs) if (this.reserved.get(coinKey(input)) === old.txid) this.reserved.delete(coinKey(input))
        }
        return { forced: [...forced.values()], outbid, txids }
    }

    async broadcast(raw: string): Promise<BroadcastResult> {
        let decoded: DecodedSpend
        try {
            decoded = decodeSpend(raw)
        } catch (err) {
            return { kind: 'rejected', reason: `not a transaction: ${(err as Error).message}`, insufficientFunds: false }
        }
        try {
            await this.backend.broadcast(raw)
            // From here on the backend's own UTXO view hides the inputs.
            this.release(decoded)
            return { kind: 'accepted' }
        } catch (err) {
            if (!(err instanceof NodeRejection)) return { kind: 'uncertain', reason: (err as Error).message }
            const reason = err.code === null ? err.reason : `${err.reason} (code ${err.code})`
            if (err.code === -27 || ALREADY_KNOWN.test(err.reason)) {
                this.release(decoded)
                return { kind: 'accepted' }
            }
            if (err.code === -25 || INPUT_TROUBLE.test(err.reason)) {
                const landing = await this.landing(raw, this.depthOf(this.config.finality)).catch(() => undefined)
                if (landing?.state === 'confirmed' || landing?.state === 'pending') return { kind: 'accepted' }
                if (landing?.state === 'cannot-land') {
                    this.release(decoded)
                    return { kind: 'rejected', reason, insufficientFunds: false }
                }
                // Spent by a transaction still in the mempool, or a parent reorged out: either may change.
                return { kind: 'uncertain', reason }
            }
            if (TRANSIENT.test(err.reason)) return { kind: 'uncertain', reason }
            if (err.code === -22 || INVALID.test(err.reason)) {
                this.release(decoded)
                return { kind: 'rejected', reason, insufficientFunds: /in-belowout/i.test(err.reason) }
            }
            return { kind: 'uncertain', reason }
        }
    }

    /** The transactions spending the address's outputs among the newest `limit` the backend lists for it (the ledger guard). */
    sentTransactions(address: string, limit: number): Promise<string[]> {
        return this.backend.sentFrom(address, limit)
    }

    /**
     * `raw` (the stored transaction) lets a transaction the backend no longer knows be judged by
     * its inputs; without it (and when not signed by this process) such a transaction is
     * 'missing': rebroadcast, never replaced.
     */
    async inspect(tx: { hash: string; from: string; nonce: number | null; raw?: string }, finality: Finality): Promise<TxState> {
        const status = await this.backend.txStatus(tx.hash)
        if (status?.confirmed && status.blockHeight !== undefined && status.blockHash) {
            const settled = await this.settled(status.blockHeight, status.blockHash, this.depthOf(finality))
            if (settled.final) this.forget(tx.hash)
            return { kind: 'confirmed', ...settled }
        }
        if (status) return { kind: 'pending' }
        const raw = tx.raw ?? this.raws.get(tx.hash)
        if (!raw) return { kind: 'missing' }
        const landing = await this.landing(raw, this.depthOf(finality))
        if (landing.state === 'cannot-land') {
            this.release(decodeSpend(raw))
            this.forget(tx.hash)
            return { kind: 'dead' }
        }
        // Mined or accepted between the two reads.
        if (landing.state === 'confirmed' || landing.state === 'pending') return { kind: 'pending' }
        return { kind: 'missing' }
    }

    /**
     * Where a signed transaction stands and, when the backend knows nothing of it, what became of
     * each input: the evidence the engine needs before it signs anew. deadDepth: how deep a
     * conflicting spend must be before the transaction counts as unable to land.
     */
    async landing(raw: string, deadDepth = this.depthOf(this.config.finality)): Promise<Landing> {
        const decoded = decodeSpend(raw)
        const status = await this.backend.txStatus(decoded.txid)
        const inputs: Landing['inputs'] = []
        if (status?.confirmed) return { txid: decoded.txid, state: 'confirmed', inputs }
        const tip = await this.backend.tip()
        let dead = false
        let selfSeen = false
        for (const input of decoded.inputs) {
            const spend = await this.backend.outspend(input.txid, input.vout)
            let state: InputState
            if (!spend) state = { kind: 'unknown-parent' }
            else if (!spend.spent) state = { kind: 'unspent' }
            else if (spend.txid === decoded.txid) state = { kind: 'spent-by-it' }
            else {
                const confirmations = depth(spend.status, tip.height)
                state = { kind: 'conflict', txid: spend.txid ?? '', confirmations }
                if (confirmations >= deadDepth) dead = true
            }
            if (state.kind === 'spent-by-it') selfSeen = true
            inputs.push({ ...input, state })
        }
        const state = status || selfSeen ? 'pending' : dead ? 'cannot-land' : 'can-land'
        return { txid: decoded.txid, state, inputs }
    }

    private release(decoded: DecodedSpend): void {
        for (const input of decoded.inputs) if (this.reserved.get(coinKey(input)) === decoded.txid) this.reserved.delete(coinKey(input))
    }

    private remember(txid: string, raw: string): void {
        this.raws.set(txid, raw)
    }

    private forget(txid: string): void {
        const raw = this.raws.get(txid)
        if (raw) this.release(decodeSpend(raw))
        this.raws.delete(txid)
    }
}

function depth(status: TxStatus | undefined, tipHeight: number): number {
    if (!status?.confirmed || status.blockHeight === undefined) return 0
    return Math.max(tipHeight - status.blockHeight + 1, 0)
}

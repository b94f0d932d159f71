import { TronWeb } from 'tronweb'
import { Logger } from '../../../common/logger'
import { Asset } from '../../config'
import { Finality } from '../finality'
import { KeyManager, KeyRole } from '../../keys'
import {
    BroadcastResult, ChainAdapter, ChainHead, DepositCheck, DepositSeen, DepositWatch, InsufficientForFeeError, Settled, SignedTransfer,
    TransferRequest, TxState,
} from '../adapter'
import { scanWatches } from '../scan'
import { hexAddress, normalizeAddress, sameAccount } from './address'
import { decodeMessage, GridTransaction, TronCallError, GridTrc20Transfer, int64, NodeBlock, TransactionInfo, TronHttp, TronNodeError } from './client'
import { TronConfig } from './config'
import { bandwidthBurn, bandwidthOf, pricesOf, TronPrices, trxTransferFee, usdtEnergy, usdtTransferFee } from './fees'
import { TronKeys } from './keys'
import { checkBuilt, decodeStored, encodeStored, TronTransaction } from './transaction'
import { BoundedMap } from '../../../common/bounded-map'

/** The TRON network (TRX and TRC-20 USDT) behind the engine's ChainAdapter interface: docs/bridge/networks.md#tron */

const SCAN_PARALLEL = 4
const REMEMBERED = 10_000
const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
const MAX_SUN_NUMBER = BigInt(Number.MAX_SAFE_INTEGER)

/**
 * java-tron's broadcast codes (Return.response_code) meaning the node refused these bytes for
 * what they are: a bad signature, a sender that cannot pay, a contract that does not validate.
 * The others (SERVER_BUSY, NO_CONNECTION, NOT_ENOUGH_EFFECTIVE_CONNECTION, BLOCK_UNSOLIDIFIED,
 * OTHER_ERROR, and TRANSACTION_EXPIRATION_ERROR / TAPOS_ERROR, which judge the transaction
 * against this node's head only) leave it able to land: the same bytes go out again, and whether
 * it never can is inspect()'s call, by the solidified block's time.
 */
const REFUSED_CODES = new Set(['SIGERROR', 'BANDWITH_ERROR', 'CONTRACT_VALIDATE_ERROR', 'CONTRACT_EXE_ERROR', 'TOO_BIG_TRANSACTION_ERROR'])
/** Refusals meaning the sender cannot pay: the amount, the bandwidth, or it has no account at all. */
const NO_FUNDS = /balance is not sufficient|insufficient|no owneraccount|not exist/i

export class TronAdapter implements ChainAdapter {
    readonly chain = 'TRON' as const
    readonly family = 'tron' as const
    readonly maxScanBlocks: bigint
    readonly http: TronHttp
    readonly tronWeb: TronWeb
    private readonly keys: TronKeys
    /** Expiration (ms) of transfers signed here, for inspect() when the engine asks by hash alone. */
    private readonly expiries = new BoundedMap<string, bigint>(REMEMBERED)

    constructor(readonly config: TronConfig, keys: KeyManager, private readonly log?: Logger) {
        this.http = new TronHttp(config.apiUrl, config.apiKey)
        this.tronWeb = new TronWeb({ fullHost: config.apiUrl, headers: this.http.headers })
        this.keys = new TronKeys(keys)
        this.maxScanBlocks = config.maxScanBlocks
    }

    normalizeAddress(address: string): string | undefined {
        return normalizeAddress(address)
    }

    /**
     * Throws unless the node knows TRON_USDT_CONTRACT as a 6-decimal token: a testnet node (Nile,
     * Shasta) behind mainnet's contract address, or the reverse, would leave every USDT deposit
     * unseen and every USDT payout failing. Network errors are thrown as TronNodeError (unreachable,
     * not misconfigured).
     */
    async checkNetwork(): Promise<void> {
        let decimals: bigint
        try {
            decimals = await this.http.callConstant(this.config.usdtContract, this.config.usdtContract, 'decimals()', '')
        } catch (err) {
            if (!(err instanceof TronCallError)) throw err
            throw new Error(`TRON: TRON_USDT_CONTRACT ${this.config.usdtContract} is not a token on ${this.config.apiUrl} (${(err as Error).message})`, { cause: err })
        }
        if (decimals !== 6n) throw new Error(`TRON: TRON_USDT_CONTRACT ${this.config.usdtContract} has ${decimals} decimals on ${this.config.apiUrl}, USDT has 6`)
    }

    deriveAddress(role: KeyRole): Promise<string> {
        return this.keys.address(role)
    }

    async head(): Promise<ChainHead> {
        const block = await this.http.nowBlock()
        return { number: int64(block.block_header.raw_data.number), time: new Date(Number(int64(block.block_header.raw_data.timestamp))) }
    }

    /** Throws unless `asset` is TRX or the configured USDT; true for USDT. */
    private isToken(asset: Asset): boolean {
        if (asset.kind === 'coin') {
            if (asset.symbol !== 'TRX') throw new Error(`TRON: the coin is TRX, not ${asset.symbol}`)
            return false
        }
        if (asset.symbol !== 'USDT') throw new Error(`TRON: only TRX and USDT are served, not ${asset.symbol}`)
        // The engine's Asset may name the contract too; it must be the one this adapter pays from.
        if (asset.address !== undefined && !sameAccount(asset.address, this.config.usdtContract)) {
            throw new Error(`TRON: USDT at ${asset.address} is not TRON_USDT_CONTRACT ${this.config.usdtContract}`)
        }
        return true
    }

    async scanDeposits(watches: DepositWatch[], from: bigint, to: bigint): Promise<DepositSeen[]> {
        const valid = watches.filter((w) => {
            if (normalizeAddress(w.address) !== w.address) {
                this.log?.warn({ chain: this.chain, swap: w.swapId, address: w.address }, 'watched address is not a TRON address; ignored')
                return false
            }
            try {
                this.isToken(w.asset)
                return true
            } catch (err) {
                this.log?.warn({ chain: this.chain, swap: w.swapId, asset: w.asset.symbol, err: (err as Error).message }, 'watched asset is not served on TRON; ignored')
                return false
            }
        })
        if (valid.length === 0 || from > to) return []
        const blocks = new BlockCache(this.http)
        return scanWatches(valid, SCAN_PARALLEL, (w) => this.depositsOf(w, from, to, blocks))
    }

    private async depositsOf(watch: DepositWatch, from: bigint, to: bigint, blocks: BlockCache): Promise<DepositSeen[]> {
        const lowest = from > watch.fromBlock ? from : watch.fromBlock
        if (lowest > to) return []
        const first = await blocks.get(lowest)
        if (!first) return []
        const last = (await blocks.get(to)) ?? (await this.http.nowBlock())
        // TronGrid filters by block time; the block numbers are checked exactly below, so the window may be a little wide.
        const window = {
            only_to: 'true',
            order_by: 'block_timestamp,asc',
            min_timestamp: String(blockTime(first) - 1n),
            max_timestamp: String(blockTime(last) + 1n),
        }
        const address = watch.address
        const deposits: DepositSeen[] = []
        if (this.isToken(watch.asset)) {
            const listed = await this.http.gridList<GridTrc20Transfer>(`/v1/accounts/${address}/transactions/trc20`, {
                ...window, contract_address: this.config.usdtContract,
            })
            const txids = new Set(listed
                .filter((t) => t.to !== undefined && sameAccount(t.to, address) && (t.token_info?.address === undefined || sameAccount(t.token_info.address, this.config.usdtContract)))
                .map((t) => t.transaction_id.toLowerCase()))
            for (const txid of txids) {
                const info = await this.http.transactionInfo(txid)
                if (!info || failed(info)) continue
                const amount = tokenTransfersTo(info, this.config.usdtContract, address)
                const deposit = amount > 0n ? await this.seen(watch, txid, info, amount, lowest, to, blocks) : undefined
                if (deposit) deposits.push(deposit)
            }
        } else {
            const listed = await this.http.gridList<GridTransaction>(`/v1/accounts/${address}/transactions`, { ...window, search_internal: 'false' })
            for (const item of listed) {
                if (item.raw_data?.contract?.[0]?.type !== 'TransferContract') continue
                const txid = item.txID.toLowerCase()
                // The node's copy, not the index's: its contract, its result, its block.
                const tx = await this.http.post('/wallet/gettransactionbyid', { value: txid })
                const contract = tx?.raw_data?.contract
                if (!Array.isArray(contract) || contract.length !== 1 || contract[0].type !== 'TransferContract') continue
                if (tx.ret?.[0]?.contractRet !== 'SUCCESS') continue
                const value = contract[0].parameter?.value ?? {}
                if (!sameAccount(String(value.to_address), address)) continue
                const amount = int64(value.amount)
                if (amount <= 0n) continue
                const info = await this.http.transactionInfo(txid)
                if (!info || failed(info)) continue
                const deposit = await this.seen(watch, txid, info, amount, lowest, to, blocks)
                if (deposit) deposits.push(deposit)
            }
        }
        return deposits
    }

    private async seen(watch: DepositWatch, txid: string, info: TransactionInfo, amount: bigint, lowest: bigint, to: bigint, blocks: BlockCache): Promise<DepositSeen | undefined> {
        const number = int64(info.blockNumber)
        if (number < lowest || number > to) return undefined
        const block = await blocks.get(number)
        // The node's views disagree for a moment during a fork switch: fail the scan, the monitor repeats the range.
        if (!block || !block.transactions?.some((t) => t.txID.toLowerCase() === txid)) {
            throw new TronNodeError(`TRON: ${txid} is not in block ${number} although the node places it there; scanning again later`)
        }
        return { swapId: watch.swapId, txHash: txid, amount, blockNumber: number, blockHash: block.blockID, blockTime: new Date(Number(blockTime(block))) }
    }

    async checkDeposit(deposit: { txHash: string | null; blockNumber: bigint; blockHash: string }, finality: Finality): Promise<DepositCheck> {
        if (deposit.txHash === null) {
            const block = await this.http.blockByNumber(deposit.blockNumber)
            if (!block || block.blockID !== deposit.blockHash) return { state: 'orphaned' }
            const settled = await this.settled(deposit.blockNumber, deposit.blockHash, finality)
            return { state: settled.final ? 'final' : 'pending', confirmations: settled.confirmations }
        }
        const info = await this.http.transactionInfo(deposit.txHash)
        if (!info || failed(info)) return { state: 'orphaned' }
        const number = int64(info.blockNumber)
        const block = await this.http.blockByNumber(number)
        if (!block) throw new TronNodeError(`TRON: block ${number} of ${deposit.txHash} is missing; checking again later`)
        if (number !== deposit.blockNumber || block.blockID !== deposit.blockHash) return { state: 'moved', blockNumber: number, blockHash: block.blockID }
        const settled = await this.settled(number, block.blockID, finality)
        return { state: settled.final ? 'final' : 'pending', confirmations: settled.confirmations }
    }

    /** The finality rule of deposits and of our own transfers alike; the block must still be the canonical one at its height. */
    private async settled(blockNumber: bigint, blockHash: string, finality: Finality): Promise<Settled> {
        const head = int64((await this.http.nowBlock()).block_header.raw_data.number)
        const confirmations = Number(head - blockNumber + 1n)
        let final = 'tag' in finality
            ? int64((await this.http.nowBlock(true)).block_header.raw_data.number) >= blockNumber
            : confirmations >= finality.confirmations
        if (final) final = (await this.http.blockByNumber(blockNumber))?.blockID === blockHash
        return { blockNumber, final, confirmations: Math.max(confirmations, 0) }
    }

    async balance(address: string, asset: Asset): Promise<bigint> {
        if (this.isToken(asset)) return this.usdtBalance(address)
        return int64((await this.http.account(address))?.balance)
    }

    private async usdtBalance(address: string): Promise<bigint> {
        return this.http.callConstant(this.config.usdtContract, address, 'balanceOf(address)', hexAddress(address).slice(2).padStart(64, '0'))
    }

    async prices(): Promise<TronPrices> {
        return pricesOf(await this.http.chainParameters())
    }

    /**
     * An upper bound, in sun: TRX transfers pay their bandwidth (and the account creation fees
     * when `to` does not exist yet); USDT transfers their energy at the node's current price
     * (more when `to` holds no USDT yet) and their bandwidth. Free and staked resources are not
     * counted, so the quote holds whatever the sender has left of them.
     */
    async transferFee(asset: Asset, _from: string, to: string): Promise<bigint> {
        const token = this.isToken(asset)
        const prices = await this.prices()
        if (token) return usdtTransferFee(prices, (await this.usdtBalance(to)) > 0n)
        return trxTransferFee(prices, (await this.http.account(to)) !== undefined)
    }

    /** Bandwidth an account may use without burning TRX now: its free daily allowance left plus staked bandwidth left. */
    private async bandwidthLeft(address: string): Promise<bigint> {
        const r = await this.http.accountResource(address)
        const free = int64(r.freeNetLimit) - int64(r.freeNetUsed)
        const staked = int64(r.NetLimit) - int64(r.NetUsed)
        return (free > 0n ? free : 0n) + (staked > 0n ? staked : 0n)
    }

    /**
     * TRX: 'all' sends the balance less what this very transfer burns now (nothing for bandwidth
     * while the sender's free allowance covers it, so a deposit address is emptied to 0), and
     * throws InsufficientForFeeError when nothing would be left to send. USDT: an amount only;
     * throws InsufficientForFeeError when the sender's TRX does not cover the energy and
     * bandwidth, and refuses a transfer whose energy would exceed TRON_FEE_LIMIT_SUN or whose
     * USDT the sender does not hold.
     */
    async signTransfer(request: TransferRequest, _reservedSequences: number[]): Promise<SignedTransfer> {
        const token = this.isToken(request.asset)
        const to = normalizeAddress(request.to)
        if (!to) throw new Error(`TRON: not a payout address: ${request.to}`)
        const from = await this.keys.address(request.from)
        if (from === to) throw new Error('TRON: a transfer to its own sender')
        const { tx, amount } = token ? await this.usdtTransfer(from, to, request.amount) : await this.trxTransfer(from, to, request.amount, request.only?.amount)
        const signature = await this.keys.sign(request.from, tx.txID)
        const txID = tx.txID.toLowerCase()
        this.remember(txID, BigInt(tx.raw_data.expiration))
        this.log?.info({ chain: this.chain, txid: txID, from, to, asset: request.asset.symbol, amount: amount.toString() }, 'tron transfer signed')
        return { from, hash: txID, raw: encodeStored(tx, signature), nonce: null, amount }
    }

    /** `only`: a gather sweeps at most the credited deposit, leaving any extra deposit where it is. */
    private async trxTransfer(from: string, to: string, requested: bigint | 'all', only?: bigint): Promise<{ tx: TronTransaction; amount: bigint }> {
        if (requested !== 'all') return { tx: await this.buildTrx(from, to, requested), amount: requested }
        const [account, available, recipient, prices] = await Promise.all([
            this.http.account(from), this.bandwidthLeft(from), this.http.account(to), this.prices(),
        ])
        const held = int64(account?.balance)
        if (held <= 0n) throw new InsufficientForFeeError(`TRON: ${from} holds no TRX to sweep`)
        const balance = only !== undefined && only < held ? only : held
        // The largest amount gives the largest transaction: its fee bounds the final one's.
        const probe = await this.buildTrx(from, to, balance)
        const fee = recipient !== undefined
            ? bandwidthBurn(bandwidthOf(probe.raw_data_hex), available, prices)
            : prices.createAccount + prices.newAccount
        const amount = balance - fee
        if (amount <= 0n) throw new InsufficientForFeeError(`TRON: ${balance} sun at ${from} do not cover the ${fee} sun fee`)
        return { tx: await this.buildTrx(from, to, amount), amount }
    }

    private async usdtTransfer(from: string, to: string, requested: bigint | 'all'): Promise<{ tx: TronTransaction; amount: bigint }> {
        if (requested === 'all') throw new Error('TRON: a USDT transfer needs an amount')
        if (requested <= 0n) throw new Error('TRON: a transfer needs a positive amount')
        const [held, recipientHolds, account, available, prices] = await Promise.all([
            this.usdtBalance(from), this.usdtBalance(to).then((b) => b > 0n), this.http.account(from), this.bandwidthLeft(from), this.prices(),
        ])
        if (held < requested) throw new Error(`TRON: ${from} holds ${held} USDT base units, fewer than the ${requested} to send`)
        if (this.config.feeLimit > prices.maxFeeLimit) throw new Error(`TRON: TRON_FEE_LIMIT_SUN ${this.config.feeLimit} is above the network's maximum ${prices.maxFeeLimit}`)
        const energyFee = usdtEnergy(recipientHolds) * prices.energy
        if (energyFee > this.config.feeLimit) {
            throw new Error(`TRON: a USDT transfer needs ${energyFee} sun of energy at ${prices.energy} sun each, above TRON_FEE_LIMIT_SUN ${this.config.feeLimit}`)
        }
        const tx = await this.buildUsdt(from, to, requested)
        const fee = energyFee + bandwidthBurn(bandwidthOf(tx.raw_data_hex), available, prices)
        const trx = int64(account?.balance)
        if (trx < fee) throw new InsufficientForFeeError(`TRON: ${trx} sun at ${from} do not cover the ${fee} sun of energy and bandwidth a USDT transfer burns`)
        return { tx, amount: requested }
    }

    private async buildTrx(from: string, to: string, amount: bigint): Promise<TronTransaction> {
        if (amount <= 0n) throw new Error('TRON: a transfer needs a positive amount')
        // tronweb and the node's JSON carry amounts as doubles: 9 billion TRX is far above any transfer here.
        if (amount > MAX_SUN_NUMBER) throw new Error(`TRON: ${amount} sun is too large to send in one transfer`)
        const tx = (await this.tronWeb.transactionBuilder.sendTrx(to, Number(amount), from)) as unknown as TronTransaction
        checkBuilt(tx, { kind: 'trx', owner: from, to, amount })
        return tx
    }

    private async buildUsdt(from: string, to: string, amount: bigint): Promise<TronTransaction> {
        const built = await this.tronWeb.transactionBuilder.triggerSmartContract(
            this.config.usdtContract,
            'transfer(address,uint256)',
            { feeLimit: Number(this.config.feeLimit), callValue: 0 },
            [{ type: 'address', value: to }, { type: 'uint256', value: amount.toString() }],
            from
        )
        if (built?.result?.result !== true) throw new TronNodeError(`TRON: the node did not build the USDT transfer: ${JSON.stringify(built?.result ?? built).slice(0, 200)}`)
        const tx = built.transaction as unknown as TronTransaction
        checkBuilt(tx, { kind: 'trc20', owner: from, contract: this.config.usdtContract, to, amount, feeLimit: this.config.feeLimit })
        return tx
    }

    async broadcast(raw: string): Promise<BroadcastResult> {
        try {
            decodeStored(raw)
        } catch (err) {
            return { kind: 'rejected', reason: (err as Error).message, insufficientFunds: false }
        }
        let answer: { status: number; text: string }
        try {
            answer = await this.http.send('POST', '/wallet/broadcasttransaction', raw)
        } catch (err) {
            return { kind: 'uncertain', reason: (err as Error).message }
        }
        if (answer.status < 200 || answer.status >= 300) return { kind: 'uncertain', reason: `HTTP ${answer.status} ${answer.text.slice(0, 200)}` }
        let result: { result?: boolean; code?: string; message?: string }
        try {
            result = JSON.parse(answer.text)
        } catch {
            return { kind: 'uncertain', reason: `not JSON: ${answer.text.slice(0, 200)}` }
        }
        if (result.result === true) return { kind: 'accepted' }
        const code = result.code ?? 'OTHER_ERROR'
        const reason = `${code}: ${result.message ? decodeMessage(result.message) : 'no message'}`
        // The node already has it (pending or in a block): the same transaction, nothing new to send.
        if (code === 'DUP_TRANSACTION_ERROR') return { kind: 'accepted' }
        if (!REFUSED_CODES.has(code)) return { kind: 'uncertain', reason }
        if (code === 'BANDWITH_ERROR') return { kind: 'rejected', reason, insufficientFunds: true }
        return { kind: 'rejected', reason, insufficientFunds: code === 'CONTRACT_VALIDATE_ERROR' && NO_FUNDS.test(reason) }
    }

    /**
     * The transactions `address` owns (signed: TRX and USDT transfers alike) among the newest `limit`
     * TronGrid lists for it with only_from, mined or not yet confirmed. only_from already leaves out
     * transfers into it; the owner is checked again on each, as the node's answer is what we hold.
     */
    async sentTransactions(address: string, limit: number): Promise<string[]> {
        const { data } = await this.http.gridPage<GridTransaction>(`/v1/accounts/${address}/transactions`, {
            only_from: 'true', order_by: 'block_timestamp,desc', search_internal: 'false',
        }, Math.min(limit, 200))
        return data
            .filter((t) => {
                const owner = t.raw_data?.contract?.[0]?.parameter?.value?.owner_address
                return owner === undefined || sameAccount(String(owner), address)
            })
            .map((t) => t.txID.toLowerCase())
    }

    /**
     * `raw` (the stored transfer) carries the expiration; without it, and when not signed by this
     * process, a transaction the node does not know stays 'missing': rebroadcast, never replaced.
     */
    async inspect(tx: { hash: string; from: string; nonce: number | null; raw?: string }, finality: Finality): Promise<TxState> {
        const hash = tx.hash.toLowerCase()
        let expiry = this.expiries.get(hash)
        if (expiry === undefined && tx.raw) expiry = decodeStored(tx.raw).expiration
        // The solidified time first, then the transaction: a landing between the two reads is then still seen.
        const solidifiedTime = expiry === undefined ? undefined : blockTime(await this.http.nowBlock(true))
        const info = await this.http.transactionInfo(hash)
        if (info) {
            const number = int64(info.blockNumber)
            const block = await this.http.blockByNumber(number)
            // Mid fork switch the node's views can disagree; the next look settles it.
            if (!block?.transactions?.some((t) => t.txID.toLowerCase() === hash)) return { kind: 'pending' }
            const settled = await this.settled(number, block.blockID, finality)
            if (settled.final) this.expiries.delete(hash)
            return { kind: failed(info) ? 'reverted' : 'confirmed', ...settled }
        }
        if (await this.http.isPending(hash)) return { kind: 'pending' }
        if (expiry !== undefined && solidifiedTime! >= expiry) {
            this.expiries.delete(hash)
            return { kind: 'dead' }
        }
        return { kind: 'missing' }
    }

    private remember(txID: string, expiration: bigint): void {
        this.expiries.set(txID, expiration)
    }
}

/** Blocks by number, each read once per scan. */
class BlockCache {
    private readonly blocks = new Map<bigint, Promise<NodeBlock | undefined>>()

    constructor(private readonly http: TronHttp) {}

    get(number: bigint): Promise<NodeBlock | undefined> {
        let block = this.blocks.get(number)
        if (!block) {
            block = this.http.blockByNumber(number)
            this.blocks.set(number, block)
        }
        return block
    }
}

function blockTime(block: NodeBlock): bigint {
    return int64(block.block_header.raw_data.timestamp)
}

/** A mined transaction whose contract did not succeed (a call that ran out of energy or reverted). */
function failed(info: TransactionInfo): boolean {
    return info.result === 'FAILED' || (info.receipt?.result !== undefined && info.receipt.result !== 'SUCCESS')
}

/** The USDT a transaction's Transfer events moved to `to` (java-tron logs: 20-byte addresses, 32-byte topics, hex). */
function tokenTransfersTo(info: TransactionInfo, contract: string, to: string): bigint {
    const contractHex = hexAddress(contract).slice(2)
    const toHex = hexAddress(to).slice(2)
    let amount = 0n
    for (const log of info.log ?? []) {
        const topics = log.topics ?? []
        if (log.address.toLowerCase().slice(-40) !== contractHex || topics.length !== 3) continue
        if (topics[0].toLowerCase().replace(/^0x/, '') !== TRANSFER_TOPIC) continue
        if (topics[2].toLowerCase().slice(-40) !== toHex) continue
        amount += BigInt('0x' + (log.data || '0'))
    }
    return amount
}

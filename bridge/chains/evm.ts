import {
    Address, BaseError, BlockNotFoundError, ContractFunctionRevertedError, createPublicClient, defineChain, encodeFunctionData, erc20Abi, getAddress, Hex, http,
    isAddress, keccak256, maxUint256, parseAbiItem, Transport, parseEventLogs, parseTransaction, PublicClient, recoverTransactionAddress, TransactionNotFoundError, TransactionReceiptNotFoundError,
    zeroAddress,
} from 'viem'
import { ammFactoryAbi, ammPairAbi, ammRouterAbi } from '../../abi'
import { Logger } from '../../common/logger'
import { Asset, Finality, EvmNetworkConfig } from '../config'
import { KeyManager, KeyRole } from '../keys'
import {
    BroadcastResult, ChainAdapter, ChainHead, DepositCheck, DepositSeen, DepositWatch, InsufficientForFeeError, PairReserves, PartialScanError,
    PoolSwapRequest, PoolTradeError, Settled, SignedTransfer, TransferRequest, TxState,
} from './adapter'
import { scanWatches } from './scan'

const TRANSFER_EVENT = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)')

/** Gas a token transfer may take when it cannot be estimated yet (standard ERC-20s use 35-65k). */
const TOKEN_TRANSFER_GAS = 100_000n
const COIN_TRANSFER_GAS = 21_000n
/** Seconds a signed pool trade stays valid (the router's deadline): a trade stuck longer reverts instead of running at a stale price. */
const TRADE_DEADLINE_SECONDS = 1200n

/** One call of a parity-style trace (trace_block), as far as coin movements go. */
interface ParityTrace {
    type: string
    action: { to?: string; value?: string; refundAddress?: string; balance?: string }
    error?: string
    traceAddress: number[]
    transactionHash?: string
}

/** One frame of geth's callTracer (debug_traceBlockByNumber). */
interface CallFrame {
    to?: string
    value?: string
    error?: string
    calls?: CallFrame[]
}

/** What a backend behind the others answers for a block it has not seen yet. */
const BEHIND = /header not found|unknown block|block not found|not found: block/i
const BEHIND_RETRIES = 3

/**
 * viem's http transport retries throttling and internal errors, but not "header not found": the
 * answer of a load-balanced backend that has not seen a block another backend already reported.
 * Asked again, the balancer most likely routes elsewhere; so such answers are retried a few times
 * before the read counts as failed.
 */
function retryingBehind(transport: Transport): Transport {
    return (params) => {
        const inner = transport(params)
        const request = (async (args: any, options?: any) => {
            for (let attempt = 0; ; attempt++) {
                try {
                    return await inner.request(args, options)
                } catch (err) {
                    if (attempt >= BEHIND_RETRIES || !BEHIND.test(errorText(err))) throw err
                    await new Promise((resolve) => setTimeout(resolve, 100 * (attempt + 1)))
                }
            }
        }) as typeof inner.request
        return { ...inner, request }
    }
}

/** Addresses in one eth_getLogs topic list: common providers refuse more than 1,000. */
const TOPIC_ADDRESSES = 1000
/** Balance reads handed to the batching transport at once (it sends them BALANCE_BATCH per request). */
const BALANCE_READS_IN_FLIGHT = 1000
const BALANCE_BATCH = 100

/**
 * A node's answer that it holds no state for the block asked (pruned history, or blocks from
 * before a restart from a state file), as opposed to a transient failure. geth: "missing trie
 * node", "historical state … is not available"; erigon: "state histories … not …"; nethermind:
 * "… pruned …"; anvil: "BlockOutOfRangeError".
 */
const NO_STATE = /BlockOutOfRange|missing trie node|historical state|state (is )?not available|state histor|pruned/i

export function isNoStateError(err: unknown): boolean {
    return NO_STATE.test(errorText(err))
}

interface PartialScan {
    seen: DepositSeen[]
    unread: Set<string>
    causes: unknown[]
}

/** viem's errors carry the node's message in `details`; one string to classify them by. */
function errorText(err: unknown): string {
    const e = err as { details?: string; shortMessage?: string; message?: string }
    return [e?.details, e?.shortMessage, e?.message].filter(Boolean).join(' | ')
}

/**
 * NATIVECHAIN, BSC, ETHEREUM and POLYGON: the coin and ERC-20 tokens, through viem over JSON-RPC.
 * Deposits of a token are found by Transfer logs filtered on the watched addresses. Deposits of a
 * coin are found by the address's balance: a coin moved by a contract (a router unwrapping to the
 * address, a multisig, a forwarder) is an internal transfer that neither a log nor the block's
 * transaction list shows, but the balance does. The transaction is then looked up in the block
 * (a direct transfer, else the node's traces), and left null when the node cannot trace.
 */
export class EvmAdapter implements ChainAdapter {
    readonly family = 'evm' as const
    readonly maxScanBlocks = 500n
    readonly chain: EvmNetworkConfig['chain']
    readonly client: PublicClient
    /** The same node through a transport that sends concurrent reads as JSON-RPC batches (the monitor's many balances). */
    private readonly batchClient: PublicClient
    /** The native chain's minimum gas price is 0 (spec 8): every transaction there is sent with zero fees. */
    private readonly zeroFees: boolean
    private readonly pairs = new Map<string, Address>()

    constructor(readonly network: EvmNetworkConfig, private readonly keys: KeyManager, private readonly log: Logger) {
        this.chain = network.chain
        this.zeroFees = network.chain === 'NATIVECHAIN'
        const chain = defineChain({
            id: network.chainId,
            name: network.chain,
            nativeCurrency: { name: 'coin', symbol: 'COIN', decimals: 18 },
            rpcUrls: { default: { http: [network.rpcUrl] } },
        })
        // cacheTime 0: viem would otherwise answer block numbers from a 4-second cache.
        this.client = createPublicClient({ chain, transport: retryingBehind(http(network.rpcUrl, { timeout: network.rpcTimeoutMs, retryCount: 1 })), cacheTime: 0 }) as PublicClient
        this.batchClient = createPublicClient({
            chain, transport: retryingBehind(http(network.rpcUrl, { timeout: 2 * network.rpcTimeoutMs, retryCount: 1, batch: { batchSize: BALANCE_BATCH } })), cacheTime: 0,
        }) as PublicClient
    }

    normalizeAddress(address: string): string | undefined {
        // Mixed case must be a valid EIP-55 checksum; all-lower or all-upper hex is accepted as is.
        if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return undefined
        const body = address.slice(2)
        if (/[a-f]/.test(body) && /[A-F]/.test(body) && !isAddress(address, { strict: true })) return undefined
        const normalized = getAddress(address.toLowerCase())
        return normalized === zeroAddress ? undefined : normalized
    }

    deriveAddress(role: KeyRole): Promise<Address> {
        return this.keys.evmAddress(role)
    }

    async head(): Promise<ChainHead> {
        const block = await this.client.getBlock({ blockTag: 'latest' })
        return { number: block.number, time: new Date(Number(block.timestamp) * 1000) }
    }

    async scanDeposits(watches: DepositWatch[], from: bigint, to: bigint): Promise<DepositSeen[]> {
        if (watches.length === 0 || from > to) return []
        const coinWatches = watches.filter((w) => w.asset.kind === 'coin')
        const tokenWatches = watches.filter((w) => w.asset.kind === 'token')
        const [coins, tokens] = await Promise.all([this.scanCoin(coinWatches, to), this.scanTokens(tokenWatches, from, to)])
        const seen = [...coins.seen, ...tokens.seen].sort((a, b) => Number(a.blockNumber - b.blockNumber))
        if (coins.unread.size === 0 && tokens.unread.size === 0) return seen
        throw new PartialScanError(seen, new Set([...coins.unread, ...tokens.unread]), tokens.unread.size > 0, [...coins.causes, ...tokens.causes])
    }

    /**
     * Transfer logs into the watched addresses, TOPIC_ADDRESSES addresses per query (what nodes
     * accept in one topic list). A query that fails leaves its addresses unread for the range; the
     * other chunks still count.
     */
    private async scanTokens(watches: DepositWatch[], from: bigint, to: bigint): Promise<PartialScan> {
        const result: PartialScan = { seen: [], unread: new Set(), causes: [] }
        if (watches.length === 0) return result
        const byKey = new Map(watches.map((w) => [`${w.asset.address!.toLowerCase()}:${w.address.toLowerCase()}`, w]))
        const times = new Map<bigint, Date>()
        for (let i = 0; i < watches.length; i += TOPIC_ADDRESSES) {
            const chunk = watches.slice(i, i + TOPIC_ADDRESSES)
            try {
                const logs = await this.client.getLogs({
                    address: [...new Set(chunk.map((w) => w.asset.address as Address))],
                    event: TRANSFER_EVENT,
                    args: { to: [...new Set(chunk.map((w) => w.address as Address))] },
                    fromBlock: from,
                    toBlock: to,
                })
                const seen: DepositSeen[] = []
                for (const log of logs) {
                    if (log.removed || !log.args.to || !log.args.value) continue
                    const watch = byKey.get(`${log.address.toLowerCase()}:${log.args.to.toLowerCase()}`)
                    if (!watch) continue
                    if (!times.has(log.blockNumber)) {
                        const block = await this.client.getBlock({ blockNumber: log.blockNumber })
                        times.set(log.blockNumber, new Date(Number(block.timestamp) * 1000))
                    }
                    seen.push({
                        swapId: watch.swapId,
                        txHash: log.transactionHash,
                        amount: log.args.value,
                        blockNumber: log.blockNumber,
                        blockHash: log.blockHash,
                        blockTime: times.get(log.blockNumber)!,
                    })
                }
                result.seen.push(...seen)
            } catch (err) {
                for (const w of chunk) result.unread.add(w.swapId)
                result.causes.push(err)
            }
        }
        return result
    }

    /**
     * Every watched balance at `to` in batched requests; only addresses holding coin are looked at
     * further. An address whose read fails is skipped this scan: a balance is cumulative, so the
     * next scan finds the same coin. `to` older than the node's state window answers nothing for
     * anyone, and the scan whose range ends at the head will.
     */
    private async scanCoin(watches: DepositWatch[], to: bigint): Promise<PartialScan> {
        const result: PartialScan = { seen: [], unread: new Set(), causes: [] }
        if (watches.length === 0) return result
        const funded: DepositWatch[] = []
        const balances = await this.balancesAt(watches.map((w) => w.address as Address), to)
        balances.forEach((b, i) => {
            if (b.status === 'fulfilled') {
                if (b.value > 0n) funded.push(watches[i])
            } else if (!isNoStateError(b.reason)) {
                result.unread.add(watches[i].swapId)
                result.causes.push(b.reason)
            }
        })
        await scanWatches(funded, 16, async (w) => {
            try {
                const deposit = await this.coinArrival(w, to)
                if (deposit) result.seen.push(deposit)
            } catch (err) {
                result.unread.add(w.swapId)
                result.causes.push(err)
            }
            return []
        })
        return result
    }

    /** Coin balances of many addresses at one block, BALANCE_BATCH per JSON-RPC request, each read settled alone. */
    private async balancesAt(addresses: Address[], blockNumber?: bigint): Promise<PromiseSettledResult<bigint>[]> {
        const out: PromiseSettledResult<bigint>[] = []
        for (let i = 0; i < addresses.length; i += BALANCE_READS_IN_FLIGHT) {
            out.push(...await Promise.allSettled(addresses.slice(i, i + BALANCE_READS_IN_FLIGHT).map((address) =>
                this.batchClient.getBalance(blockNumber === undefined ? { address } : { address, blockNumber }))))
        }
        return out
    }

    async balances(requests: { address: string; asset: Asset }[], blockNumber?: bigint): Promise<PromiseSettledResult<bigint>[]> {
        const at = blockNumber === undefined ? {} : { blockNumber }
        const out: PromiseSettledResult<bigint>[] = []
        for (let i = 0; i < requests.length; i += BALANCE_READS_IN_FLIGHT) {
            out.push(...await Promise.allSettled(requests.slice(i, i + BALANCE_READS_IN_FLIGHT).map(({ address, asset }) => asset.kind === 'coin'
                ? this.batchClient.getBalance({ address: address as Address, ...at })
                : this.batchClient.readContract({ address: asset.address as Address, abi: erc20Abi, functionName: 'balanceOf', args: [address as Address], ...at }))))
        }
        return out
    }

    async blockHash(blockNumber: bigint): Promise<string> {
        return (await this.client.getBlock({ blockNumber })).hash!
    }

    /**
     * The first block in which coin arrived at a watched address that holds some at `to`: nothing
     * is credited to a waiting swap yet, so any balance is a deposit, and a binary search over
     * historical balances from the swap's first block finds the block it came in. A block the node
     * holds no state for (pruned, or before a restart from a state file) counts as before the
     * arrival, so the deposit is dated at the first block the node can answer for where the coin is
     * there. Any other error is thrown: the caller skips the address this scan rather than
     * misdate it. The amount is what that block added (later arrivals are swept with it, not credited).
     */
    private async coinArrival(watch: DepositWatch, to: bigint): Promise<DepositSeen | undefined> {
        const address = watch.address as Address
        const balanceAt = (blockNumber: bigint) => this.client.getBalance({ address, blockNumber })
        /** undefined: the node has no state for that block. */
        const knownBalanceAt = (blockNumber: bigint) => balanceAt(blockNumber).catch((err) => {
            if (isNoStateError(err)) return undefined
            throw err
        })
        const after = await balanceAt(to)
        if (after === 0n) return undefined
        let lo = watch.fromBlock < to ? watch.fromBlock : to
        let hi = to
        while (lo < hi) {
            const mid = (lo + hi) / 2n
            const balance = await knownBalanceAt(mid)
            if (balance !== undefined && balance > 0n) hi = mid
            else lo = mid + 1n
        }
        const block = hi
        const arrived = await balanceAt(block)
        const before = block > 0n ? (await knownBalanceAt(block - 1n)) ?? 0n : 0n
        const found = await this.client.getBlock({ blockNumber: block, includeTransactions: true })
        return {
            swapId: watch.swapId,
            txHash: await this.coinTransferTx(found, address),
            amount: arrived > before ? arrived - before : arrived,
            blockNumber: found.number!,
            blockHash: found.hash!,
            blockTime: new Date(Number(found.timestamp) * 1000),
        }
    }

    /** The transaction of a block that moved coin to `address`: a direct transfer, else one whose trace shows it. */
    private async coinTransferTx(
        block: { number: bigint | null; transactions: { hash: Hex; to: Address | null; value: bigint }[] },
        address: Address
    ): Promise<string | null> {
        const target = address.toLowerCase()
        for (const tx of block.transactions) {
            if (tx.to?.toLowerCase() !== target || tx.value === 0n) continue
            // A reverted transaction moved no coin.
            const receipt = await this.client.getTransactionReceipt({ hash: tx.hash })
            if (receipt.status === 'success') return tx.hash
        }
        const tag = `0x${block.number!.toString(16)}`
        try {
            const traces = (await this.client.request({ method: 'trace_block' as any, params: [tag] as any })) as ParityTrace[]
            // A call whose own frame or any enclosing frame failed moved nothing.
            const failed = traces.filter((t) => t.error).map((t) => `${t.transactionHash}:${t.traceAddress.join('.')}`)
            const undone = (t: ParityTrace) => failed.some((f) => {
                const [hash, path] = f.split(':')
                const mine = t.traceAddress.join('.')
                return hash === t.transactionHash && (path === '' || mine === path || mine.startsWith(`${path}.`))
            })
            for (const t of traces) {
                const to = t.type === 'suicide' ? t.action.refundAddress : t.type === 'call' ? t.action.to : undefined
                const value = BigInt((t.type === 'suicide' ? t.action.balance : t.action.value) ?? '0x0')
                if (to?.toLowerCase() === target && value > 0n && !undone(t) && t.transactionHash) return t.transactionHash
            }
            return null
        } catch {
            // No parity traces on this node; try geth's call tracer.
        }
        try {
            const results = (await this.client.request({
                method: 'debug_traceBlockByNumber' as any, params: [tag, { tracer: 'callTracer' }] as any,
            })) as { txHash?: string; result: CallFrame }[]
            const pays = (frame: CallFrame): boolean =>
                !frame.error && ((frame.to?.toLowerCase() === target && BigInt(frame.value ?? '0x0') > 0n) || (frame.calls ?? []).some(pays))
            return results.find((r) => r.txHash && pays(r.result))?.txHash ?? null
        } catch {
            return null
        }
    }

    /**
     * Where a credited deposit stands. "Gone" (orphaned) is said only on final evidence: its height
     * is final by the rule, the canonical block there is another one in two reads that agree, and
     * (with a hash) the transaction has no receipt on a second look either. Anything short of that
     * (a node behind another, a read error, a block the node cannot serve yet) is 'pending' or an
     * error: the caller looks again later.
     */
    async checkDeposit(deposit: { txHash: string | null; blockNumber: bigint; blockHash: string }, finality: Finality): Promise<DepositCheck> {
        if (deposit.txHash !== null) {
            const receipt = await this.receiptOrNull(deposit.txHash)
            if (receipt?.status === 'success') {
                if (receipt.blockHash !== deposit.blockHash) return { state: 'moved', blockNumber: receipt.blockNumber, blockHash: receipt.blockHash }
                const { final, confirmations } = await this.settled(receipt.blockNumber, receipt.blockHash, finality)
                return { state: final ? 'final' : 'pending', confirmations }
            }
        } else {
            const block = await this.client.getBlock({ blockNumber: deposit.blockNumber }).catch((err) => {
                if (err instanceof BlockNotFoundError) return undefined
                throw err
            })
            if (block?.hash === deposit.blockHash) {
                const { final, confirmations } = await this.settled(deposit.blockNumber, deposit.blockHash, finality)
                return { state: final ? 'final' : 'pending', confirmations }
            }
        }
        if (deposit.blockNumber > (await this.finalHeight(finality))) return { state: 'pending', confirmations: 0 }
        const canonical = await this.agreedBlockHash(deposit.blockNumber)
        if (canonical === deposit.blockHash) {
            // Its block is final and canonical, yet the node has no (successful) receipt: it contradicts itself.
            throw new Error(`${this.chain}: deposit ${deposit.txHash} is in final block ${deposit.blockNumber} but has no receipt; checking again later`)
        }
        if (deposit.txHash !== null) {
            const again = await this.receiptOrNull(deposit.txHash)
            if (again?.status === 'success') return { state: 'moved', blockNumber: again.blockNumber, blockHash: again.blockHash }
        }
        return { state: 'orphaned' }
    }

    private async receiptOrNull(hash: string) {
        try {
            return await this.client.getTransactionReceipt({ hash: hash as Hex })
        } catch (err) {
            if (err instanceof TransactionReceiptNotFoundError) return null
            throw err
        }
    }

    /** The highest block that is final by the rule: the tag's block, or the head less the confirmations. */
    private async finalHeight(finality: Finality): Promise<bigint> {
        if ('tag' in finality) return (await this.client.getBlock({ blockTag: finality.tag })).number
        return (await this.client.getBlockNumber({ cacheTime: 0 })) - BigInt(finality.confirmations) + 1n
    }

    /** The canonical hash at a height, read twice (through a load balancer, likely from two backends); differing answers are an error. */
    private async agreedBlockHash(blockNumber: bigint): Promise<string> {
        const first = (await this.client.getBlock({ blockNumber })).hash
        const second = (await this.client.getBlock({ blockNumber })).hash
        if (first !== second) throw new Error(`${this.chain}: the node answered two hashes for block ${blockNumber}; checking again later`)
        return first
    }

    /**
     * The one finality rule of the bridge, for deposits and for its own transactions alike: the
     * block is at or below the node's finalized/safe tag, or has the configured confirmations,
     * and is still the canonical block at its height.
     */
    private async settled(blockNumber: bigint, blockHash: string, finality: Finality): Promise<Settled> {
        const head = await this.client.getBlockNumber({ cacheTime: 0 })
        const confirmations = Number(head - blockNumber + 1n)
        let final = 'tag' in finality
            ? (await this.client.getBlock({ blockTag: finality.tag })).number >= blockNumber
            : confirmations >= finality.confirmations
        // The receipt may come from before a reorg that the finality read already saw.
        if (final) final = (await this.client.getBlock({ blockNumber })).hash === blockHash
        return { blockNumber, final, confirmations }
    }

    async balance(address: string, asset: Asset): Promise<bigint> {
        if (asset.kind === 'coin') return this.client.getBalance({ address: address as Address })
        return this.client.readContract({ address: asset.address as Address, abi: erc20Abi, functionName: 'balanceOf', args: [address as Address] })
    }

    async transferFee(asset: Asset, from: string, to: string): Promise<bigint> {
        if (this.zeroFees) return 0n
        const fees = await this.fees()
        const gas = asset.kind === 'coin' ? await this.coinGas(from as Address, to as Address) : TOKEN_TRANSFER_GAS
        return gas * fees.maxFeePerGas
    }

    async signTransfer(request: TransferRequest, reservedSequences: number[]): Promise<SignedTransfer> {
        const from = await this.deriveAddress(request.from)
        const to = request.to as Address
        const fees = await this.fees()
        let { maxFeePerGas, maxPriorityFeePerGas } = fees
        let value = 0n
        let data: Hex | undefined
        let target: Address
        let gas: bigint
        let amount: bigint
        if (request.asset.kind === 'coin') {
            target = to
            gas = await this.coinGas(from, to)
            if (request.amount === 'all') {
                const balance = await this.client.getBalance({ address: from })
                value = balance - gas * maxFeePerGas
                if (value <= 0n) throw new InsufficientForFeeError(`balance ${balance} does not cover the network fee`)
            } else {
                value = request.amount
            }
            amount = value
        } else {
            if (request.amount === 'all') throw new Error('a token transfer needs an amount')
            amount = request.amount
            target = request.asset.address as Address
            data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] })
            const estimated = await this.client.estimateGas({ account: from, to: target, data }).catch(() => TOKEN_TRANSFER_GAS)
            gas = (estimated * 5n) / 4n
            if (!this.zeroFees) {
                // An address topped up for one transfer pays what it holds, if that is below our estimate.
                const coin = await this.client.getBalance({ address: from })
                if (gas * maxFeePerGas > coin) {
                    maxFeePerGas = coin / gas
                    if (maxPriorityFeePerGas > maxFeePerGas) maxPriorityFeePerGas = maxFeePerGas
                }
            }
        }
        return this.sign(request.from, from, { to: target, value, data, gas, maxFeePerGas, maxPriorityFeePerGas }, reservedSequences, amount)
    }

    private async sign(
        role: KeyRole,
        from: Address,
        tx: { to: Address; value: bigint; data?: Hex; gas: bigint; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
        reservedSequences: number[],
        amount: bigint
    ): Promise<SignedTransfer> {
        // The lowest nonce from the node's count that no stored, unfinished transaction holds: normally
        // the next one; after a transaction was refused for good, its nonce again (no gap to stall the rest).
        const held = new Set(reservedSequences)
        let nonce = await this.client.getTransactionCount({ address: from, blockTag: 'pending' })
        while (held.has(nonce)) nonce++
        const raw = await this.keys.withSeed('evm', (seedBytes) =>
            KeyManager.evmAccount(seedBytes, role).signTransaction({ chainId: this.network.chainId, type: 'eip1559', nonce, ...tx })
        )
        return { from, hash: keccak256(raw), raw, nonce, amount }
    }

    async allowance(token: string, owner: string, spender: string): Promise<bigint> {
        return this.client.readContract({ address: token as Address, abi: erc20Abi, functionName: 'allowance', args: [owner as Address, spender as Address] })
    }

    async signApprove(request: { from: KeyRole; token: string; spender: string }, reservedSequences: number[]): Promise<SignedTransfer> {
        const from = await this.deriveAddress(request.from)
        const to = request.token as Address
        // Unlimited, once per token: the router is the only spender the vault ever approves.
        const data = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [request.spender as Address, maxUint256] })
        const [estimated, fees] = await Promise.all([this.client.estimateGas({ account: from, to, data }), this.fees()])
        return this.sign(request.from, from, { to, value: 0n, data, gas: (estimated * 5n) / 4n, ...fees }, reservedSequences, 0n)
    }

    async signPoolSwap(request: PoolSwapRequest, reservedSequences: number[]): Promise<SignedTransfer> {
        const from = await this.deriveAddress(request.from)
        const router = request.router as Address
        const path = request.path as Address[]
        const recipient = request.recipient as Address
        const latest = await this.client.getBlock({ blockTag: 'latest' })
        const deadline = latest.timestamp + TRADE_DEADLINE_SECONDS
        const data = request.coinIn
            ? encodeFunctionData({ abi: ammRouterAbi, functionName: 'swapExactETHForTokens', args: [request.amountOutMin, path, recipient, deadline] })
            : request.coinOut
                ? encodeFunctionData({ abi: ammRouterAbi, functionName: 'swapExactTokensForETH', args: [request.amountIn, request.amountOutMin, path, recipient, deadline] })
                : encodeFunctionData({ abi: ammRouterAbi, functionName: 'swapExactTokensForTokens', args: [request.amountIn, request.amountOutMin, path, recipient, deadline] })
        const value = request.coinIn ? request.amountIn : 0n
        let estimated: bigint
        try {
            estimated = await this.client.estimateGas({ account: from, to: router, data, value })
        } catch (err) {
            // The node ran it and it reverts (INSUFFICIENT_OUTPUT_AMOUNT, …): not a transaction to sign.
            const reverted = err instanceof BaseError && (err.walk((e) => e instanceof ContractFunctionRevertedError) || /revert/i.test(errorText(err)))
            if (reverted) throw new PoolTradeError(errorText(err).slice(0, 300))
            throw err
        }
        const fees = await this.fees()
        return this.sign(request.from, from, { to: router, value, data, gas: (estimated * 5n) / 4n, ...fees }, reservedSequences, request.amountIn)
    }

    async poolSwapOutput(hash: string, request: PoolSwapRequest): Promise<bigint> {
        const receipt = await this.client.getTransactionReceipt({ hash: hash as Hex })
        if (request.coinOut) {
            // The pair pays the wrapped coin to the router, which unwraps all of it to the recipient.
            const swaps = parseEventLogs({ abi: ammPairAbi, logs: receipt.logs, eventName: 'Swap' })
                .filter((l) => l.address.toLowerCase() === request.pair.toLowerCase())
            return swaps.reduce((sum, l) => sum + l.args.amount0Out + l.args.amount1Out, 0n)
        }
        // What reached the recipient: a token charging transfer fees delivers less than the pair sent.
        const tokenOut = request.path[request.path.length - 1].toLowerCase()
        return parseEventLogs({ abi: erc20Abi, logs: receipt.logs, eventName: 'Transfer' })
            .filter((l) => l.address.toLowerCase() === tokenOut && l.args.to.toLowerCase() === request.recipient.toLowerCase())
            .reduce((sum, l) => sum + l.args.value, 0n)
    }

    async broadcast(raw: string): Promise<BroadcastResult> {
        try {
            await this.client.sendRawTransaction({ serializedTransaction: raw as Hex })
            return { kind: 'accepted' }
        } catch (err) {
            const text = errorText(err)
            if (/already known|already imported|known transaction/i.test(text)) return { kind: 'accepted' }
            if (/insufficient funds/i.test(text)) {
                // A node behind the one that saw our funding says so too: believe it only when our own read agrees.
                if (await this.coversCost(raw as Hex)) return { kind: 'uncertain', reason: `${text} (but the sender's balance covers it)` }
                return { kind: 'rejected', reason: text, insufficientFunds: true }
            }
            if (/less than block base fee|underpriced|fee cap|intrinsic gas|exceeds block gas limit/i.test(text)) {
                return { kind: 'rejected', reason: text, insufficientFunds: false }
            }
            // "nonce too low" included: it may be this very transaction, mined already; inspect() tells.
            return { kind: 'uncertain', reason: text }
        }
    }

    /**
     * Where one of our transactions stands. The nonce alone never condemns it: a node one block
     * behind another has no receipt yet while the other already counts the nonce. Only a nonce
     * used at a block that is final by the network's own rule, with still no receipt for this
     * transaction, is 'superseded' (the sender then finds which transaction used it).
     */
    async inspect(tx: { hash: string; from: string; nonce: number | null }, finality: Finality): Promise<TxState> {
        const receipt = await this.receiptOrNull(tx.hash)
        if (receipt) {
            const settled = await this.settled(receipt.blockNumber, receipt.blockHash, finality)
            return { kind: receipt.status === 'success' ? 'confirmed' : 'reverted', ...settled }
        }
        try {
            await this.client.getTransaction({ hash: tx.hash as Hex })
            return { kind: 'pending' }
        } catch (err) {
            if (!(err instanceof TransactionNotFoundError)) throw err
        }
        if (tx.nonce === null) return { kind: 'missing' }
        const finalNonce = await this.client.getTransactionCount({ address: tx.from as Address, blockNumber: await this.finalHeight(this.network.finality) })
        return finalNonce > tx.nonce ? { kind: 'superseded' } : { kind: 'missing' }
    }

    /** Whether the signer of `raw` holds its value and its most gas cost now; false when that cannot be read. */
    private async coversCost(raw: Hex): Promise<boolean> {
        try {
            const tx = parseTransaction(raw)
            const from = await recoverTransactionAddress({ serializedTransaction: raw as any })
            const balance = await this.client.getBalance({ address: from })
            return balance >= (tx.value ?? 0n) + (tx.gas ?? 0n) * (tx.maxFeePerGas ?? tx.gasPrice ?? 0n)
        } catch {
            return false
        }
    }

    async pairReserves(factoryAddress: string, tokenAAddress: string, tokenBAddress: string): Promise<PairReserves | undefined> {
        const [factory, tokenA, tokenB] = [factoryAddress, tokenAAddress, tokenBAddress] as Address[]
        const key = `${factory}:${tokenA}:${tokenB}`
        let pair = this.pairs.get(key)
        if (!pair) {
            pair = await this.client.readContract({ address: factory, abi: ammFactoryAbi, functionName: 'getPair', args: [tokenA, tokenB] })
            if (pair === zeroAddress) return undefined
            this.pairs.set(key, pair)
        }
        const blockNumber = await this.client.getBlockNumber({ cacheTime: 0 })
        const [reserve0, reserve1] = await this.client.readContract({ address: pair, abi: ammPairAbi, functionName: 'getReserves', blockNumber })
        const token0 = await this.client.readContract({ address: pair, abi: ammPairAbi, functionName: 'token0' })
        const aIsToken0 = token0.toLowerCase() === tokenA.toLowerCase()
        return { pair, reserveA: aIsToken0 ? reserve0 : reserve1, reserveB: aIsToken0 ? reserve1 : reserve0, blockNumber }
    }

    private async coinGas(from: Address, to: Address): Promise<bigint> {
        const code = await this.client.getCode({ address: to })
        if (!code || code === '0x') return COIN_TRANSFER_GAS
        // A contract recipient may run code on receipt.
        const estimated = await this.client.estimateGas({ account: from, to, value: 1n })
        return (estimated * 5n) / 4n
    }

    private async fees(): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
        if (this.zeroFees) return { maxFeePerGas: 0n, maxPriorityFeePerGas: 0n }
        const [block, tip] = await Promise.all([
            this.client.getBlock({ blockTag: 'latest' }),
            this.client.request({ method: 'eth_maxPriorityFeePerGas' }).then((v) => BigInt(v), () => 1_000_000_000n),
        ])
        const base = block.baseFeePerGas ?? 0n
        // Twice the base fee: room for six full blocks of increases before the transaction would wait.
        return { maxFeePerGas: base * 2n + tip, maxPriorityFeePerGas: tip }
    }
}

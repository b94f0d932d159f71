import {
    Address, createPublicClient, defineChain, encodeFunctionData, erc20Abi, getAddress, Hex, http, isAddress,
    keccak256, parseAbiItem, PublicClient, TransactionNotFoundError, TransactionReceiptNotFoundError, zeroAddress,
} from 'viem'
import { ammFactoryAbi, ammPairAbi } from '../../abi'
import { Logger } from '../../common/logger'
import { Asset, Finality, NetworkConfig } from '../config'
import { KeyManager, KeyRole } from '../keys'
import {
    BroadcastResult, ChainAdapter, ChainHead, DepositCheck, DepositSeen, DepositWatch, InsufficientForFeeError, PairReserves,
    SignedTransfer, TransferRequest, TxState,
} from './adapter'

const TRANSFER_EVENT = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)')

/** Gas a token transfer may take when it cannot be estimated yet (standard ERC-20s use 35-65k). */
const TOKEN_TRANSFER_GAS = 100_000n
const COIN_TRANSFER_GAS = 21_000n

/** viem's errors carry the node's message in `details`; one string to classify them by. */
function errorText(err: unknown): string {
    const e = err as { details?: string; shortMessage?: string; message?: string }
    return [e?.details, e?.shortMessage, e?.message].filter(Boolean).join(' | ')
}

/**
 * NATIVECHAIN, BSC, ETHEREUM and POLYGON: the coin and ERC-20 tokens, through viem over JSON-RPC.
 * Deposits of a coin are found by reading each new block's transactions (a plain value transfer
 * leaves no log); deposits of a token by Transfer logs filtered on the watched addresses.
 */
export class EvmAdapter implements ChainAdapter {
    readonly family = 'evm' as const
    readonly maxScanBlocks = 500n
    readonly chain: NetworkConfig['chain']
    readonly client: PublicClient
    /** The native chain's minimum gas price is 0 (spec 8): every transaction there is sent with zero fees. */
    private readonly zeroFees: boolean
    private readonly addresses = new Map<string, Address>()
    private readonly pairs = new Map<string, Address>()

    constructor(readonly network: NetworkConfig, private readonly keys: KeyManager, private readonly log: Logger) {
        this.chain = network.chain
        this.zeroFees = network.chain === 'NATIVECHAIN'
        const chain = defineChain({
            id: network.chainId,
            name: network.chain,
            nativeCurrency: { name: 'coin', symbol: 'COIN', decimals: 18 },
            rpcUrls: { default: { http: [network.rpcUrl] } },
        })
        // cacheTime 0: viem would otherwise answer block numbers from a 4-second cache.
        this.client = createPublicClient({ chain, transport: http(network.rpcUrl, { timeout: 15_000, retryCount: 1 }), cacheTime: 0 }) as PublicClient
    }

    normalizeAddress(address: string): string | undefined {
        // Mixed case must be a valid EIP-55 checksum; all-lower or all-upper hex is accepted as is.
        if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return undefined
        const body = address.slice(2)
        if (/[a-f]/.test(body) && /[A-F]/.test(body) && !isAddress(address, { strict: true })) return undefined
        const normalized = getAddress(address.toLowerCase())
        return normalized === zeroAddress ? undefined : normalized
    }

    async deriveAddress(role: KeyRole): Promise<Address> {
        const key = role.kind === 'vault' ? 'vault' : `deposit:${role.index}`
        let address = this.addresses.get(key)
        if (!address) {
            address = await this.keys.evmAddress(role)
            this.addresses.set(key, address)
        }
        return address
    }

    async head(): Promise<ChainHead> {
        const block = await this.client.getBlock({ blockTag: 'latest' })
        return { number: block.number, time: new Date(Number(block.timestamp) * 1000) }
    }

    async scanDeposits(watches: DepositWatch[], from: bigint, to: bigint): Promise<DepositSeen[]> {
        if (watches.length === 0 || from > to) return []
        const coinWatches = watches.filter((w) => w.asset.kind === 'coin')
        const tokenWatches = watches.filter((w) => w.asset.kind === 'token')
        const [coins, tokens] = await Promise.all([this.scanCoin(coinWatches, from, to), this.scanTokens(tokenWatches, from, to)])
        return [...coins, ...tokens].sort((a, b) => Number(a.blockNumber - b.blockNumber))
    }

    private async scanTokens(watches: DepositWatch[], from: bigint, to: bigint): Promise<DepositSeen[]> {
        if (watches.length === 0) return []
        const byKey = new Map(watches.map((w) => [`${w.asset.address!.toLowerCase()}:${w.address.toLowerCase()}`, w]))
        const logs = await this.client.getLogs({
            address: [...new Set(watches.map((w) => w.asset.address!))],
            event: TRANSFER_EVENT,
            args: { to: [...new Set(watches.map((w) => w.address as Address))] },
            fromBlock: from,
            toBlock: to,
        })
        const seen: DepositSeen[] = []
        const times = new Map<bigint, Date>()
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
        return seen
    }

    private async scanCoin(watches: DepositWatch[], from: bigint, to: bigint): Promise<DepositSeen[]> {
        if (watches.length === 0) return []
        const byAddress = new Map(watches.map((w) => [w.address.toLowerCase(), w]))
        const seen: DepositSeen[] = []
        const numbers: bigint[] = []
        for (let n = from; n <= to; n++) numbers.push(n)
        // A few blocks at a time: enough to catch up after a pause without flooding the node.
        for (let i = 0; i < numbers.length; i += 8) {
            const blocks = await Promise.all(numbers.slice(i, i + 8).map((n) => this.client.getBlock({ blockNumber: n, includeTransactions: true })))
            for (const block of blocks) {
                for (const tx of block.transactions) {
                    const watch = tx.to ? byAddress.get(tx.to.toLowerCase()) : undefined
                    if (!watch || tx.value === 0n) continue
                    // A reverted transaction moved no coin.
                    const receipt = await this.client.getTransactionReceipt({ hash: tx.hash })
                    if (receipt.status !== 'success') continue
                    seen.push({
                        swapId: watch.swapId,
                        txHash: tx.hash,
                        amount: tx.value,
                        blockNumber: block.number!,
                        blockHash: block.hash!,
                        blockTime: new Date(Number(block.timestamp) * 1000),
                    })
                }
            }
        }
        return seen
    }

    async checkDeposit(deposit: { txHash: string; blockNumber: bigint; blockHash: string }, finality: Finality): Promise<DepositCheck> {
        let receipt
        try {
            receipt = await this.client.getTransactionReceipt({ hash: deposit.txHash as Hex })
        } catch (err) {
            if (err instanceof TransactionReceiptNotFoundError) return { state: 'orphaned' }
            throw err
        }
        if (receipt.status !== 'success') return { state: 'orphaned' }
        if (receipt.blockHash !== deposit.blockHash) return { state: 'moved', blockNumber: receipt.blockNumber, blockHash: receipt.blockHash }
        const head = await this.client.getBlockNumber({ cacheTime: 0 })
        const confirmations = Number(head - receipt.blockNumber + 1n)
        if ('tag' in finality) {
            const final = await this.client.getBlock({ blockTag: finality.tag })
            return { state: final.number >= receipt.blockNumber ? 'final' : 'pending', confirmations }
        }
        return { state: confirmations >= finality.confirmations ? 'final' : 'pending', confirmations }
    }

    async balance(address: string, asset: Asset): Promise<bigint> {
        if (asset.kind === 'coin') return this.client.getBalance({ address: address as Address })
        return this.client.readContract({ address: asset.address!, abi: erc20Abi, functionName: 'balanceOf', args: [address as Address] })
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
        const [pendingNonce, fees] = await Promise.all([
            this.client.getTransactionCount({ address: from, blockTag: 'pending' }),
            this.fees(),
        ])
        // The lowest nonce from the node's count that no stored, unfinished transaction holds: normally
        // the next one; after a transaction was refused for good, its nonce again (no gap to stall the rest).
        const held = new Set(reservedSequences)
        let nonce = pendingNonce
        while (held.has(nonce)) nonce++
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
            target = request.asset.address!
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
        const raw = await this.keys.withSeed('evm', (seedBytes) =>
            KeyManager.evmAccount(seedBytes, request.from).signTransaction({
                chainId: this.network.chainId, type: 'eip1559', nonce, to: target, value, data, gas, maxFeePerGas, maxPriorityFeePerGas,
            })
        )
        return { from, hash: keccak256(raw), raw, nonce, amount }
    }

    async broadcast(raw: string): Promise<BroadcastResult> {
        try {
            await this.client.sendRawTransaction({ serializedTransaction: raw as Hex })
            return { kind: 'accepted' }
        } catch (err) {
            const text = errorText(err)
            if (/already known|already imported|known transaction/i.test(text)) return { kind: 'accepted' }
            if (/insufficient funds/i.test(text)) return { kind: 'rejected', reason: text, insufficientFunds: true }
            if (/less than block base fee|underpriced|fee cap|intrinsic gas|exceeds block gas limit/i.test(text)) {
                return { kind: 'rejected', reason: text, insufficientFunds: false }
            }
            // "nonce too low" included: it may be this very transaction, mined already; inspect() tells.
            return { kind: 'uncertain', reason: text }
        }
    }

    async inspect(tx: { hash: string; from: string; nonce: number | null }): Promise<TxState> {
        // The account nonce first: if it is past ours and there is still no receipt afterwards,
        // another transaction used the nonce and ours can never land.
        const minedNonce = await this.client.getTransactionCount({ address: tx.from as Address, blockTag: 'latest' })
        try {
            const receipt = await this.client.getTransactionReceipt({ hash: tx.hash as Hex })
            return receipt.status === 'success'
                ? { kind: 'confirmed', blockNumber: receipt.blockNumber }
                : { kind: 'reverted', blockNumber: receipt.blockNumber }
        } catch (err) {
            if (!(err instanceof TransactionReceiptNotFoundError)) throw err
        }
        if (tx.nonce !== null && minedNonce > tx.nonce) return { kind: 'dead' }
        try {
            await this.client.getTransaction({ hash: tx.hash as Hex })
            return { kind: 'pending' }
        } catch (err) {
            if (err instanceof TransactionNotFoundError) return { kind: 'missing' }
            throw err
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

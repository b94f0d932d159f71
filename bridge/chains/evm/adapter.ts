import { Address, createPublicClient, defineChain, http, keccak256, PublicClient, Transport } from 'viem'
import { Logger } from '../../../common/logger'
import { errorText } from '../../../common/evm/errors'
import { feeBump } from '../../../common/evm/fee-bump'
import { broadcast, inspectTransaction } from '../../../common/evm/transactions'
import { SignedTx } from '../../../common/sending/chain'
import { Asset, EvmNetworkConfig } from '../../config'
import { Finality } from '../finality'
import { KeyManager, KeyRole } from '../../keys'
import {
    BroadcastResult, ChainAdapter, ChainHead, DepositCheck, DepositSeen, DepositWatch, PairReserves, PoolSwapRequest, SignedTransfer, TransferRequest, TxState,
} from '../adapter'
import { normalizeAddress } from './address'
import { allowance, pairReserves, poolSwapOutput, signApprove, signPoolSwap } from './amm'
import { balanceOf, balancesOf } from './balances'
import { checkDeposit, scanDeposits, transfersInto } from './deposits'
import { EvmSigner, signTransfer, transferFee } from './sending'

/** What a backend behind the others answers for a block it has not seen yet. */
const BEHIND = /header not found|unknown block|block not found|not found: block/i
const BEHIND_RETRIES = 3

/** JSON-RPC calls per batch request of the batching client. */
const BALANCE_BATCH = 100

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

/**
 * Two clients of the network's node: `client` for single reads, and `batchClient`, which sends
 * concurrent reads as JSON-RPC batches (the monitor's many balances).
 */
function evmClients(network: EvmNetworkConfig): { client: PublicClient; batchClient: PublicClient } {
    const chain = defineChain({
        id: network.chainId,
        name: network.chain,
        nativeCurrency: { name: 'coin', symbol: 'COIN', decimals: 18 },
        rpcUrls: { default: { http: [network.rpcUrl] } },
    })
    // cacheTime 0: viem would otherwise answer block numbers from a 4-second cache.
    const client = createPublicClient({ chain, transport: retryingBehind(http(network.rpcUrl, { timeout: network.rpcTimeoutMs, retryCount: 1 })), cacheTime: 0 }) as PublicClient
    const batchClient = createPublicClient({
        chain, transport: retryingBehind(http(network.rpcUrl, { timeout: 2 * network.rpcTimeoutMs, retryCount: 1, batch: { batchSize: BALANCE_BATCH } })), cacheTime: 0,
    }) as PublicClient
    return { client, batchClient }
}

/**
 * NATIVECHAIN, BSC, ETHEREUM and POLYGON behind the engine's ChainAdapter interface: the coin and
 * ERC-20 tokens, through viem over JSON-RPC.
 */
export class EvmAdapter implements ChainAdapter {
    readonly family = 'evm' as const
    readonly maxScanBlocks = 500n
    readonly chain: EvmNetworkConfig['chain']
    readonly client: PublicClient
    /** The same node through a transport that sends concurrent reads as JSON-RPC batches (the monitor's many balances). */
    private readonly batchClient: PublicClient
    private readonly signer: EvmSigner
    private readonly pairs = new Map<string, Address>()

    constructor(readonly network: EvmNetworkConfig, private readonly keys: KeyManager, private readonly log: Logger) {
        this.chain = network.chain
        const { client, batchClient } = evmClients(network)
        this.client = client
        this.batchClient = batchClient
        this.signer = { client, keys, chainId: network.chainId, zeroFees: network.chain === 'NATIVECHAIN' }
    }

    normalizeAddress(address: string): string | undefined {
        return normalizeAddress(address)
    }

    deriveAddress(role: KeyRole): Promise<Address> {
        return this.keys.evmAddress(role)
    }

    async head(): Promise<ChainHead> {
        const block = await this.client.getBlock({ blockTag: 'latest' })
        return { number: block.number, time: new Date(Number(block.timestamp) * 1000) }
    }

    scanDeposits(watches: DepositWatch[], from: bigint, to: bigint): Promise<DepositSeen[]> {
        return scanDeposits(this.client, this.batchClient, watches, from, to)
    }

    transfersInto(watch: DepositWatch, to: bigint, limit: number): Promise<DepositSeen[]> {
        return transfersInto(this.client, watch, to, limit)
    }

    checkDeposit(deposit: { txHash: string | null; blockNumber: bigint; blockHash: string }, finality: Finality): Promise<DepositCheck> {
        return checkDeposit(this.client, this.chain, deposit, finality)
    }

    balances(requests: { address: string; asset: Asset }[], blockNumber?: bigint): Promise<PromiseSettledResult<bigint>[]> {
        return balancesOf(this.batchClient, requests, blockNumber)
    }

    balance(address: string, asset: Asset): Promise<bigint> {
        return balanceOf(this.client, address, asset)
    }

    async blockHash(blockNumber: bigint): Promise<string> {
        return (await this.client.getBlock({ blockNumber })).hash!
    }

    transferFee(asset: Asset, from: string, to: string): Promise<bigint> {
        return transferFee(this.signer, asset, from, to)
    }

    signTransfer(request: TransferRequest, reservedSequences: number[]): Promise<SignedTransfer> {
        return signTransfer(this.signer, request, reservedSequences)
    }

    broadcast(raw: string): Promise<BroadcastResult> {
        return broadcast(this.client, raw)
    }

    inspect(tx: { hash: string; from: string; nonce: number | null }, finality: Finality): Promise<TxState> {
        return inspectTransaction(this.client, this.network.finality, tx, finality)
    }

    async signReplacement(tx: { raw: string; from: string; hash: string }, role: KeyRole): Promise<SignedTx | undefined> {
        const decision = await feeBump(this.client, tx.raw, this.network.maxFeePerGas)
        if (decision.kind === 'keep') return undefined
        if (decision.kind === 'capped') {
            this.log.error({ chain: this.chain, hash: tx.hash, needed: decision.needed.toString(), cap: decision.cap.toString() },
                'a stuck transaction would need a fee cap above BRIDGE_MAX_FEE_GWEI to be replaced; not bumped, it keeps its nonce')
            return undefined
        }
        const { nonce, chainId, ...fields } = decision.tx
        const raw = await this.keys.withSeed('evm', (seedBytes) =>
            KeyManager.evmAccount(seedBytes, role).signTransaction({ type: 'eip1559', chainId, nonce, ...fields, to: fields.to as Address | null })
        )
        return { from: tx.from, hash: keccak256(raw), raw, nonce }
    }

    async sentCount(address: string): Promise<{ latest: number; pending: number }> {
        const [latest, pending] = await Promise.all([
            this.client.getTransactionCount({ address: address as Address, blockTag: 'latest' }),
            this.client.getTransactionCount({ address: address as Address, blockTag: 'pending' }),
        ])
        return { latest, pending }
    }

    allowance(token: string, owner: string, spender: string): Promise<bigint> {
        return allowance(this.client, token, owner, spender)
    }

    signApprove(request: { from: KeyRole; token: string; spender: string }, reservedSequences: number[]): Promise<SignedTransfer> {
        return signApprove(this.signer, request, reservedSequences)
    }

    signPoolSwap(request: PoolSwapRequest, reservedSequences: number[]): Promise<SignedTransfer> {
        return signPoolSwap(this.signer, request, reservedSequences)
    }

    poolSwapOutput(hash: string, request: PoolSwapRequest): Promise<bigint> {
        return poolSwapOutput(this.client, hash, request)
    }

    pairReserves(factory: string, tokenA: string, tokenB: string): Promise<PairReserves | undefined> {
        return pairReserves(this.client, this.pairs, factory, tokenA, tokenB)
    }
}

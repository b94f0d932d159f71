import { Address, BaseError, ContractFunctionRevertedError, encodeFunctionData, erc20Abi, Hex, maxUint256, parseEventLogs, PublicClient, zeroAddress } from 'viem'
import { errorText } from '../../../common/evm/errors'
import { ammFactoryAbi, ammPairAbi, ammRouterAbi } from '../../../abi'
import { KeyRole } from '../../keys'
import { PairReserves, PoolSwapRequest, PoolTradeError, SignedTransfer } from '../adapter'
import { EvmSigner, fees, sign } from './sending'

/** Seconds a signed pool trade stays valid (the router's deadline): a trade stuck longer reverts instead of running at a stale price. */
const TRADE_DEADLINE_SECONDS = 1200n

export async function allowance(client: PublicClient, token: string, owner: string, spender: string): Promise<bigint> {
    return client.readContract({ address: token as Address, abi: erc20Abi, functionName: 'allowance', args: [owner as Address, spender as Address] })
}

export async function signApprove(signer: EvmSigner, request: { from: KeyRole; token: string; spender: string }, reservedSequences: number[]): Promise<SignedTransfer> {
    const from = await signer.keys.evmAddress(request.from)
    const to = request.token as Address
    // Unlimited, once per token: the router is the only spender the vault ever approves.
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [request.spender as Address, maxUint256] })
    const [estimated, current] = await Promise.all([signer.client.estimateGas({ account: from, to, data }), fees(signer)])
    return sign(signer, request.from, from, { to, value: 0n, data, gas: (estimated * 5n) / 4n, ...current }, reservedSequences, 0n)
}

export async function signPoolSwap(signer: EvmSigner, request: PoolSwapRequest, reservedSequences: number[]): Promise<SignedTransfer> {
    const { client } = signer
    const from = await signer.keys.evmAddress(request.from)
    const router = request.router as Address
    const path = request.path as Address[]
    const recipient = request.recipient as Address
    const latest = await client.getBlock({ blockTag: 'latest' })
    const deadline = latest.timestamp + TRADE_DEADLINE_SECONDS
    const data = request.coinIn
        ? encodeFunctionData({ abi: ammRouterAbi, functionName: 'swapExactETHForTokens', args: [request.amountOutMin, path, recipient, deadline] })
        : request.coinOut
            ? encodeFunctionData({ abi: ammRouterAbi, functionName: 'swapExactTokensForETH', args: [request.amountIn, request.amountOutMin, path, recipient, deadline] })
            : encodeFunctionData({ abi: ammRouterAbi, functionName: 'swapExactTokensForTokens', args: [request.amountIn, request.amountOutMin, path, recipient, deadline] })
    const value = request.coinIn ? request.amountIn : 0n
    let estimated: bigint
    try {
        estimated = await client.estimateGas({ account: from, to: router, data, value })
    } catch (err) {
        // The node ran it and it reverts (INSUFFICIENT_OUTPUT_AMOUNT, …): not a transaction to sign.
        const reverted = err instanceof BaseError && (err.walk((e) => e instanceof ContractFunctionRevertedError) || /revert/i.test(errorText(err)))
        if (reverted) throw new PoolTradeError(errorText(err).slice(0, 300))
        throw err
    }
    const current = await fees(signer)
    return sign(signer, request.from, from, { to: router, value, data, gas: (estimated * 5n) / 4n, ...current }, reservedSequences, request.amountIn)
}

export async function poolSwapOutput(client: PublicClient, hash: string, request: PoolSwapRequest): Promise<bigint> {
    const receipt = await client.getTransactionReceipt({ hash: hash as Hex })
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

/** `pairs` remembers each pair's address by factory and tokens: a pair, once created, never moves. */
export async function pairReserves(
    client: PublicClient,
    pairs: Map<string, Address>,
    factoryAddress: string,
    tokenAAddress: string,
    tokenBAddress: string
): Promise<PairReserves | undefined> {
    const [factory, tokenA, tokenB] = [factoryAddress, tokenAAddress, tokenBAddress] as Address[]
    const key = `${factory}:${tokenA}:${tokenB}`
    let pair = pairs.get(key)
    if (!pair) {
        pair = await client.readContract({ address: factory, abi: ammFactoryAbi, functionName: 'getPair', args: [tokenA, tokenB] })
        if (pair === zeroAddress) return undefined
        pairs.set(key, pair)
    }
    const blockNumber = await client.getBlockNumber({ cacheTime: 0 })
    const [reserve0, reserve1] = await client.readContract({ address: pair, abi: ammPairAbi, functionName: 'getReserves', blockNumber })
    const token0 = await client.readContract({ address: pair, abi: ammPairAbi, functionName: 'token0' })
    const aIsToken0 = token0.toLowerCase() === tokenA.toLowerCase()
    return { pair, reserveA: aIsToken0 ? reserve0 : reserve1, reserveB: aIsToken0 ? reserve1 : reserve0, blockNumber }
}

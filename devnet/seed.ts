import { createHash } from 'crypto'
import {
    Account, Address, createPublicClient, createWalletClient, encodeFunctionData, Hex, http, maxUint256,
    parseAbi, parseUnits, PublicClient, WalletClient,
} from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { NativeContracts } from '../common/config'
import { Logger } from '../common/logger'
import { DEV_MNEMONIC } from './anvil'
import { deployPlatformToken, devnetChain } from './deploy'

/**
 * Deterministic demo history for a fresh devnet: tokens, pools and a month of trading, so every
 * API has real data on first start. The same seed string gives the same transactions in the same
 * order with the same outcomes; block timestamps are laid out over the `days` before now.
 */

const ROUTER_ABI = parseAbi([
    'function addLiquidity(address tokenA, address tokenB, uint amountADesired, uint amountBDesired, uint amountAMin, uint amountBMin, address to, uint deadline) returns (uint amountA, uint amountB, uint liquidity)',
    'function addLiquidityETH(address token, uint amountTokenDesired, uint amountTokenMin, uint amountETHMin, address to, uint deadline) payable returns (uint amountToken, uint amountETH, uint liquidity)',
    'function swapExactTokensForTokensSupportingFeeOnTransferTokens(uint amountIn, uint amountOutMin, address[] path, address to, uint deadline)',
    'function swapExactETHForTokensSupportingFeeOnTransferTokens(uint amountOutMin, address[] path, address to, uint deadline) payable',
    'function swapExactTokensForETHSupportingFeeOnTransferTokens(uint amountIn, uint amountOutMin, address[] path, address to, uint deadline)',
    'function swapExactTokensForTokens(uint amountIn, uint amountOutMin, address[] path, address to, uint deadline) returns (uint[] amounts)',
    'function removeLiquidity(address tokenA, address tokenB, uint liquidity, uint amountAMin, uint amountBMin, address to, uint deadline) returns (uint amountA, uint amountB)',
])
const FACTORY_ABI = parseAbi(['function getPair(address, address) view returns (address)'])
const ERC20_ABI = parseAbi([
    'function approve(address spender, uint256 amount) returns (bool)',
    'function transfer(address to, uint256 amount) returns (bool)',
    'function mint(address to, uint256 amount)',
    'function balanceOf(address) view returns (uint256)',
])
const WNATIVE_ABI = parseAbi(['function deposit() payable', 'function withdraw(uint256 wad)'])

export interface SeedOptions {
    rpcUrl: string
    chainId: number
    contracts: NativeContracts
    seed: string
    /** Length of the history, ending about now. */
    days?: number
    log?: Logger
    /** Called after each hour of history is mined. */
    onProgress?: (hoursDone: number, hours: number) => void
}

export interface SeedResult {
    tokens: Record<string, Address>
    pairs: Record<string, Address>
    transactions: number
    swaps: number
    failed: number
    lastBlock: number
}

/** xorshift128+ seeded from sha256(seed): reproducible everywhere, unlike Math.random. */
export class Prng {
    private s0: bigint
    private s1: bigint
    constructor(seed: string) {
        const h = createHash('sha256').update(seed).digest()
        this.s0 = h.readBigUInt64LE(0) | 1n
        this.s1 = h.readBigUInt64LE(8) | 1n
    }
    next(): number {
        const mask = (1n << 64n) - 1n
        let x = this.s0
        const y = this.s1
        this.s0 = y
        x ^= (x << 23n) & mask
        x ^= x >> 17n
        x ^= y ^ (y >> 26n)
        this.s1 = x
        return Number(((this.s1 + y) & mask) >> 11n) / 2 ** 53
    }
    int(min: number, max: number): number {
        return min + Math.floor(this.next() * (max - min + 1))
    }
    pick<T>(items: readonly T[]): T {
        return items[Math.floor(this.next() * items.length)]
    }
    /** A base-unit amount between lo and hi whole tokens, log-uniform (many small trades, few large). */
    amount(lo: number, hi: number, decimals: number): bigint {
        const value = Math.exp(Math.log(lo) + this.next() * (Math.log(hi) - Math.log(lo)))
        return parseUnits(value.toFixed(Math.min(decimals, 6)), decimals)
    }
}

interface TokenSpec {
    symbol: string
    name: string
    decimals: number
    supply: bigint
    buyingFee?: number
    sellingFee?: number
    /** Whole tokens a typical trade moves. */
    trade: [number, number]
}

const TOKENS: TokenSpec[] = [
    { symbol: 'GOLD', name: 'Gold Token', decimals: 18, supply: 10_000_000n, trade: [1, 400] },
    { symbol: 'SILVER', name: 'Silver Token', decimals: 8, supply: 100_000_000n, trade: [50, 40_000] },
    { symbol: 'TAXI', name: 'Taxed Token', decimals: 18, supply: 100_000_000n, buyingFee: 200, sellingFee: 300, trade: [100, 50_000] },
]

const TRADERS = 12
const GAS = 600_000n

export async function seedDemoActivity(options: SeedOptions): Promise<SeedResult> {
    const { contracts, log } = options
    const days = options.days ?? 30
    const rng = new Prng(options.seed)
    const chain = devnetChain(options.chainId, options.rpcUrl)
    const client = createPublicClient({ chain, transport: http(options.rpcUrl) }) as PublicClient
    const deployer = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 0 })
    const feeCollector = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 9 })
    const traders = Array.from({ length: TRADERS }, (_, i) => mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 10 + i }))
    const wallet = (account: Account) => createWalletClient({ account, chain, transport: http(options.rpcUrl) })

    // Tokens and pools are set up with automine on, so each step sees the previous one.
    const tokens: Record<string, Address> = { WNATIVE: contracts.wnative, STABLE: contracts.stable }
    const decimals: Record<string, number> = { WNATIVE: 18, STABLE: 6 }
    for (const spec of TOKENS) {
        tokens[spec.symbol] = await deployPlatformToken(options.rpcUrl, options.chainId, deployer, {
            name: spec.name,
            symbol: spec.symbol,
            description: `${spec.name}, seeded on the devnet`,
            decimals: spec.decimals,
            totalSupply: spec.supply * 10n ** BigInt(spec.decimals),
            buyingFee: spec.buyingFee ?? 0,
            sellingFee: spec.sellingFee ?? 0,
            feeAddress: feeCollector.address,
            mintable: false,
            ammFactory: contracts.factory,
        })
        decimals[spec.symbol] = spec.decimals
    }
    const send = sender(client)
    const units = (symbol: string, whole: bigint) => whole * 10n ** BigInt(decimals[symbol])
    await send(wallet(deployer), contracts.stable, ERC20_ABI, 'mint', [deployer.address, units('STABLE', 1_000_000_000n)])
    const erc20s = Object.keys(tokens).filter((s) => s !== 'WNATIVE')
    for (const symbol of erc20s) {
        await send(wallet(deployer), tokens[symbol], ERC20_ABI, 'approve', [contracts.router, maxUint256])
    }
    const deadline = 2n ** 40n
    const liquidity: [string, string, bigint, bigint][] = [
        ['WNATIVE', 'STABLE', 10_000n, 20_000_000n],
        ['GOLD', 'STABLE', 100_000n, 5_000_000n],
        ['SILVER', 'WNATIVE', 5_000_000n, 2_500n],
        ['TAXI', 'WNATIVE', 20_000_000n, 1_000n],
        ['GOLD', 'SILVER', 20_000n, 2_000_000n],
    ]
    for (const [a, b, amountA, amountB] of liquidity) {
        if (a === 'WNATIVE' || b === 'WNATIVE') {
            // A pool with the wrapped coin is funded with coin, as users do.
            const [token, amountToken, amountCoin] = a === 'WNATIVE' ? [b, amountB, amountA] : [a, amountA, amountB]
            await send(wallet(deployer), contracts.router, ROUTER_ABI, 'addLiquidityETH',
                [tokens[token], units(token, amountToken), 0n, 0n, deployer.address, deadline], units('WNATIVE', amountCoin))
        } else {
            await send(wallet(deployer), contracts.router, ROUTER_ABI, 'addLiquidity',
                [tokens[a], tokens[b], units(a, amountA), units(b, amountB), 0n, 0n, deployer.address, deadline])
        }
    }
    const pairs: Record<string, Address> = {}
    for (const [a, b] of liquidity) {
        pairs[`${a}/${b}`] = await client.readContract({ address: contracts.factory, abi: FACTORY_ABI, functionName: 'getPair', args: [tokens[a], tokens[b]] })
    }
    // Traders: coin, every token, and the router approved once.
    for (const trader of traders) {
        await wallet(deployer).sendTransaction({ to: trader.address, value: units('WNATIVE', 2_000n), maxFeePerGas: 0n, maxPriorityFeePerGas: 0n, chain })
        await send(wallet(trader), contracts.wnative, WNATIVE_ABI, 'deposit', [], units('WNATIVE', 100n))
        for (const symbol of erc20s) {
            const amount = symbol === 'STABLE' ? 5_000_000n : TOKENS.find((t) => t.symbol === symbol)!.supply / 40n
            await send(wallet(deployer), tokens[symbol], ERC20_ABI, 'transfer', [trader.address, units(symbol, amount)])
            await send(wallet(trader), tokens[symbol], ERC20_ABI, 'approve', [contracts.router, maxUint256])
        }
    }

    // The month of trading: one block per hour of chain time, each holding a few transactions.
    const nonces = new Map<Address, number>()
    for (const account of [deployer, ...traders]) {
        nonces.set(account.address, await client.getTransactionCount({ address: account.address }))
    }
    await client.request({ method: 'evm_setAutomine' as any, params: [false] as any })
    const hours = days * 24
    const start = Math.floor(Date.now() / 1000) - hours * 3600
    const tradable = Object.keys(pairs)
    let transactions = 0
    let swaps = 0
    let intendedReverts = 0
    const blocks: bigint[] = []
    try {
        for (let hour = 0; hour < hours; hour++) {
            // Busier in the (UTC) afternoon, with a slow upward trend over the month.
            const utcHour = new Date((start + hour * 3600) * 1000).getUTCHours()
            const activity = 2 + (utcHour >= 12 && utcHour < 20 ? 3 : 0) + Math.floor((hour / hours) * 3)
            const count = rng.int(2, activity + 1)
            for (let i = 0; i < count; i++) {
                const trader = rng.pick(traders)
                const nonce = nonces.get(trader.address)!
                nonces.set(trader.address, nonce + 1)
                const roll = rng.next()
                let tx: { to: Address; data: Hex; value?: bigint }
                if (roll < 0.62) {
                    const [a, b] = rng.pick(tradable).split('/')
                    const [from, to] = rng.next() < 0.5 ? [a, b] : [b, a]
                    if (from === 'WNATIVE') {
                        tx = { to: contracts.router, value: rng.amount(0.05, 20, 18), data: encodeFunctionData({ abi: ROUTER_ABI, functionName: 'swapExactETHForTokensSupportingFeeOnTransferTokens', args: [0n, [tokens.WNATIVE, tokens[to]], trader.address, deadline] }) }
                    } else if (to === 'WNATIVE') {
                        tx = { to: contracts.router, data: encodeFunctionData({ abi: ROUTER_ABI, functionName: 'swapExactTokensForETHSupportingFeeOnTransferTokens', args: [tradeAmount(rng, from, decimals), 0n, [tokens[from], tokens.WNATIVE], trader.address, deadline] }) }
                    } else {
                        tx = { to: contracts.router, data: encodeFunctionData({ abi: ROUTER_ABI, functionName: 'swapExactTokensForTokensSupportingFeeOnTransferTokens', args: [tradeAmount(rng, from, decimals), 0n, [tokens[from], tokens[to]], trader.address, deadline] }) }
                    }
                    swaps += 1
                } else if (roll < 0.82) {
                    const symbol = rng.pick(erc20s)
                    tx = { to: tokens[symbol], data: encodeFunctionData({ abi: ERC20_ABI, functionName: 'transfer', args: [rng.pick(traders).address, tradeAmount(rng, symbol, decimals)] }) }
                } else if (roll < 0.9) {
                    tx = { to: rng.pick(traders).address, value: rng.amount(0.01, 5, 18), data: '0x' }
                } else if (roll < 0.96) {
                    tx = rng.next() < 0.5
                        ? { to: contracts.wnative, value: rng.amount(0.1, 10, 18), data: encodeFunctionData({ abi: WNATIVE_ABI, functionName: 'deposit' }) }
                        : { to: contracts.wnative, data: encodeFunctionData({ abi: WNATIVE_ABI, functionName: 'withdraw', args: [rng.amount(0.001, 0.05, 18)] }) }
                } else {
                    // A trade with an impossible minimum output: reverts with INSUFFICIENT_OUTPUT_AMOUNT, as real users' do.
                    intendedReverts += 1
                    tx = { to: contracts.router, data: encodeFunctionData({ abi: ROUTER_ABI, functionName: 'swapExactTokensForTokens', args: [tradeAmount(rng, 'STABLE', decimals), maxUint256, [tokens.STABLE, tokens.GOLD], trader.address, deadline] }) }
                }
                await wallet(trader).sendTransaction({ ...tx, nonce, gas: GAS, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n, chain })
                transactions += 1
            }
            // Fixed hours of every day, drawing nothing from the generator (the random history stays
            // as it was): a routed three-hop trade, and a provider adding liquidity and later taking
            // half of it out, so the DeFi entities have trades of several hops, mints and burns.
            const scheduled = scheduledActivity(hour, traders, tokens, contracts, decimals, deadline)
            for (const { account, tx } of await scheduled(client)) {
                const nonce = nonces.get(account.address)!
                nonces.set(account.address, nonce + 1)
                await wallet(account).sendTransaction({ ...tx, nonce, gas: GAS, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n, chain })
                transactions += 1
                if (tx.to === contracts.router && tx.data.startsWith(ROUTED_SWAP_SELECTOR)) swaps += 1
            }
            await client.request({ method: 'evm_mine' as any, params: [{ timestamp: start + hour * 3600 + rng.int(0, 3599), blocks: 1 }] as any })
            blocks.push(await client.getBlockNumber({ cacheTime: 0 }))
            options.onProgress?.(hour + 1, hours)
        }
    } finally {
        await client.request({ method: 'evm_setAutomine' as any, params: [true] as any })
    }
    let failed = 0
    for (const block of blocks) {
        const receipts = await client.request({ method: 'eth_getBlockReceipts' as any, params: [`0x${block.toString(16)}`] as any }) as { status: string }[]
        failed += receipts.filter((r) => r.status !== '0x1').length
    }
    const lastBlock = Number(blocks[blocks.length - 1] ?? (await client.getBlockNumber({ cacheTime: 0 })))
    if (failed !== intendedReverts) {
        throw new Error(`demo history: ${failed} transactions reverted, ${intendedReverts} were meant to`)
    }
    log?.info({ transactions, swaps, failed, blocks: blocks.length, lastBlock }, 'devnet history seeded')
    return { tokens, pairs, transactions, swaps, failed, lastBlock }
}

const ROUTED_SWAP_SELECTOR = encodeFunctionData({ abi: ROUTER_ABI, functionName: 'swapExactTokensForTokens', args: [0n, 0n, [], '0x0000000000000000000000000000000000000000', 0n] }).slice(0, 10)

/**
 * The seed's transactions at fixed hours of each day: at 03:00 and 15:00 of the history's clock a
 * GOLD -> STABLE -> WNATIVE -> SILVER trade; at 07:00 the day's provider adds GOLD/STABLE
 * liquidity, at 19:00 removes half of its LP tokens (approving the router first).
 */
function scheduledActivity(
    hour: number, traders: Account[], tokens: Record<string, Address>, contracts: NativeContracts,
    decimals: Record<string, number>, deadline: bigint
) {
    const units = (symbol: string, whole: bigint) => whole * 10n ** BigInt(decimals[symbol])
    const trader = traders[hour % traders.length]
    const provider = traders[Math.floor(hour / 24) % traders.length]
    return async (client: PublicClient): Promise<{ account: Account; tx: { to: Address; data: Hex } }[]> => {
        switch (hour % 24) {
            case 3:
            case 15:
                return [{ account: trader, tx: { to: contracts.router, data: encodeFunctionData({ abi: ROUTER_ABI, functionName: 'swapExactTokensForTokens', args: [units('GOLD', 5n), 0n, [tokens.GOLD, tokens.STABLE, tokens.WNATIVE, tokens.SILVER], trader.address, deadline] }) } }]
            case 7:
                return [{ account: provider, tx: { to: contracts.router, data: encodeFunctionData({ abi: ROUTER_ABI, functionName: 'addLiquidity', args: [tokens.GOLD, tokens.STABLE, units('GOLD', 200n), units('STABLE', 20_000n), 0n, 0n, provider.address, deadline] }) } }]
            case 19: {
                const pair = await client.readContract({ address: contracts.factory, abi: FACTORY_ABI, functionName: 'getPair', args: [tokens.GOLD, tokens.STABLE] })
                const held = await client.readContract({ address: pair, abi: ERC20_ABI, functionName: 'balanceOf', args: [provider.address] })
                if (held === 0n) return []
                return [
                    { account: provider, tx: { to: pair, data: encodeFunctionData({ abi: ERC20_ABI, functionName: 'approve', args: [contracts.router, held / 2n] }) } },
                    { account: provider, tx: { to: contracts.router, data: encodeFunctionData({ abi: ROUTER_ABI, functionName: 'removeLiquidity', args: [tokens.GOLD, tokens.STABLE, held / 2n, 0n, 0n, provider.address, deadline] }) } },
                ]
            }
            default:
                return []
        }
    }
}

function tradeAmount(rng: Prng, symbol: string, decimals: Record<string, number>): bigint {
    const spec = TOKENS.find((t) => t.symbol === symbol)
    const [lo, hi] = spec?.trade ?? (symbol === 'STABLE' ? [20, 40_000] : [0.05, 20])
    return rng.amount(lo, hi, decimals[symbol])
}

/** Sends a contract call with automine on and waits for it, failing loudly if it reverts. */
function sender(client: PublicClient) {
    return async (wallet: WalletClient, address: Address, abi: readonly unknown[], functionName: string, args: unknown[], value?: bigint) => {
        const hash = await wallet.writeContract({
            address, abi: abi as any, functionName, args, value, account: wallet.account!, chain: wallet.chain,
            maxFeePerGas: 0n, maxPriorityFeePerGas: 0n,
        } as any)
        const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
        if (receipt.status !== 'success') throw new Error(`seed step ${functionName} on ${address} reverted`)
        return receipt
    }
}

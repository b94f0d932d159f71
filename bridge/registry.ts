/** The networks and tokens the bridge knows, as data; names match exactly, case included, and the configuration decides which are enabled: docs/bridge/networks.md */

export const CHAIN_NAMES = ['NATIVECHAIN', 'BSC', 'ETHEREUM', 'TRON', 'BITCOIN', 'SOLANA', 'POLYGON'] as const
export type ChainName = (typeof CHAIN_NAMES)[number]

/** Chains that share a key derivation scheme and an adapter implementation. */
export type Family = 'evm' | 'bitcoin' | 'tron' | 'solana'

/**
 * What a token is worth in, for pricing: tokens of one class are the same asset on different
 * chains (USDT, STABLE are dollars; WNATIVE on BSC is NATIVE) and convert 1:1.
 */
export type PriceClass = 'NATIVE' | 'USD' | 'ETH' | 'POL' | 'TRX' | 'BTC' | 'SOL' | 'BNB'

export interface TokenSpec {
    symbol: string
    name: string
    decimals: number
    /** The chain's own coin, or a contract token. */
    kind: 'coin' | 'token'
    priceClass: PriceClass
    /** Bounds of one swap's deposit, in whole tokens (decimal strings); every route from the token uses them. */
    minAmount: string
    maxAmount: string
}

export interface ChainSpec {
    name: ChainName
    family: Family
    /** EVM chain id the network's RPC must report. */
    chainId?: number
    tokens: TokenSpec[]
    /** The coin network fees are paid in, when it is not one of the listed tokens (BSC's BNB). */
    feeCoin?: TokenSpec
}

const usd = (symbol: string, name: string, decimals: number): TokenSpec => ({
    symbol, name, decimals, kind: 'token', priceClass: 'USD', minAmount: '1', maxAmount: '100000',
})

export const CHAINS: ChainSpec[] = [
    {
        name: 'NATIVECHAIN', family: 'evm', chainId: 3009,
        tokens: [
            { symbol: 'NATIVE', name: 'NATIVE', decimals: 18, kind: 'coin', priceClass: 'NATIVE', minAmount: '0.0005', maxAmount: '50' },
            { ...usd('STABLE', 'Stable Token', 6) },
        ],
    },
    {
        name: 'BSC', family: 'evm', chainId: 56,
        // Gas on BSC is paid in BNB, which the bridge does not swap; its vault holds some for fees.
        feeCoin: { symbol: 'BNB', name: 'BNB', decimals: 18, kind: 'coin', priceClass: 'BNB', minAmount: '0', maxAmount: '0' },
        tokens: [
            // BSC's USDT (BEP-20) has 18 decimals, unlike Ethereum's.
            usd('USDT', 'Tether USD (BEP-20)', 18),
            { symbol: 'WNATIVE', name: 'Wrapped NATIVE (BEP-20)', decimals: 18, kind: 'token', priceClass: 'NATIVE', minAmount: '0.0005', maxAmount: '50' },
        ],
    },
    {
        name: 'ETHEREUM', family: 'evm', chainId: 1,
        tokens: [
            { symbol: 'ETH', name: 'Ether', decimals: 18, kind: 'coin', priceClass: 'ETH', minAmount: '0.0005', maxAmount: '30' },
            usd('USDT', 'Tether USD (ERC-20)', 6),
        ],
    },
    {
        name: 'TRON', family: 'tron',
        tokens: [
            { symbol: 'TRX', name: 'TRON', decimals: 6, kind: 'coin', priceClass: 'TRX', minAmount: '10', maxAmount: '400000' },
            usd('USDT', 'Tether USD (TRC-20)', 6),
        ],
    },
    {
        name: 'BITCOIN', family: 'bitcoin',
        tokens: [{ symbol: 'BTC', name: 'Bitcoin', decimals: 8, kind: 'coin', priceClass: 'BTC', minAmount: '0.0001', maxAmount: '1' }],
    },
    {
        name: 'SOLANA', family: 'solana',
        tokens: [{ symbol: 'SOL', name: 'Solana', decimals: 9, kind: 'coin', priceClass: 'SOL', minAmount: '0.05', maxAmount: '600' }],
    },
    {
        name: 'POLYGON', family: 'evm', chainId: 137,
        tokens: [
            { symbol: 'POL', name: 'POL', decimals: 18, kind: 'coin', priceClass: 'POL', minAmount: '5', maxAmount: '400000' },
            // Listed because the local Polygon runs a 6-decimal USDT (devnet/bridge-chains.ts).
            usd('USDT', 'Tether USD (Polygon PoS)', 6),
        ],
    },
]

export function chainSpec(name: string): ChainSpec | undefined {
    return CHAINS.find((c) => c.name === name)
}

export function tokenSpec(chain: string, symbol: string): TokenSpec | undefined {
    return chainSpec(chain)?.tokens.find((t) => t.symbol === symbol)
}

/** "BSC:USDT", the key of an asset in route tables and logs. */
export function assetKey(chain: string, symbol: string): string {
    return `${chain}:${symbol}`
}
